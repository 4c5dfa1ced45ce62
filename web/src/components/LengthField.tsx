// A training length ({batches|records|epochs: N}) inside a Field.
import type { LengthField as Length, LengthUnit } from "../config_form";
import { inputName } from "../field_errors";
import { Field } from "./Field";

interface Props {
  label: string;
  path: string;
  value: Length;
  onChange: (value: Length) => void;
  hint?: string;
}

const UNITS: LengthUnit[] = ["batches", "records", "epochs"];

export function LengthField({ label, path, value, onChange, hint }: Props) {
  const name = inputName(path);
  return (
    <Field label={label} path={path} hint={hint}>
      <span class="length-input">
        <input name={name} value={value.value} placeholder="N" onInput={(e) => onChange({ ...value, value: e.currentTarget.value })} />
        <select name={`${name}-unit`} value={value.unit} onChange={(e) => onChange({ ...value, unit: e.currentTarget.value as LengthUnit })}>
          {UNITS.map((u) => <option value={u}>{u}</option>)}
        </select>
      </span>
    </Field>
  );
}
