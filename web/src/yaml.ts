// Writes JSON-like values as block-style YAML (the distributed.yaml the form
// generates). Strings that YAML would read as another type are quoted.

export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

const PLAIN_STRING = /^[A-Za-z_./][\w ./:=+@%-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|null|y|n|~)$/i;

function scalar(value: string | number | boolean | null): string {
  if (value === null) return "null";
  if (typeof value !== "string") return String(value);
  if (PLAIN_STRING.test(value) && !RESERVED.test(value) && !value.endsWith(" ") && !value.includes(": ")
      && !value.includes(" #")) {
    return value;
  }
  return JSON.stringify(value);
}

function isEmptyCollection(value: YamlValue): boolean {
  return (Array.isArray(value) && value.length === 0)
    || (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);
}

function lines(value: YamlValue, indent: string): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (item !== null && typeof item === "object" && !isEmptyCollection(item)) {
        const [first, ...rest] = lines(item, indent + "  ");
        return [`${indent}- ${first.trimStart()}`, ...rest];
      }
      return [`${indent}- ${inline(item)}`];
    });
  }
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => {
      if (item !== null && typeof item === "object" && !isEmptyCollection(item)) {
        return [`${indent}${scalar(key)}:`, ...lines(item, indent + "  ")];
      }
      return [`${indent}${scalar(key)}: ${inline(item)}`];
    });
  }
  return [indent + scalar(value)];
}

function inline(value: YamlValue): string {
  if (Array.isArray(value)) return "[]";
  if (value !== null && typeof value === "object") return "{}";
  return scalar(value);
}

/** The document for `value` (a map at the top), ending with a newline. */
export function toYaml(value: YamlValue): string {
  return lines(value, "").join("\n") + "\n";
}
