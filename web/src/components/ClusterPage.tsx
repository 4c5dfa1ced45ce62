// The cluster: every agent, its slots and the trial using each slot.
import { api, type Agent } from "../api";
import { formatBytes } from "../format";
import { href } from "../router";
import { usePoll } from "../use_poll";
import { ErrorMessage } from "./ErrorMessage";

export function ClusterPage() {
  const agents = usePoll(() => api.agents(), []);
  const list = agents.data?.agents ?? [];
  const slots = list.flatMap((a) => a.slot_trials);
  const used = slots.filter((t) => t !== 0).length;
  return (
    <div class="page cluster-page">
      <div class="page-title"><h1>Cluster</h1>
        {agents.data && <span class="count">{list.length} agents · {used} of {slots.length} slots in use</span>}
      </div>
      <ErrorMessage error={agents.error} />
      {agents.data && list.length === 0 && <p class="empty">No agent is connected.</p>}
      {list.map((agent) => (
        <section class="panel agent">
          <h2>{agent.agent_id} <span class="muted">{agent.hostname}</span></h2>
          <AgentFacts agent={agent} />
          <table class="table slots">
            <thead><tr><th>Slot</th><th>Type</th><th>Device</th><th>Memory</th><th>Trial</th></tr></thead>
            <tbody>
              {agent.slots.map((slot, i) => {
                const trial = agent.slot_trials[i] ?? 0;
                return (
                  <tr class={trial ? "slot-used" : "slot-free"}>
                    <td>{i}</td>
                    <td>{slot.type}</td>
                    <td>{slot.model || "–"}{slot.device_uuid && <span class="muted mono"> {slot.device_uuid}</span>}</td>
                    <td>{slot.memory_bytes ? formatBytes(slot.memory_bytes) : "–"}</td>
                    <td>{trial ? <a href={href.trial(trial)}>trial {trial}</a> : <span class="muted">free</span>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      ))}
    </div>
  );
}

// An agent's pool, labels and free work disk, with the reason when it starts no trial for lack of disk, and
// the container runtime it runs environment.image with.
function AgentFacts({ agent }: { agent: Agent }) {
  const labels = Object.entries(agent.labels ?? {});
  return (
    <dl class="summary agent-facts">
      <dt>Pool</dt><dd>{agent.pool || "–"}</dd>
      {labels.length > 0 && <><dt>Labels</dt><dd class="mono">{labels.map(([k, v]) => `${k}=${v}`).join(", ")}</dd></>}
      <dt>Free work disk</dt>
      <dd class={agent.work_disk_refusal ? "agent-disk error-text" : "agent-disk"}>
        {formatBytes(agent.work_disk_free_bytes)}{agent.work_disk_refusal && ` — ${agent.work_disk_refusal}`}
      </dd>
      <dt>Container images</dt><dd class="agent-images">{agent.container_runtime || "none"}</dd>
    </dl>
  );
}
