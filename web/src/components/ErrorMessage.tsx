// A failed request or action, shown where it happened.
import { ApiError } from "../api";

export function ErrorMessage({ error }: { error: Error | string | undefined | null }) {
  if (!error) return null;
  const text = typeof error === "string" ? error : error.message;
  const details = error instanceof ApiError ? error.details : [];
  return (
    <div class="error-message" role="alert">
      {text}
      {details.length > 0 && <ul>{details.map((d) => <li>{d}</li>)}</ul>}
    </div>
  );
}
