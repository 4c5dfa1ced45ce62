// The web benchmark's measurements against a running master (bench/web/run.sh
// starts it on a seeded journal and a search beside it):
//  - pages: Debian's chromium, headless, driven by playwright-core, logs in
//    through the login form, then loads each page --loads times, each in a
//    fresh page (tab) of the logged-in browser context; a load's time runs
//    from the navigation's start to the first animation frame after the page
//    is ready: the experiment page when its learning-curves chart has drawn
//    every trial (the `data-drawn-series` uPlot's draw hook sets, web/src/
//    components/LineChart.tsx), the experiment list when the seeded
//    experiment's row is shown;
//  - api: wrk on small authenticated routes (Bearer token), --wrk-seconds each,
//    while the search (experiment --search) runs (its state is checked before
//    and after each route); --trial is one of its trials.
// Prints a table, then one `RESULT {json}` line per row.
//
// node bench_web.mjs pages --url http://HOST:PORT --password PW --experiment ID --trials N [--loads 7]
//   [--chromium /usr/bin/chromium] [--screenshots DIR]
// node bench_web.mjs api --url http://HOST:PORT --password PW --search ID --trial ID [--wrk-seconds 15] [--wrk-connections 16]
//   [--wrk-threads 2]
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { chromium } = createRequire(join(root, "web", "package.json"))("playwright-core");

const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                       "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const LOAD_TIMEOUT_MS = 120_000;
const CURVES_TARGET_MS = 1000;
const REQUESTS_TARGET = 2000;

const REQUIRED = { pages: ["url", "password", "experiment", "trials"], api: ["url", "password", "search", "trial"] };

function parseArgs([phase, ...argv]) {
  if (!REQUIRED[phase]) throw new Error("bench_web: the first argument is pages or api");
  const options = { phase, loads: 7, wrkSeconds: 15, wrkConnections: 16, wrkThreads: 2, chromium: "/usr/bin/chromium",
                    username: "admin" };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, "").replace(/-(\w)/g, (_, c) => c.toUpperCase());
    if (!(key in options) && !["url", "password", "experiment", "trials", "search", "trial", "screenshots"].includes(key))
      throw new Error(`bench_web: unknown option ${argv[i]}`);
    options[key] = argv[i + 1];
  }
  for (const required of REQUIRED[phase]) {
    if (!options[required]) throw new Error(`bench_web: --${required} is required`);
  }
  for (const key of ["loads", "wrkSeconds", "wrkConnections", "wrkThreads", "experiment", "trials", "search", "trial"])
    options[key] = Number(options[key]);
  return options;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round1 = (x) => Math.round(x * 10) / 10;

// Runs in the page before its own scripts: records performance.now() at the
// first animation frame after `selector` matches (a MutationObserver on the
// whole document), as window.__benchReadyMs.
function watchReady(selector) {
  const check = () => {
    if (window.__benchSeen || !document.querySelector(selector)) return;
    window.__benchSeen = true;
    window.__benchMatchedMs = performance.now();
    requestAnimationFrame(() => { window.__benchReadyMs = performance.now(); });
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
}

async function login(context, options) {
  const page = await context.newPage();
  await page.goto(`${options.url}/`);
  await page.fill("input[name=username]", options.username);
  await page.fill("input[name=password]", options.password);
  await page.click(".login-form button[type=submit]");
  await page.locator(".navbar .user").waitFor({ timeout: LOAD_TIMEOUT_MS });
  await page.close();
}

/** One load of `route` in a fresh page; its times in ms from the navigation's start. */
async function loadOnce(context, url, selector, screenshot) {
  const page = await context.newPage({});
  await page.addInitScript(watchReady, selector);
  await page.goto(url);
  await page.waitForFunction(() => window.__benchReadyMs !== undefined, null, { timeout: LOAD_TIMEOUT_MS });
  const times = await page.evaluate(() => ({ matched: window.__benchMatchedMs, ready: window.__benchReadyMs }));
  if (screenshot) await page.screenshot({ path: screenshot });
  const plotted = await page.evaluate(() => {
    const u = document.querySelector(".learning-curves .line-chart")?.uplot;
    if (!u) return null;
    const points = u.data.slice(1).reduce((n, s) => n + s.filter((v) => v !== null && v !== undefined).length, 0);
    return { series: u.series.length - 1, points };
  });
  await page.close();
  return { ...times, plotted };
}

async function measurePage(context, options, page) {
  const loads = [];
  for (let i = 0; i < options.loads; i += 1) {
    const shot = options.screenshots && i === 0 ? join(options.screenshots, `${page.name}.png`) : null;
    const load = await loadOnce(context, `${options.url}/${page.route}`, page.selector, shot);
    console.log(`# ${page.name} load ${i + 1}/${options.loads}: ${load.ready.toFixed(0)} ms` +
                (load.plotted ? ` (${load.plotted.series} series, ${load.plotted.points} points plotted)` : ""));
    loads.push(load);
  }
  const ready = loads.map((l) => l.ready);
  return { bench: "web", kind: "page", page: page.name, loads: loads.length, median_ms: round1(median(ready)),
           max_ms: round1(Math.max(...ready)), min_ms: round1(Math.min(...ready)),
           series: loads[0].plotted?.series ?? null, points: loads[0].plotted?.points ?? null,
           target_ms: page.target_ms ?? null };
}

async function measurePages(options) {
  const browser = await chromium.launch({ executablePath: options.chromium, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await login(context, options);
    const pages = [
      { name: "experiment", route: `#/experiments/${options.experiment}`, target_ms: CURVES_TARGET_MS,
        selector: `.learning-curves .uplot[data-drawn-series="${options.trials}"]` },
      { name: "experiment-list", route: "#/experiments", selector: `.experiment-row-${options.experiment}` },
    ];
    const rows = [];
    for (const page of pages) rows.push(await measurePage(context, options, page));
    return rows;
  } finally {
    await browser.close();
  }
}

async function apiLogin(options) {
  const response = await fetch(`${options.url}/api/v1/auth/login`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: options.username, password: options.password }),
  });
  if (!response.ok) throw new Error(`login failed: HTTP ${response.status}`);
  return (await response.json()).token;
}

