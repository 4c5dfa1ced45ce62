// The generated distributed.yaml with the lines the master's validation
// flagged, and the errors not tied to one form field.
import type { ConfigError } from "../api";

interface Props {
  text: string;
  errors: ConfigError[];
  general: ConfigError[];
  validating: boolean;
}

export function YamlPreview({ text, errors, general, validating }: Props) {
  const flagged = new Set(errors.map((e) => e.line));
  return (
    <div class="yaml-preview">
      <div class="validation-state">
        {validating ? "validating…" : errors.length === 0 ? "✓ valid" : `${errors.length} error${errors.length > 1 ? "s" : ""}`}
      </div>
      {general.map((e) => <div class="field-error general-error">{e.text || e.message}</div>)}
      <pre class="yaml-text">
        {text.split("\n").map((line, i) => (
          <div class={flagged.has(i + 1) ? "yaml-line flagged" : "yaml-line"}>
            <span class="line-number">{i + 1}</span>{line}
          </div>
        ))}
      </pre>
    </div>
  );
}
