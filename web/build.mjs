// Bundles the UI into OUTDIR (default web/dist): index.html, app.js, app.css.
// Usage: node build.mjs [--outdir DIR] [--watch]
import { build, context } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const webDir = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outdirIndex = args.indexOf("--outdir");
const outdir = resolve(outdirIndex >= 0 ? args[outdirIndex + 1] : join(webDir, "dist"));

const options = {
  entryPoints: { app: join(webDir, "src/main.tsx") },
  outdir,
  bundle: true,
  minify: true,
  sourcemap: "linked",
  format: "esm",
  target: ["es2022"],
  jsx: "automatic",
  jsxImportSource: "preact",
  logLevel: "warning",
};

await mkdir(outdir, { recursive: true });
await copyFile(join(webDir, "src/index.html"), join(outdir, "index.html"));
if (args.includes("--watch")) {
  await (await context(options)).watch();
} else {
  await build(options);
}
