// A trial's curves: the chosen metric's training and validation reports.
import { useState } from "preact/hooks";

import { api, type MetricKind, type MetricReport } from "../api";
import { formatMetric } from "../format";
import { usePoll } from "../use_poll";
import { CurveControls, type CurveSettings } from "./CurveControls";
import { ErrorMessage } from "./ErrorMessage";
import { LineChart } from "./LineChart";

const MAX_POINTS = 2000;
const KINDS: MetricKind[] = ["TRAINING", "VALIDATION"];

function pointsOf(reports: MetricReport[], kind: MetricKind, metric: string): [number, number][] {
  return reports
    .filter((r) => r.kind === kind && typeof r.metrics[metric] === "number")
    .map((r) => [r.batches, r.metrics[metric] as number]);
}

export function TrialCurves({ trialId, defaultMetric, live }: { trialId: number; defaultMetric: string; live: boolean }) {
  const [settings, setSettings] = useState<CurveSettings>({
    metric: defaultMetric, kind: "VALIDATION", logY: false, smoothing: 0,
  });
  const metrics = usePoll(() => api.trialMetrics(trialId, MAX_POINTS), [trialId], live ? undefined : 0);
  const reports = metrics.data?.points ?? [];
  const series = KINDS.map((kind, i) => ({
    label: kind.toLowerCase(),
    points: pointsOf(reports, kind, settings.metric),
    dash: i === 0 ? [4, 3] : undefined,
  }));
  const describe = (index: number, x: number, y: number | null) =>
    [`${series[index].label} ${settings.metric}`, `batches ${x}: ${formatMetric(y)}`];
  return (
    <section class="panel trial-curves">
      <h2>Curves</h2>
      <CurveControls settings={settings} names={metrics.data?.names ?? []} onChange={setSettings} showKind={false} />
      <ErrorMessage error={metrics.error} />
      {metrics.data?.downsampled && <p class="note">Downsampled to {MAX_POINTS} of {metrics.data.total} reports.</p>}
      <LineChart series={series} xLabel="batches" yLabel={settings.metric} logY={settings.logY}
                 smoothing={settings.smoothing} describe={describe} showLegend />
    </section>
  );
}
