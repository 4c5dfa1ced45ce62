// The hyperparameters: global_batch_size and one row per hyperparameter of
// any type (const, int, double, log, categorical); dotted names nest.
import { emptyHParam, replaceRow, type HParamRow, type HParamType, type SectionProps } from "../config_form";
import { SelectField } from "./SelectField";
import { TextField } from "./TextField";

const TYPES: HParamType[] = ["const", "int", "double", "log", "categorical"];

// The inputs that the row's type takes.
function typeInputs(row: HParamRow, path: string, set: (patch: Partial<HParamRow>) => void) {
  if (row.type === "const") return <TextField label="Value" path={`${path}.val`} value={row.val} onChange={(val) => set({ val })} />;
  if (row.type === "categorical") {
    return <TextField label="Values" path={`${path}.vals`} value={row.vals} onChange={(vals) => set({ vals })}
                      placeholder="adam, sgd" hint="comma-separated" />;
  }
  return (
    <>
      {row.type === "log" && <TextField label="Base" path={`${path}.base`} value={row.base} onChange={(base) => set({ base })} placeholder="10" />}
      <TextField label={row.type === "log" ? "Min exponent" : "Min"} path={`${path}.minval`} value={row.minval}
                 onChange={(minval) => set({ minval })} />
      <TextField label={row.type === "log" ? "Max exponent" : "Max"} path={`${path}.maxval`} value={row.maxval}
                 onChange={(maxval) => set({ maxval })} />
      <TextField label="Count" path={`${path}.count`} value={row.count} onChange={(count) => set({ count })}
                 hint="grid points" />
    </>
  );
}

export function HyperparameterEditor({ form, update }: SectionProps) {
  const rows = form.hyperparameters;
  const setRow = (index: number, patch: Partial<HParamRow>) =>
    update({ hyperparameters: replaceRow(rows, index, { ...rows[index], ...patch }) });
  return (
    <fieldset class="form-section">
      <legend>Hyperparameters</legend>
      <TextField label="global_batch_size" path="hyperparameters.global_batch_size" value={form.global_batch_size}
                 onChange={(global_batch_size) => update({ global_batch_size })} hint="must divide by slots_per_trial" />
      {rows.map((row, index) => {
        const path = `hyperparameters.${row.name.trim() || `#${index}`}`;
        return (
          <div class="row-editor hparam-row" data-index={index}>
            <TextField label="Name" path={path} value={row.name} onChange={(name) => setRow(index, { name })}
                       placeholder="learning_rate" />
            <SelectField label="Type" path={`${path}.type`} value={row.type}
                         options={TYPES.map((t) => ({ value: t, label: t }))} onChange={(type) => setRow(index, { type })} />
            {typeInputs(row, path, (patch) => setRow(index, patch))}
            <button type="button" class="remove" onClick={() => update({ hyperparameters: rows.filter((_, i) => i !== index) })}>
              remove
            </button>
          </div>
        );
      })}
      <button type="button" class="add-hparam" onClick={() => update({ hyperparameters: [...rows, emptyHParam()] })}>
        add hyperparameter
      </button>
    </fieldset>
  );
}
