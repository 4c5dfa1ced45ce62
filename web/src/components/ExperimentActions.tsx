// Pause, activate, kill, archive and unarchive buttons for one experiment,
// offered as its state allows; a refused action shows the server's reason.
import { useState } from "preact/hooks";

import { api, type ExperimentAction, type ExperimentSummary } from "../api";

const ENDED = new Set(["COMPLETED", "CANCELED", "ERROR"]);

function actionsFor(experiment: ExperimentSummary): ExperimentAction[] {
  if (ENDED.has(experiment.state)) return [experiment.archived ? "unarchive" : "archive"];
  return [experiment.state === "PAUSED" ? "activate" : "pause", "kill"];
}

interface Props {
  experiment: ExperimentSummary;
  onDone: () => void;
  compact?: boolean;
}

export function ExperimentActions({ experiment, onDone, compact = false }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (action: ExperimentAction, e: Event) => {
    e.stopPropagation();
    if (action === "kill" && !window.confirm(`Kill experiment ${experiment.id} (${experiment.name})?`)) return;
    setBusy(true);
    setError(undefined);
    try {
      await api.experimentAction(experiment.id, action);
      onDone();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class={compact ? "actions compact" : "actions"}>
      {actionsFor(experiment).map((action) => (
        <button type="button" class={`action action-${action}`} disabled={busy} onClick={(e) => run(action, e)}>
          {action}
        </button>
      ))}
      {error && <span class="inline-error" title={error}>{compact ? "⚠" : error}</span>}
    </span>
  );
}
