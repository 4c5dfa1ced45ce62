// Training units, validation and checkpoint periods, restarts, the seed and
// the stdout metrics pattern of command entrypoints.
import type { SectionProps } from "../config_form";
import { CheckField } from "./CheckField";
import { LengthField } from "./LengthField";
import { SelectField } from "./SelectField";
import { TextField } from "./TextField";

export function TrainingSection({ form, update }: SectionProps) {
  return (
    <fieldset class="form-section">
      <legend>Training</legend>
      <TextField label="Records per epoch" path="records_per_epoch" value={form.records_per_epoch}
                 onChange={(records_per_epoch) => update({ records_per_epoch })} hint="needed when a length is in epochs" />
      <TextField label="Scheduling unit" path="scheduling_unit" value={form.scheduling_unit}
                 onChange={(scheduling_unit) => update({ scheduling_unit })} hint="batches per metric report; default 100" />
      <LengthField label="Min validation period" path="min_validation_period" value={form.min_validation_period}
                   onChange={(min_validation_period) => update({ min_validation_period })} />
      <LengthField label="Min checkpoint period" path="min_checkpoint_period" value={form.min_checkpoint_period}
                   onChange={(min_checkpoint_period) => update({ min_checkpoint_period })} />
      <SelectField label="Checkpoint policy" path="checkpoint_policy" value={form.checkpoint_policy}
                   options={[{ value: "", label: "default (best)" }, { value: "best", label: "best" },
                             { value: "all", label: "all" }, { value: "none", label: "none" }]}
                   onChange={(checkpoint_policy) => update({ checkpoint_policy })} />
      <CheckField label="Initial validation" path="perform_initial_validation" checked={form.perform_initial_validation}
                  onChange={(perform_initial_validation) => update({ perform_initial_validation })} />
      <TextField label="Max restarts" path="max_restarts" value={form.max_restarts}
                 onChange={(max_restarts) => update({ max_restarts })} hint="default 5" />
      <TextField label="Experiment seed" path="experiment_seed" value={form.experiment_seed}
                 onChange={(experiment_seed) => update({ experiment_seed })} hint="0 .. 2^31-1; random when empty" />
      <TextField label="Metrics pattern (commands)" path="metrics_collector.format" value={form.metrics_collector_format}
                 wide onChange={(metrics_collector_format) => update({ metrics_collector_format })}
                 hint="regex with name and value groups; empty: Katib's name=value pattern" />
    </fieldset>
  );
}
