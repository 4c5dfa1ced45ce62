// Bundles tests/unit/*.test.ts with esbuild (the UI's pure modules, no DOM)
// and runs them with node's test runner.
import { build } from "esbuild";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { run } from "node:test";
import { spec } from "node:test/reporters";
import { fileURLToPath } from "node:url";

const unitDir = join(dirname(fileURLToPath(import.meta.url)), "unit");
const outdir = mkdtempSync(join(tmpdir(), "volador-web-unit-"));
try {
  const entryPoints = readdirSync(unitDir).filter((f) => f.endsWith(".test.ts")).map((f) => join(unitDir, f));
  await build({ entryPoints, outdir, bundle: true, platform: "node", format: "esm", outExtension: { ".js": ".mjs" },
                jsx: "automatic", jsxImportSource: "preact", logLevel: "warning" });
  const files = readdirSync(outdir).map((f) => join(outdir, f));
  let failed = false;
  const stream = run({ files }).on("test:fail", () => { failed = true; });
  stream.compose(spec).pipe(process.stdout);
  await new Promise((resolve) => stream.on("end", resolve));
  process.exitCode = failed ? 1 : 0;
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
