// Rows of NAME = value (the config's environment_variables, the startup
// hook's exports); row i's field path is `${path}[i]`.
import { replaceRow, type EnvVarRow } from "../config_form";
import { TextField } from "./TextField";

interface Props {
  path: string;
  rows: EnvVarRow[];
  onChange: (rows: EnvVarRow[]) => void;
  addLabel: string;
}

export function EnvVarEditor({ path, rows, onChange, addLabel }: Props) {
  return (
    <div class="env-vars">
      {rows.map((row, index) => (
        <div class="row-editor env-row">
          <TextField label="Name" path={`${path}[${index}]`} value={row.name} placeholder="NAME"
                     onChange={(name) => onChange(replaceRow(rows, index, { ...row, name }))} />
          <TextField label="Value" path={`${path}[${index}].value`} value={row.value}
                     onChange={(value) => onChange(replaceRow(rows, index, { ...row, value }))} />
          <button type="button" class="remove" onClick={() => onChange(rows.filter((_, i) => i !== index))}>remove</button>
        </div>
      ))}
      <button type="button" class="add-env" onClick={() => onChange([...rows, { name: "", value: "" }])}>{addLabel}</button>
    </div>
  );
}
