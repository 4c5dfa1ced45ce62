// Trials' hyperparameters as flat columns (nested ones as `optimizer.lr`),
// each numeric or categorical, for the tables and hyperparameter charts.
import type { HParams } from "./api";

/** `{optimizer: {lr: 0.1}}` -> `{"optimizer.lr": 0.1}`. */
export function flattenHParams(hparams: HParams, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(hparams)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      Object.assign(out, flattenHParams(value as HParams, name));
    } else {
      out[name] = value;
    }
  }
  return out;
}

export interface HParamColumn {
  name: string;
  numeric: boolean;
  /** Distinct values in first-seen order (categorical columns). */
  categories: string[];
  /** True when every row has the same value: not worth an axis. */
  constant: boolean;
}

/** The columns of the rows' flattened hyperparameters, sorted by name. */
export function hparamColumns(rows: Record<string, unknown>[]): HParamColumn[] {
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))].sort();
  return names.map((name) => {
    const values = rows.map((row) => row[name]);
    const numeric = values.every((v) => typeof v === "number" || v === undefined);
    const categories = [...new Set(values.map((v) => JSON.stringify(v ?? null)))];
    return { name, numeric, categories, constant: categories.length <= 1 };
  });
}

/** Where `value` sits on the column's axis, as a number (categories by index). */
export function axisValue(column: HParamColumn, value: unknown): number | null {
  if (value === undefined) return null;
  if (column.numeric) return typeof value === "number" ? value : null;
  return column.categories.indexOf(JSON.stringify(value));
}
