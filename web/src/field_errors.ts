// Places the master's config errors beside the form fields they name: an
// error goes to the field whose path is its field or the nearest enclosing
// one (hyperparameters.lr for hyperparameters.lr.minval); the rest are
// general.
import { createContext } from "preact";

import type { ConfigError } from "./api";

export type ErrorsByField = Map<string, ConfigError[]>;

export const GENERAL = "";

function encloses(path: string, field: string): boolean {
  return field === path || field.startsWith(path + ".") || field.startsWith(path + "[");
}

/** The errors grouped by the field path (one of `paths`, or GENERAL) that shows each. */
export function assignErrors(errors: ConfigError[], paths: string[]): ErrorsByField {
  const out: ErrorsByField = new Map();
  for (const error of errors) {
    const owner = paths.filter((p) => error.field !== "" && encloses(p, error.field))
      .reduce((best, p) => (p.length > best.length ? p : best), GENERAL);
    out.set(owner, [...(out.get(owner) ?? []), error]);
  }
  return out;
}

export const FieldErrorsContext = createContext<ErrorsByField>(new Map());

/** The form control name for a field path (searcher.max_length -> searcher-max_length). */
export function inputName(path: string): string {
  return path.replace(/[.[\]]+/g, "-").replace(/-$/, "");
}
