// A trial's log: followed live over Server-Sent Events while the trial runs,
// or searched on the server; long logs are virtualised.
import { useEffect, useState } from "preact/hooks";

import { api, type LogEntry } from "../api";
import { formatClock } from "../format";
import { ErrorMessage } from "./ErrorMessage";
import { VirtualList } from "./VirtualList";

const KEPT_LINES = 50_000;
const SEARCH_LIMIT = 5000;
const RECONNECT_MS = 2000;

/** Appends `more` to `lines`, keeping the last KEPT_LINES. */
function appended(lines: LogEntry[], more: LogEntry[]): LogEntry[] {
  const all = lines.concat(more);
  return all.length > KEPT_LINES ? all.slice(all.length - KEPT_LINES) : all;
}

/** Follows the trial's log from its start; returns the function that stops it. */
function follow(trialId: number, onLines: (more: LogEntry[]) => void, onState: (state: string) => void): () => void {
  let lastSeq = 0;
  let source: EventSource | undefined;
  let retry: number | undefined;
  let stopped = false;
  const open = () => {
    source = new EventSource(api.trialLogStreamUrl(trialId, lastSeq));
    onState("following");
    source.onmessage = (event) => {
      const entry = JSON.parse(event.data) as LogEntry;
      lastSeq = Math.max(lastSeq, entry.seq);
      onLines([entry]);
    };
    source.addEventListener("end", () => { source?.close(); onState("ended"); });
    source.onerror = () => {
      source?.close();
      if (stopped) return;
      onState("reconnecting");
      retry = window.setTimeout(open, RECONNECT_MS);
    };
  };
  open();
  return () => { stopped = true; source?.close(); window.clearTimeout(retry); };
}

export function LogViewer({ trialId }: { trialId: number }) {
  const [lines, setLines] = useState<LogEntry[]>([]);
  const [query, setQuery] = useState("");
  const [state, setState] = useState("");
  const [error, setError] = useState<Error>();

  useEffect(() => {
    setLines([]);
    setError(undefined);
    if (query === "") {
      // Lines arriving together are batched into one render.
      let pending: LogEntry[] = [];
      let frame = 0;
      const flush = () => { frame = 0; const batch = pending; pending = []; setLines((old) => appended(old, batch)); };
      const stop = follow(trialId, (more) => {
        pending.push(...more);
        if (!frame) frame = window.requestAnimationFrame(flush);
      }, setState);
      return () => { stop(); window.cancelAnimationFrame(frame); };
    }
    setState("searching");
    const timer = window.setTimeout(() => {
      api.trialLogs(trialId, 0, SEARCH_LIMIT, query).then(
        (page) => { setLines(page.lines); setState(`${page.lines.length} matching lines`); },
        (e: Error) => setError(e));
    }, 250);
    return () => window.clearTimeout(timer);
  }, [trialId, query]);

  return (
    <section class="panel logs">
      <h2>Logs</h2>
      <div class="log-controls">
        <input type="search" class="log-search" placeholder="Search the log" value={query}
               onInput={(e) => setQuery(e.currentTarget.value)} />
        <span class="log-state">{state}</span>
        <span class="log-count" data-count={lines.length}>{lines.length} lines</span>
      </div>
      <ErrorMessage error={error} />
      <div class="log-view">
        <VirtualList items={lines} rowHeight={18} maxHeight={420} stickToBottom={query === ""}
                     renderRow={(line) => (
                       <div class={`log-line stream-${line.stream}`}>
                         <span class="log-time">{formatClock(line.time_ms)}</span>
                         <span class="log-text">{line.text}</span>
                       </div>
                     )} />
      </div>
    </section>
  );
}
