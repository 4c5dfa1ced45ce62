// environment: image, pull policy, registry credentials and the trial's
// environment variables.
import type { SectionProps } from "../config_form";
import { CheckField } from "./CheckField";
import { EnvVarEditor } from "./EnvVarEditor";
import { TextField } from "./TextField";

export function EnvironmentSection({ form, update }: SectionProps) {
  return (
    <fieldset class="form-section">
      <legend>Environment</legend>
      <TextField label="Image" path="environment.image" value={form.image} onChange={(image) => update({ image })}
                 hint="used when the agent has a container runtime" />
      <CheckField label="Force pull image" path="environment.force_pull_image" checked={form.force_pull_image}
                  onChange={(force_pull_image) => update({ force_pull_image })} />
      <TextField label="Registry user" path="environment.registry_auth.username" value={form.registry_username}
                 onChange={(registry_username) => update({ registry_username })} />
      <TextField label="Registry password" path="environment.registry_auth.password" value={form.registry_password}
                 type="password" onChange={(registry_password) => update({ registry_password })} />
      <TextField label="Registry server" path="environment.registry_auth.serveraddress" value={form.registry_serveraddress}
                 onChange={(registry_serveraddress) => update({ registry_serveraddress })} />
      <div class="subsection wide">
        <h4>Environment variables</h4>
        <EnvVarEditor path="environment.environment_variables" rows={form.environment_variables}
                      onChange={(environment_variables) => update({ environment_variables })} addLabel="add variable" />
      </div>
    </fieldset>
  );
}
