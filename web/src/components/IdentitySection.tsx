// The experiment's identity and what a trial runs: name, description,
// labels, workspace/project, entrypoint and the free-form data map.
import { parseData, type SectionProps } from "../config_form";
import { TextField } from "./TextField";

export function IdentitySection({ form, update }: SectionProps) {
  const dataError = parseData(form.data).error;
  return (
    <fieldset class="form-section">
      <legend>Experiment</legend>
      <TextField label="Name" path="name" value={form.name} onChange={(name) => update({ name })}
                 placeholder="mnist-random-search" />
      <TextField label="Labels" path="labels" value={form.labels} onChange={(labels) => update({ labels })}
                 placeholder="mnist, baseline" hint="comma-separated" />
      <TextField label="Description" path="description" value={form.description} wide
                 onChange={(description) => update({ description })} />
      <TextField label="Entrypoint" path="entrypoint" value={form.entrypoint} wide
                 onChange={(entrypoint) => update({ entrypoint })} placeholder="model_def:MyTrial"
                 hint="file:Class of a PyTorchTrial, native:NAME, or a command (python3 train.py --epochs 3)" />
      <TextField label="Workspace" path="workspace" value={form.workspace} onChange={(workspace) => update({ workspace })}
                 hint="with project, or neither" />
      <TextField label="Project" path="project" value={form.project} onChange={(project) => update({ project })} />
      <TextField label="Data (JSON object)" path="data" value={form.data} multiline wide
                 onChange={(data) => update({ data })} placeholder='{"url": "https://...", "seed": 1}'
                 hint={dataError ? `not used: ${dataError}` : "passed to the trial as its data config"} />
    </fieldset>
  );
}
