// The preview of the generated config's search: how many trials, trained to
// which lengths, and how much training in all (simulated by the master).
import { useState } from "preact/hooks";

import { api, type SearchPreview } from "../api";
import { ErrorMessage } from "./ErrorMessage";

export function SearchPreviewPanel({ yaml }: { yaml: string }) {
  const [preview, setPreview] = useState<SearchPreview>();
  const [error, setError] = useState<Error>();
  const run = () => {
    setError(undefined);
    api.previewSearch(yaml).then(setPreview, (e: Error) => { setPreview(undefined); setError(e); });
  };
  return (
    <div class="search-preview">
      <button type="button" class="preview-button" onClick={run}>Preview the search</button>
      <ErrorMessage error={error} />
      {preview && (
        <div class="preview-result">
          <p>
            {preview.searcher}: {preview.trials} trials, {preview.total_batches} batches in all, at most{" "}
            {preview.max_concurrent_trials} at once (seed {preview.experiment_seed}).
          </p>
          <table class="table">
            <thead><tr><th>Trained to (batches)</th><th>Trials</th></tr></thead>
            <tbody>
              {preview.by_length.map((row) => (
                <tr><td>{row.batches}{row.stopped_early ? " (stopped early)" : ""}</td><td>{row.trials}</td></tr>
              ))}
            </tbody>
          </table>
          {preview.not_simulated.length > 0 && (
            <p class="note">Not simulated: {preview.not_simulated.join(", ")} (the real run may stop sooner).</p>
          )}
        </div>
      )}
    </div>
  );
}
