// Loads data and reloads it every `intervalMs` while the page shows it, so
// live pages update without a reload.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export const LIVE_INTERVAL_MS = 2000;

export interface Polled<T> {
  data: T | undefined;
  error: Error | undefined;
  reload: () => void;
}

/**
 * Calls `load` now, whenever `deps` change, and every `intervalMs` (0: never
 * again); a `load` that returns null has nothing to load yet.
 */
export function usePoll<T>(load: () => Promise<T> | null, deps: unknown[], intervalMs = LIVE_INTERVAL_MS): Polled<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(() => {
    const mine = generation.current;
    loadRef.current()?.then(
      (value) => { if (mine === generation.current) { setData(value); setError(undefined); } },
      (e: Error) => { if (mine === generation.current) setError(e); });
  }, []);

  useEffect(() => {
    generation.current += 1;
    setData(undefined);
    reload();
  }, deps);

  // A changed interval (a run that ended: 0) loads once more at once.
  const firstInterval = useRef(true);
  useEffect(() => {
    if (!firstInterval.current) reload();
    firstInterval.current = false;
    if (intervalMs <= 0) return;
    const timer = window.setInterval(() => { if (!document.hidden) reload(); }, intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);

  return { data, error, reload };
}
