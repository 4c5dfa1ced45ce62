// The experiment's learning curves: one line per trial for the chosen metric,
// fetched downsampled by the server and reloaded while the page is open.
import { useState } from "preact/hooks";

import { api, type ExperimentSummary } from "../api";
import { formatMetric, formatValue } from "../format";
import { flattenHParams } from "../hparams";
import { pointsPerTrial } from "../point_budget";
import { LIVE_INTERVAL_MS, usePoll } from "../use_poll";
import { CurveControls, type CurveSettings } from "./CurveControls";
import { ErrorMessage } from "./ErrorMessage";
import { LineChart } from "./LineChart";

// Curves this large are reloaded less often while the experiment runs.
const LARGE_POINT_COUNT = 100_000;
const LARGE_INTERVAL_MS = 10_000;

export function LearningCurves({ experiment, live }: { experiment: ExperimentSummary; live: boolean }) {
  const [settings, setSettings] = useState<CurveSettings>({
    metric: experiment.metric, kind: "VALIDATION", logY: false, smoothing: 0,
  });
  const [pointCount, setPointCount] = useState(0);
  const interval = !live ? 0 : pointCount > LARGE_POINT_COUNT ? LARGE_INTERVAL_MS : LIVE_INTERVAL_MS;
  const metrics = usePoll(async () => {
    const data = await api.experimentMetrics(experiment.id, settings.kind, settings.metric,
                                             pointsPerTrial(experiment.num_trials));
    setPointCount(data.trials.reduce((n, t) => n + t.points.length, 0));
    return data;
  }, [experiment.id, settings.kind, settings.metric], interval);
  const trials = metrics.data?.trials ?? [];
  const series = trials.map((t) => ({ label: `trial ${t.trial_id}`, points: t.points }));
  const describe = (index: number, x: number, y: number | null) => {
    const trial = trials[index];
    if (!trial) return [];
    const hparams = Object.entries(flattenHParams(trial.hparams)).map(([k, v]) => `${k} = ${formatValue(v)}`);
    return [`trial ${trial.trial_id} (${trial.state})`, `batches ${x}: ${settings.metric} ${formatMetric(y)}`,
            ...hparams];
  };
  return (
    <section class="panel learning-curves">
      <h2>Learning curves</h2>
      <CurveControls settings={settings} names={metrics.data?.names ?? []} onChange={setSettings} />
      <ErrorMessage error={metrics.error} />
      {metrics.data && trials.every((t) => t.points.length === 0) && (
        <p class="empty">No {settings.kind.toLowerCase()} reports of {settings.metric} yet.</p>
      )}
      <LineChart series={series} xLabel="batches" yLabel={settings.metric} logY={settings.logY}
                 smoothing={settings.smoothing} describe={describe} />
    </section>
  );
}
