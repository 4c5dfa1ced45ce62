// A text input (or textarea) inside a Field.
import { inputName } from "../field_errors";
import { Field } from "./Field";

interface Props {
  label: string;
  path: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  hint?: string;
  multiline?: boolean;
  wide?: boolean;
  type?: "text" | "password";
}

export function TextField({ label, path, value, onChange, placeholder, hint, multiline, wide, type = "text" }: Props) {
  const name = inputName(path);
  return (
    <Field label={label} path={path} hint={hint} wide={wide}>
      {multiline
        ? <textarea name={name} value={value} placeholder={placeholder} rows={4}
                    onInput={(e) => onChange(e.currentTarget.value)} />
        : <input name={name} type={type} value={value} placeholder={placeholder}
                 onInput={(e) => onChange(e.currentTarget.value)} />}
    </Field>
  );
}
