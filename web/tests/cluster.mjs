// Starts a real single-host Volador cluster (master + agent in one process,
// `volador-node up`) with its HTTP server on a free loopback port, for the
// browser test; its output goes to ARTIFACTS/node.log.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

const START_DEADLINE_MS = 60_000;
const STOP_GRACE_MS = 15_000;  // then SIGKILL: a hung node must not hang the test
const POLL_MS = 100;

/** Waits until `path` exists and is non-empty (the node writes it once listening); returns its text. */
async function waitForFile(path, child) {
  const deadline = Date.now() + START_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`volador-node exited with ${child.exitCode} before writing ${path}`);
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8").trim();
      if (text) return text;
    }
    await delay(POLL_MS);
  }
  throw new Error(`volador-node did not write ${path} within ${START_DEADLINE_MS / 1000} s`);
}

/**
 * Starts the cluster with `slots` CPU slots; resolves to {url, username,
 * password, dataDir, stop()} once the HTTP server listens.
 */
export async function startCluster({ nodeBinary, webDir, artifactsDir, slots = 2 }) {
  const dataDir = mkdtempSync(join(tmpdir(), "volador-web-test-"));
  const log = openSync(join(artifactsDir, "node.log"), "w");
  const child = spawn(nodeBinary, [
    "up", "--data", dataDir, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
    "--slots", String(slots), "--slot-type", "cpu", "--web-dir", webDir,
    "--sandbox", "off",  // the gated project's gate file is on the host, which a sandbox hides
  ], { stdio: ["ignore", log, log] });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await waitForFile(join(dataDir, "http.addr"), child);  // the UI's URL, http://HOST:PORT
    const password = await waitForFile(join(dataDir, "admin.password"), child);
    return { url: url.replace(/\/+$/, ""), username: "admin", password, dataDir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
