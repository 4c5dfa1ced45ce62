// How many points per trial the learning-curve chart asks the server for:
// a budget for the whole chart, so a thousand trials draw as fast as ten
// (a chart about 1,300 pixels wide shows no more than that anyway).
export const CHART_POINT_BUDGET = 60_000;
export const MAX_POINTS_PER_TRIAL = 500;
export const MIN_POINTS_PER_TRIAL = 20;

// Points per trial for a chart of `trials` curves: the budget shared out,
// between MIN_POINTS_PER_TRIAL and MAX_POINTS_PER_TRIAL.
export function pointsPerTrial(trials: number): number {
  const shared = Math.floor(CHART_POINT_BUDGET / Math.max(1, trials));
  return Math.min(MAX_POINTS_PER_TRIAL, Math.max(MIN_POINTS_PER_TRIAL, shared));
}
