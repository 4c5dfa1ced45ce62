// The startup-hook.sh generator: exported variables and the user's shell
// lines (e.g. data downloads), shown as the script that will run.
import { EnvVarEditor } from "./EnvVarEditor";
import { badExportNames, startupHookScript, type StartupHookForm } from "../startup_hook";

interface Props {
  hook: StartupHookForm;
  onChange: (hook: StartupHookForm) => void;
}

export function StartupHookEditor({ hook, onChange }: Props) {
  const bad = badExportNames(hook);
  return (
    <fieldset class="form-section startup-hook">
      <legend>startup-hook.sh</legend>
      <p class="hint wide">
        Runs in the trial's folder before the trial starts. Packages cannot be installed there: export
        variables and run your own commands (e.g. download a data set).
      </p>
      <div class="subsection wide">
        <h4>Exports</h4>
        <EnvVarEditor path="startup_hook.exports" rows={hook.exports} addLabel="add export"
                      onChange={(exports) => onChange({ ...hook, exports })} />
        {bad.length > 0 && <div class="field-error">not shell variable names: {bad.join(", ")}</div>}
      </div>
      <div class="field wide">
        <label>Commands</label>
        <textarea name="startup-hook-commands" rows={5} value={hook.commands}
                  placeholder={"mkdir -p data\ncurl -fsSL -o data/train.csv https://example.com/train.csv"}
                  onInput={(e) => onChange({ ...hook, commands: e.currentTarget.value })} />
      </div>
      <pre class="script-preview wide">{startupHookScript(hook)}</pre>
    </fieldset>
  );
}
