// The web UI in a real browser (Debian's chromium driven by playwright-core)
// against a real single-host cluster: a wrong password is refused; the admin
// logs in, fills the distributed.yaml and startup-hook.sh generators (a bad
// value is shown beside its field), uploads a project folder and submits;
// the experiment's curves are drawn (canvas not blank, as many points plotted
// as the API returned), it is paused and activated, a trial's log is
// followed live and searched, and the experiment completes. Screenshots go
// to ARTIFACTS. Finally the admin adds a user, who logs in.
//
// node browser_test.mjs --node BUILD/bin/volador-node --web-dir BUILD/web/dist
//   --chromium /usr/bin/chromium --artifacts DIR [--project DIR]
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

import { startCluster } from "./cluster.mjs";

const WAIT_MS = 90_000;
const NEW_USER_PASSWORD = "a long enough password";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                       "--disable-background-networking", "--disable-component-update", "--disable-sync"];

function parseArgs(argv) {
  const options = { project: join(dirname(fileURLToPath(import.meta.url)), "gated_project") };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "").replace(/-(\w)/g, (_, c) => c.toUpperCase());
    options[key] = argv[i + 1];
  }
  for (const required of ["node", "webDir", "chromium", "artifacts"]) {
    if (!options[required]) throw new Error(`browser_test: --${required} is required`);
  }
  return options;
}

/** Runs `body`, printing the step's name first (the log tells how far a failed run got). */
async function step(name, body) {
  console.log(`- ${name}`);
  return body();
}

/** The uPlot chart's plotted points and how many canvas pixels are painted. */
function chartStats(selector) {
  const el = document.querySelector(selector);
  const u = el?.uplot;
  if (!u) return null;
  const points = u.data.slice(1).reduce((n, series) => n + series.filter((v) => v !== null && v !== undefined).length, 0);
  const canvas = u.ctx.canvas;
  const pixels = u.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    const opaque = pixels[i + 3] > 0;
    const white = pixels[i] > 245 && pixels[i + 1] > 245 && pixels[i + 2] > 245;
    if (opaque && !white) painted += 1;
  }
  return { points, painted, series: u.series.length - 1, logScale: u.scales.y.distr === 3 };
}

async function expectState(page, state) {
  await page.locator(`.page-title .state-${state.toLowerCase()}`).waitFor({ timeout: WAIT_MS });
}

async function login(page, cluster) {
  await step("a wrong password is refused with a visible message", async () => {
    await page.goto(`${cluster.url}/`);
    await page.fill("input[name=username]", cluster.username);
    await page.fill("input[name=password]", "not-the-password");
    await page.click(".login-form button[type=submit]");
    await page.locator(".login-error").waitFor();
    assert.match(await page.textContent(".login-error"), /Wrong user name or password/);
  });
  await page.screenshot({ path: join(page.artifacts, "01-login-refused.png") });
  await step("the admin logs in", async () => {
    await page.fill("input[name=password]", cluster.password);
    await page.click(".login-form button[type=submit]");
    await page.locator(".navbar .user").waitFor();
    assert.match(await page.textContent(".navbar .user"), /admin/);
  });
}

async function fillHParam(page, index, name, type, values) {
  const row = page.locator(".hparam-row").nth(index);
  await row.locator("input").first().fill(name);
  await row.locator("select").selectOption(type);
  for (const [field, value] of Object.entries(values)) {
    await row.locator(`.field[data-field="hyperparameters.${name}.${field}"] input`).fill(value);
  }
}

