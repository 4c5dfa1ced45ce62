// Maps a column of values onto [0, 1] for the hyperparameter charts: numbers
// linearly, or logarithmically when positive and spanning two decades or
// more; categories evenly by index.
import { formatMetric } from "./format";
import { axisValue, type HParamColumn } from "./hparams";

export interface AxisScale {
  /** Position in [0, 1], or null when the value is missing. */
  toUnit: (value: unknown) => number | null;
  /** Labels and their positions along the axis. */
  ticks: { at: number; label: string }[];
  log: boolean;
}

export function numericScale(values: number[]): AxisScale {
  const finite = values.filter(Number.isFinite);
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const log = finite.length > 0 && min > 0 && max / min >= 100;
  const t = (v: number) => (log ? Math.log10(v) : v);
  const span = t(max) - t(min);
  const toUnit = (value: unknown) => {
    if (typeof value !== "number" || !Number.isFinite(value) || finite.length === 0) return null;
    return span > 0 ? (t(value) - t(min)) / span : 0.5;
  };
  const ticks = finite.length === 0 ? [] : span > 0
    ? [{ at: 0, label: formatMetric(min) }, { at: 1, label: formatMetric(max) }]
    : [{ at: 0.5, label: formatMetric(min) }];
  return { toUnit, ticks, log };
}

export function columnScale(column: HParamColumn, values: unknown[]): AxisScale {
  if (column.numeric) return numericScale(values.filter((v): v is number => typeof v === "number"));
  const n = column.categories.length;
  const at = (index: number) => (n > 1 ? index / (n - 1) : 0.5);
  return {
    toUnit: (value) => {
      const index = axisValue(column, value);
      return index === null || index < 0 ? null : at(index);
    },
    ticks: column.categories.map((c, i) => ({ at: at(i), label: c.replace(/^"|"$/g, "") })),
    log: false,
  };
}

/** A canvas sized for the device's pixel ratio, its context scaled to CSS pixels. */
export function prepareCanvas(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext("2d")!;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = "12px system-ui, sans-serif";
  return ctx;
}
