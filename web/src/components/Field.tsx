// A labelled form field that shows the config errors the master reported for
// its path (data-field marks it for the error placement).
import type { ComponentChildren } from "preact";
import { useContext } from "preact/hooks";

import { FieldErrorsContext } from "../field_errors";

interface Props {
  label: string;
  path: string;
  hint?: string;
  children: ComponentChildren;
  wide?: boolean;
}

export function Field({ label, path, hint, children, wide = false }: Props) {
  const errors = useContext(FieldErrorsContext).get(path) ?? [];
  return (
    <div class={`field ${wide ? "wide" : ""} ${errors.length ? "has-error" : ""}`} data-field={path}>
      <label>{label}</label>
      {children}
      {hint && <small class="hint">{hint}</small>}
      {errors.map((e) => <div class="field-error">{e.field && e.field !== path ? `${e.field}: ` : ""}{e.message}</div>)}
    </div>
  );
}