async function fillGenerator(page, gatePath, project) {
  await step("the distributed.yaml generator is filled in", async () => {
    await page.click(".navbar >> text=New experiment");
    await page.fill("input[name=name]", "browser-test");
    await page.fill("input[name=labels]", "browser, gated");
    await page.fill("input[name=entrypoint]", "/usr/bin/python3 train.py");
    await page.fill("input[name=hyperparameters-global_batch_size]", "16");
    await page.click(".add-hparam");
    await page.click(".add-hparam");
    await fillHParam(page, 0, "lr", "log", { base: "10", minval: "-1.5", maxval: "-0.5" });
    await fillHParam(page, 1, "width", "int", { minval: "4", maxval: "32" });
    await page.selectOption("select[name=searcher-name]", "random");
    await page.fill("input[name=searcher-metric]", "accuracy");
    await page.uncheck("input[name=searcher-smaller_is_better]");
    await page.fill("input[name=searcher-max_length]", "5000");
    await page.fill("input[name=searcher-max_concurrent_trials]", "2");
    await page.fill("input[name=max_restarts]", "0");
    await page.fill("input[name=experiment_seed]", "5");
  });
  await step("a bad value is reported beside its field by the master's validation", async () => {
    await page.fill("input[name=searcher-max_trials]", "many");
    const error = page.locator('.field[data-field="searcher.max_trials"] .field-error');
    await error.waitFor({ timeout: WAIT_MS });
    await page.screenshot({ path: join(page.artifacts, "02-field-error.png"), fullPage: true });
    await page.fill("input[name=searcher-max_trials]", "2");
    await page.waitForFunction(() => document.querySelector(".validation-state")?.textContent === "✓ valid", null,
                               { timeout: WAIT_MS });
    assert.equal(await error.count(), 0);
  });
  await step("the master previews the search of the generated config", async () => {
    await page.click(".preview-button");
    await page.locator(".preview-result").waitFor({ timeout: WAIT_MS });
    assert.match(await page.textContent(".preview-result"), /random: 2 trials/);
  });
  await step("the startup-hook.sh generator exports the gate and runs a command", async () => {
    await page.click(".startup-hook .add-env");
    await page.fill('.startup-hook input[name="startup_hook-exports-0"]', "VOLADOR_TEST_GATE");
    await page.fill('.startup-hook input[name="startup_hook-exports-0-value"]', gatePath);
    await page.fill("textarea[name=startup-hook-commands]", 'echo "startup hook ran in $(pwd)"');
    assert.match(await page.textContent(".script-preview"), /export VOLADOR_TEST_GATE='/);
  });
  await step("the project folder is chosen", async () => {
    await page.setInputFiles("input[name=project-folder]", project);
    assert.match(await page.textContent(".project-summary"), /Uploading \d+ files/);
  });
  await page.screenshot({ path: join(page.artifacts, "03-new-experiment.png"), fullPage: true });
}

async function submit(page) {
  return step("the experiment is submitted and its page opens", async () => {
    await page.click("button.submit");
    await page.waitForURL(/#\/experiments\/\d+$/, { timeout: WAIT_MS });
    return Number(page.url().match(/experiments\/(\d+)$/)[1]);
  });
}

/** The number of points the API returns for the curves the chart shows. */
async function apiPointCount(page, experimentId) {
  return page.evaluate(async (id) => {
    const response = await fetch(`/api/v1/experiments/${id}/metrics?kind=VALIDATION&metric=accuracy&max_points=500`);
    const body = await response.json();
    return body.trials.reduce((n, t) => n + t.points.length, 0);
  }, experimentId);
}

async function checkCurves(page, experimentId) {
  const chart = ".learning-curves .line-chart";
  await page.waitForFunction(`(${chartStats})("${chart}")?.points >= 10`, null, { timeout: WAIT_MS });
  const stats = await page.evaluate(chartStats, chart);
  assert.ok(stats.painted > 500, `the chart's canvas is nearly blank (${stats.painted} painted pixels)`);
  assert.equal(stats.series, 2, "one curve per trial");
  return stats;
}

async function watchExperiment(page, experimentId) {
  await step("learning curves are drawn for both trials while they run", async () => {
    await expectState(page, "ACTIVE");
    await checkCurves(page, experimentId);
    await page.locator(".trial-table .grid-row.clickable").nth(1).waitFor({ timeout: WAIT_MS });
  });
  await page.screenshot({ path: join(page.artifacts, "04-experiment-running.png"), fullPage: true });
  await step("pause", async () => {
    await page.click(".page-title .action-pause");
    await expectState(page, "PAUSED");
  });
  await page.screenshot({ path: join(page.artifacts, "05-experiment-paused.png") });
  await step("activate", async () => {
    await page.click(".page-title .action-activate");
    await expectState(page, "ACTIVE");
  });
}

async function followLogs(page) {
  await step("a trial's log is followed live", async () => {
    await page.locator(".trial-table .grid-row.clickable").first().click();
    await page.waitForURL(/#\/trials\/\d+$/);
    const count = () => page.getAttribute(".log-count", "data-count").then(Number);
    await page.waitForFunction(() => Number(document.querySelector(".log-count")?.dataset.count) >= 3, null,
                               { timeout: WAIT_MS });
    const before = await count();
    await page.waitForFunction((n) => Number(document.querySelector(".log-count").dataset.count) > n, before,
                               { timeout: WAIT_MS });
    assert.match(await page.textContent(".log-state"), /following/);
  });
  await step("the log is searched on the server", async () => {
    await page.fill(".log-search", "startup hook ran");
    await page.locator(".log-state", { hasText: "matching lines" }).waitFor({ timeout: WAIT_MS });
    const lines = await page.locator(".log-line .log-text").allTextContents();
    assert.ok(lines.length >= 1, "the startup hook's line is in the log");
    for (const line of lines) assert.match(line, /startup hook ran/);
  });
  await page.screenshot({ path: join(page.artifacts, "06-trial-logs.png"), fullPage: true });
  await page.fill(".log-search", "");
}

async function finish(page, experimentId, gatePath) {
  await step("the experiment completes once the gate opens", async () => {
    writeFileSync(gatePath, "open\n");
    await page.goto(page.url().replace(/#.*$/, `#/experiments/${experimentId}`));
    await expectState(page, "COMPLETED");
  });
  await step("the final curves show every point the API returns", async () => {
    const expected = await apiPointCount(page, experimentId);
    await page.waitForFunction(`(${chartStats})("${'.learning-curves .line-chart'}")?.points === ${expected}`, null,
                               { timeout: WAIT_MS });
    const stats = await checkCurves(page, experimentId);
    assert.equal(stats.points, expected);
  });
  await step("hovering a curve names its trial and hyperparameters", async () => {
    const at = await page.evaluate(() => {
      const u = document.querySelector(".learning-curves .line-chart").uplot;
      const index = u.data[1].findLastIndex((v) => v !== null && v !== undefined);
      const box = u.over.getBoundingClientRect();
      return { x: box.left + u.valToPos(u.data[0][index], "x"), y: box.top + u.valToPos(u.data[1][index], "y") };
    });
    await page.mouse.move(at.x - 3, at.y);  // just inside the plot: the last point lies on its right edge
    const tooltip = page.locator(".learning-curves .chart-tooltip");
    await tooltip.filter({ hasText: /trial \d+/ }).waitFor();
    assert.match(await tooltip.textContent(), /lr = .*width = /s);
    await page.mouse.move(0, 0);
  });
  await step("the log y-axis and smoothing apply", async () => {
    await page.check(".learning-curves .log-y");
    await page.waitForFunction(`(${chartStats})(".learning-curves .line-chart")?.logScale === true`);
    await page.locator(".learning-curves .smoothing").fill("0.9");
    const smoothed = await page.evaluate(() => document.querySelector(".learning-curves .line-chart").uplot.data[1]);
    assert.ok(smoothed.some((v) => v !== null), "smoothed values are plotted");
  });
  await page.screenshot({ path: join(page.artifacts, "07-experiment-completed.png"), fullPage: true });
}

async function checkOtherPages(page, experimentId) {
  await step("the cluster page lists the agent's two slots and its free work disk", async () => {
    await page.click(".navbar >> text=Cluster");
    await page.locator(".agent .slots tbody tr").nth(1).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator(".agent .slots tbody tr").count(), 2);
    // The agent's free work disk, as it reported it (the work folder is on a real file system).
    assert.match(await page.locator(".agent .agent-disk").innerText(), /^\d+(\.\d)? (MiB|GiB|TiB)$/);
  });
  await page.screenshot({ path: join(page.artifacts, "08-cluster.png") });
  await step("the experiment list shows the completed experiment", async () => {
    await page.click(".navbar >> text=Experiments");
    const row = page.locator(`.experiment-row-${experimentId}`);
    await row.locator(".state-completed").waitFor({ timeout: WAIT_MS });
  });
  await step("the list filters by state and text on the server", async () => {
    const row = page.locator(`.experiment-row-${experimentId}`);
    await page.selectOption(".filter-state", "PAUSED");
    await page.locator(".experiment-list .data-grid .empty").waitFor({ timeout: WAIT_MS });
    await page.selectOption(".filter-state", "COMPLETED");
    await page.fill(".filter-q", "browser-t");
    await row.waitFor({ timeout: WAIT_MS });
    await page.fill(".filter-q", "no such experiment");
    await row.waitFor({ state: "detached", timeout: WAIT_MS });
    await page.fill(".filter-q", "");
    await row.waitFor({ timeout: WAIT_MS });
  });
  await page.screenshot({ path: join(page.artifacts, "09-experiment-list.png") });
  await step("the admin adds a user on the users page", async () => {
    await page.click(".navbar >> text=Users");
    await page.fill("input[name=new-username]", "alice");
    await page.fill("input[name=new-password]", NEW_USER_PASSWORD);
    await page.click(".user-form button[type=submit]");
    await page.locator(".users-page td", { hasText: "alice" }).waitFor();
  });
  await step("signing out returns to the login page", async () => {
    await page.click(".navbar .logout");
    await page.locator(".login-form").waitFor();
  });
  await step("the new user logs in and sees the experiment, without admin pages", async () => {
    await page.fill("input[name=username]", "alice");
    await page.fill("input[name=password]", NEW_USER_PASSWORD);
    await page.click(".login-form button[type=submit]");
    await page.locator(`.experiment-row-${experimentId}`).waitFor({ timeout: WAIT_MS });
    assert.match(await page.textContent(".navbar .user"), /^alice$/);
    assert.equal(await page.locator(".navbar >> text=Users").count(), 0);
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const artifacts = resolve(options.artifacts);
  mkdirSync(artifacts, { recursive: true });
  for (const stale of ["failure.png", "console.log"]) rmSync(join(artifacts, stale), { force: true });
  const gateDir = mkdtempSync(join(tmpdir(), "volador-web-gate-"));
  const gatePath = join(gateDir, "gate");
  const cluster = await startCluster({ nodeBinary: options.node, webDir: options.webDir, artifactsDir: artifacts });
  const browser = await chromium.launch({ executablePath: options.chromium, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.artifacts = artifacts;
  const consoleLines = [];
  page.on("console", (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => consoleLines.push(`pageerror: ${error.message}`));
  try {
    await login(page, cluster);
    await fillGenerator(page, gatePath, resolve(options.project));
    const experimentId = await submit(page);
    await watchExperiment(page, experimentId);
    await followLogs(page);
    await finish(page, experimentId, gatePath);
    await checkOtherPages(page, experimentId);
    const pageErrors = consoleLines.filter((line) => line.startsWith("pageerror"));
    assert.deepEqual(pageErrors, [], "the UI threw no uncaught errors");
    console.log(`web_browser_test passed; screenshots in ${artifacts}`);
  } catch (error) {
    await page.screenshot({ path: join(artifacts, "failure.png"), fullPage: true }).catch(() => {});
    writeFileSync(join(artifacts, "console.log"), consoleLines.join("\n") + "\n");
    console.error(`web_browser_test failed (see ${artifacts}: failure.png, console.log, node.log)`);
    throw error;
  } finally {
    writeFileSync(gatePath, "open\n");
    await browser.close();
    await cluster.stop();
    rmSync(gateDir, { recursive: true, force: true });
  }
}

await main();
