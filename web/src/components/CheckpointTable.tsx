// A trial's checkpoints, each with its metrics and a download link (a gzip
// tar made by the master, authenticated by the session cookie).
import { api } from "../api";
import { formatBytes, formatMetric, formatTime } from "../format";
import { usePoll } from "../use_poll";
import { ErrorMessage } from "./ErrorMessage";

export function CheckpointTable({ trialId, live }: { trialId: number; live: boolean }) {
  const list = usePoll(() => api.trialCheckpoints(trialId), [trialId], live ? undefined : 0);
  const checkpoints = list.data?.checkpoints ?? [];
  return (
    <section class="panel checkpoints">
      <h2>Checkpoints ({checkpoints.length})</h2>
      <ErrorMessage error={list.error} />
      {checkpoints.length === 0 ? <p class="empty">No checkpoints.</p> : (
        <table class="table">
          <thead><tr><th>UUID</th><th>Batches</th><th>State</th><th>Size</th><th>Metrics</th><th>Created</th><th /></tr></thead>
          <tbody>
            {checkpoints.map((c) => (
              <tr>
                <td class="mono">{c.uuid}</td>
                <td>{c.batches}</td>
                <td>{c.state}</td>
                <td>{formatBytes(c.total_bytes)}</td>
                <td>{Object.entries(c.metrics ?? {}).map(([k, v]) => `${k} ${formatMetric(v)}`).join(", ")}</td>
                <td>{formatTime(c.created_at_ms)}</td>
                <td>{c.state !== "DELETED" && <a class="download" href={api.checkpointDownloadUrl(c.uuid)}
                                                     download={`checkpoint-${c.uuid}.tar.gz`}>download</a>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