/** The experiment's state; asked twice when the first connection fails (a kept-alive one the server closed). */
async function experimentState(options, token, id) {
  const ask = () => fetch(`${options.url}/api/v1/experiments/${id}`, { headers: { Authorization: `Bearer ${token}` } });
  const response = await ask().catch(ask);
  return response.ok ? (await response.json()).state : `HTTP ${response.status}`;
}

/** wrk's "50%  1.23ms" line as ms. */
function latencyMs(output, percentile) {
  const match = output.match(new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m"));
  if (!match) return null;
  return round1(Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2]] * 100) / 100;
}

function count(output, pattern) {
  const match = output.match(pattern);
  return match ? match.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
}

function runWrk(options, token, path) {
  const args = [`-t${options.wrkThreads}`, `-c${options.wrkConnections}`, `-d${options.wrkSeconds}s`, "--latency",
                "-H", `Authorization: Bearer ${token}`, `${options.url}${path}`];
  const run = spawnSync("wrk", args, { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`wrk ${path} failed: ${run.stderr || run.stdout}`);
  const out = run.stdout;
  const requests = count(out, /(\d+) requests in/);
  return {
    requests_per_s: Number(out.match(/Requests\/sec:\s+([\d.]+)/)[1]),
    p50_ms: latencyMs(out, 50),
    p99_ms: latencyMs(out, 99),
    requests,
    errors: count(out, /Non-2xx or 3xx responses: (\d+)/) +
            count(out, /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/),
  };
}

async function measureApi(options) {
  const token = await apiLogin(options);
  const routes = ["/api/v1/me", "/api/v1/experiments?limit=10", `/api/v1/trials/${options.trial}`];
  const rows = [];
  for (const path of routes) {
    const before = await experimentState(options, token, options.search);
    const load = loadAverage();
    const result = runWrk(options, token, path);
    const after = await experimentState(options, token, options.search);
    const row = { bench: "web", kind: "api", route: path, connections: options.wrkConnections,
                  threads: options.wrkThreads, seconds: options.wrkSeconds, ...result,
                  search_state: `${before}->${after}`, load_avg_before: load, target_rps: REQUESTS_TARGET };
    console.log(`# ${path}: ${result.requests_per_s} req/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms, ` +
                `${result.errors} errors; search ${row.search_state}`);
    rows.push(row);
  }
  return rows;
}

const loadAverage = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

function printPages(pages) {
  console.log("\npage              loads  median ms  max ms  series   points  target");
  for (const r of pages) {
    const target = r.target_ms ? `${r.median_ms <= r.target_ms ? "MET" : "NOT MET"} (<= ${r.target_ms} ms)` : "-";
    console.log(`${r.page.padEnd(17)} ${String(r.loads).padStart(5)} ${String(r.median_ms).padStart(10)} ` +
                `${String(r.max_ms).padStart(7)} ${String(r.series ?? "-").padStart(7)} ` +
                `${String(r.points ?? "-").padStart(8)}  ${target}`);
  }
  printResults(pages);
}

function printApi(apis) {
  console.log("\nroute                          req/s   p50 ms   p99 ms  errors  search          target");
  for (const r of apis) {
    const target = `${r.requests_per_s >= r.target_rps ? "MET" : "NOT MET"} (>= ${r.target_rps}/s)`;
    console.log(`${r.route.padEnd(28)} ${String(r.requests_per_s).padStart(8)} ${String(r.p50_ms).padStart(8)} ` +
                `${String(r.p99_ms).padStart(8)} ${String(r.errors).padStart(7)}  ${r.search_state.padEnd(15)} ${target}`);
  }
  printResults(apis);
}

function printResults(rows) {
  console.log("");
  for (const r of rows) console.log(`RESULT ${JSON.stringify(r)}`);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.screenshots) mkdirSync(options.screenshots, { recursive: true });
  if (options.phase === "pages") printPages(await measurePages(options));
  else printApi(await measureApi(options));
}

await main();
