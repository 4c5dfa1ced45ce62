// One trial: its summary, curves, hyperparameters, checkpoints and its log
// followed live.
import { useState } from "preact/hooks";

import { api } from "../api";
import { formatDuration, formatMetric, formatTime } from "../format";
import { href } from "../router";
import { usePoll } from "../use_poll";
import { CheckpointTable } from "./CheckpointTable";
import { ErrorMessage } from "./ErrorMessage";
import { HParamTable } from "./HParamTable";
import { LogViewer } from "./LogViewer";
import { StateBadge } from "./StateBadge";
import { TrialCurves } from "./TrialCurves";

const ENDED = new Set(["COMPLETED", "CANCELED", "ERROR"]);

export function TrialPage({ id }: { id: number }) {
  const trial = usePoll(() => api.trial(id), [id]);
  const t = trial.data;
  const [killError, setKillError] = useState<Error>();
  const experiment = usePoll(() => (t ? api.experiment(t.experiment_id) : null), [t?.experiment_id], 0);
  if (!t) return <div class="page"><ErrorMessage error={trial.error} />{!trial.error && <p>Loading…</p>}</div>;
  const live = !ENDED.has(t.state);
  const metric = experiment.data?.metric ?? "";
  const kill = () => {
    if (!window.confirm(`Kill trial ${t.id}?`)) return;
    api.killTrial(t.id).then(trial.reload, setKillError);
  };
  return (
    <div class="page trial-page">
      <div class="page-title">
        <h1>Trial {t.id}</h1>
        <StateBadge state={t.state} />
        {live && <button type="button" class="action-kill" onClick={kill}>kill</button>}
        <a href={href.experiment(t.experiment_id)}>experiment {t.experiment_id}{experiment.data && `: ${experiment.data.name}`}</a>
      </div>
      <ErrorMessage error={trial.error ?? killError} />
      <dl class="summary">
        <dt>Batches trained</dt><dd>{t.batches_trained}</dd>
        <dt>Best validation</dt><dd>{metric} {formatMetric(t.best_validation)}</dd>
        <dt>Restarts</dt><dd>{t.restarts}</dd>
        <dt>Seed</dt><dd>{t.seed}</dd>
        <dt>Started</dt><dd>{formatTime(t.created_at_ms)} · ran {formatDuration(t.created_at_ms, t.ended_at_ms, Date.now())}</dd>
        {t.error && <><dt>Error</dt><dd class="error-text">{t.error}</dd></>}
      </dl>
      {experiment.data && <TrialCurves trialId={t.id} defaultMetric={metric} live={live} />}
      <div class="two-columns">
        <HParamTable hparams={t.hparams} />
        <CheckpointTable trialId={t.id} live={live} />
      </div>
      <LogViewer trialId={t.id} />
    </div>
  );
}
