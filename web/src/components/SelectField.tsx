// A choice among fixed options inside a Field ("" may stand for "the default").
import { inputName } from "../field_errors";
import { Field } from "./Field";

interface Props<T extends string> {
  label: string;
  path: string;
  value: T;
  options: { value: T; label: string }[];
  onChange: (value: T) => void;
  hint?: string;
}

export function SelectField<T extends string>({ label, path, value, options, onChange, hint }: Props<T>) {
  return (
    <Field label={label} path={path} hint={hint}>
      <select name={inputName(path)} value={value} onChange={(e) => onChange(e.currentTarget.value as T)}>
        {options.map((o) => <option value={o.value}>{o.label}</option>)}
      </select>
    </Field>
  );
}
