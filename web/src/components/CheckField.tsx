// A checkbox inside a Field.
import { inputName } from "../field_errors";
import { Field } from "./Field";

interface Props {
  label: string;
  path: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: string;
}

export function CheckField({ label, path, checked, onChange, hint }: Props) {
  return (
    <Field label={label} path={path} hint={hint}>
      <input type="checkbox" name={inputName(path)} checked={checked}
             onChange={(e) => onChange(e.currentTarget.checked)} />
    </Field>
  );
}
