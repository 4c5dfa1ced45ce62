// One experiment: its summary and actions, learning curves of every trial,
// the hyperparameter view, the trial table and the config; live while it runs.
import { api } from "../api";
import { formatDuration, formatMetric, formatTime } from "../format";
import { href } from "../router";
import { usePoll } from "../use_poll";
import { ErrorMessage } from "./ErrorMessage";
import { ExperimentActions } from "./ExperimentActions";
import { HyperparameterView } from "./HyperparameterView";
import { LearningCurves } from "./LearningCurves";
import { ProgressBar } from "./ProgressBar";
import { StateBadge } from "./StateBadge";
import { TrialTable } from "./TrialTable";

const LIVE_STATES = new Set(["ACTIVE", "PAUSED"]);

export function ExperimentPage({ id }: { id: number }) {
  const experiment = usePoll(() => api.experiment(id), [id]);
  const e = experiment.data;
  if (!e) return <div class="page"><ErrorMessage error={experiment.error} />{!experiment.error && <p>Loading…</p>}</div>;
  const live = LIVE_STATES.has(e.state);
  return (
    <div class="page experiment-page">
      <div class="page-title">
        <h1>Experiment {e.id}: {e.name}</h1>
        <StateBadge state={e.state} />
        <ExperimentActions experiment={e} onDone={experiment.reload} />
      </div>
      <ErrorMessage error={experiment.error} />
      <dl class="summary">
        <dt>Progress</dt><dd><ProgressBar value={e.progress} /></dd>
        <dt>Searcher</dt><dd>{e.searcher} on {e.metric} ({e.smaller_is_better ? "smaller" : "larger"} is better)</dd>
        <dt>Best</dt>
        <dd class="best">
          {e.best ? <>{formatMetric(e.best.metric)} (<a href={href.trial(e.best.trial_id)}>trial {e.best.trial_id}</a>)</> : "–"}
        </dd>
        <dt>Owner</dt><dd>{e.owner}</dd>
        <dt>Created</dt><dd>{formatTime(e.created_at_ms)} · ran {formatDuration(e.created_at_ms, e.ended_at_ms, Date.now())}</dd>
        {e.labels?.length ? <><dt>Labels</dt><dd>{e.labels.map((l) => <span class="label">{l}</span>)}</dd></> : null}
        {e.description && <><dt>Description</dt><dd>{e.description}</dd></>}
        {e.error && <><dt>Error</dt><dd class="error-text">{e.error}</dd></>}
      </dl>
      <LearningCurves experiment={e} live={live} />
      <HyperparameterView experiment={e} />
      <TrialTable trials={e.trials} metric={e.metric} />
      <section class="panel config">
        <h2>Config</h2>
        <pre class="config-text">{e.config}</pre>
      </section>
    </div>
  );
}
