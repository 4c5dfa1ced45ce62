// The startup-hook.sh generator: a shell script the agent runs in the trial's
// folder before the trial starts. It exports variables and runs the user's
// own commands (data downloads and the like); nothing is installed.
import type { EnvVarRow } from "./config_form";

export interface StartupHookForm {
  exports: EnvVarRow[];
  commands: string;  // lines of shell, as the user wrote them
}

export function initialStartupHook(): StartupHookForm {
  return { exports: [], commands: "" };
}

/** Single-quotes `text` for the shell. */
export function shellQuote(text: string): string {
  return "'" + text.replaceAll("'", "'\\''") + "'";
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names of exports that are not shell identifiers (the script would fail on them). */
export function badExportNames(form: StartupHookForm): string[] {
  return form.exports.map((e) => e.name.trim()).filter((name) => name !== "" && !IDENTIFIER.test(name));
}

export function isEmptyStartupHook(form: StartupHookForm): boolean {
  return form.exports.every((e) => e.name.trim() === "") && form.commands.trim() === "";
}

/** The script's text: a strict-mode header, the exports, then the commands. */
export function startupHookScript(form: StartupHookForm): string {
  const lines = ["#!/bin/sh", "# startup-hook.sh: run in the trial's folder before the trial starts.", "set -eu", ""];
  for (const { name, value } of form.exports) {
    if (name.trim() !== "") lines.push(`export ${name.trim()}=${shellQuote(value)}`);
  }
  const commands = form.commands.replace(/\s+$/, "");
  if (commands !== "") lines.push("", commands);
  return lines.join("\n") + "\n";
}
