// The trials of an experiment as points of the hyperparameter views: their
// flattened hyperparameters and best validation metric.
import type { TrialSummary } from "./api";
import { flattenHParams, type HParamColumn } from "./hparams";

export interface TrialPoint {
  trialId: number;
  hparams: Record<string, unknown>;
  metric: number | null;
}

export function trialPoints(trials: TrialSummary[]): TrialPoint[] {
  return trials.map((t) => ({ trialId: t.id, hparams: flattenHParams(t.hparams), metric: t.best_validation }));
}

/** Each point's metric as a goodness in [0, 1] (1 = the best), for colouring. */
export function goodness(points: TrialPoint[], smallerIsBetter: boolean): (metric: number | null) => number {
  const values = points.map((p) => p.metric).filter((m): m is number => m !== null && Number.isFinite(m));
  const min = Math.min(...values);
  const max = Math.max(...values);
  return (metric) => {
    if (metric === null || values.length === 0 || max === min) return 0.5;
    const t = (metric - min) / (max - min);
    return smallerIsBetter ? 1 - t : t;
  };
}

/** What the hyperparameter charts draw: the trials, their columns and the searcher metric. */
export interface HParamChartProps {
  points: TrialPoint[];
  columns: HParamColumn[];
  metric: string;
  smallerIsBetter: boolean;
}
