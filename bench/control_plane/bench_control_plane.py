#!/usr/bin/python3
"""The control-plane benchmark (README.md here; issue 19, item 1).

Sections, each beside its peers in the same run, on an idle machine and, with
--loaded, again beside --load-procs busy loops the bench starts and stops:
  throughput  a random search of --trials trivial trials on a fresh
              single-host cluster per row (volador-node master + agent):
              `/bin/echo loss=1` commands on 2 and 8 slots, native trials of
              examples/native_mlp (1 record, 1 batch) on 2 slots; trials/s
              from submission to the experiment's end, CPU per trial of the
              master and the agent (with their reaped children: the workers
              and commands), trials/s per block of --block trials; peers:
              Optuna in memory (n_jobs=2, a subprocess per trial), Optuna with
              SQLite storage, `xargs -P2` running the same echos.
  ingestion   a command trial printing --points `loss=N` lines, and 8 trials
              printing --points/8 each at once (8 slots); points/s journaled,
              counted back through the API, and points lost; peer: SQLite
              inserts on the same disk, synchronous=FULL, 1,000 per transaction.
  long        (not in the default sections) one search of --long-trials
              (10,000) echo trials on 8 slots (or --long-experiments
              searches of a share each, one after another): trials/s, the master's CPU
              per trial and its resident memory, per tenth of the trials
              (long_search.py): is the per-trial cost flat?
  queries     --query-trials x --query-points seeded into a journal by
              volador-bench-seed (bench/web), served by a master; median and
              p95 latency of the API's experiment list, experiment describe,
              trial list, trial describe and the trial's metric history, over
              one kept-alive HTTPS connection with a login token.
Prints a table per section and one `RESULT {json}` line per row.

  bench_control_plane.py --bin BUILD/bin [--quick] [--loaded] [--sections throughput,ingestion,queries] ...
"""
import argparse
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from cluster import BenchError, Cluster

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.join(HERE, "peers.py")
PYTHON = "/usr/bin/python3"
TRIALS_TARGET_S = 10  # 1,000 trivial trials in < 10 s (issue 19, item 2)
INGEST_TARGET = 50_000  # points/s
QUERY_TARGET_MS = 20  # experiment list and trial list (at 10,000 trials)


def log(line):
    print(line, flush=True)


def result(row):
    log("RESULT " + json.dumps(row, sort_keys=False))


def ratio_text(mine, peer):
    return f"{mine / peer:.2g}x" if mine and peer else "-"


# ---------------------------------------------------------------- load


AUTOGROUP = "/proc/self/autogroup"


def autogroup_nice():
    """The nice value of this session's autogroup (run.sh raises it to -19); None where it cannot be read."""
    try:
        with open(AUTOGROUP) as f:
            return int(f.read().split("nice")[1])
    except (OSError, IndexError, ValueError):
        return None


def set_autogroup_nice(nice):
    try:
        with open(AUTOGROUP, "w") as f:
            f.write(str(nice))
    except OSError:
        pass


class CpuLoad:
    """PROCS busy-loop processes (`sh -c 'while :; do :; done'`) while in the `with` block; none when PROCS is 0.

    The loops share this session's autogroup with Volador and the peers, at nice 0 for the block's
    length: busy loops in an autogroup raised to -19 starve the kernel's workqueue workers (dmesg:
    "workqueue lockup"), and with them the ends of disk writes, so every fsync then waits for seconds.
    """

    def __init__(self, procs):
        self.procs = procs
        self._children = []
        self._nice_before = None

    def __enter__(self):
        if self.procs:
            self._nice_before = autogroup_nice()
            set_autogroup_nice(0)
        self._children = [subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"]) for _ in range(self.procs)]
        if self.procs:
            time.sleep(1)  # let the scheduler see them
        return self

    def __exit__(self, *exc):
        for child in self._children:
            child.kill()
            child.wait()
        self._children = []
        if self._nice_before is not None:
            set_autogroup_nice(self._nice_before)


def condition_name(load_procs):
    return "idle" if load_procs == 0 else f"loaded ({load_procs} busy loops)"


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# ---------------------------------------------------------------- projects


def write_project(folder, config, files=None):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "distributed.yaml"), "w") as f:
        f.write(config)
    for name, text in (files or {}).items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    return folder


def command_config(name, entrypoint, trials, concurrent, length):
    """A random search of TRIALS runs of the command ENTRYPOINT, each reporting LENGTH metric lines or fewer."""
    return f"""name: {name}
entrypoint: {entrypoint}
hyperparameters:
  global_batch_size: 1
  x: {{type: double, minval: 0, maxval: 1}}
searcher:
  name: random
  metric: loss
  max_trials: {trials}
  max_concurrent_trials: {concurrent}
  max_length: {{batches: {length}}}
max_restarts: 0
experiment_seed: 1
"""


def echo_config(trials, concurrent):
    return command_config("cp-bench-echo", "/bin/echo loss=1", trials, concurrent, 1)


def native_config(trials, concurrent):
    return f"""name: cp-bench-native
entrypoint: native:mlp_classifier
data: {{train_records: 1, validation_records: 1, classes: 2, features: 1}}
hyperparameters:
  global_batch_size: 1
  learning_rate: {{type: log, base: 10, minval: -3, maxval: -1}}
  hidden_units: 1
records_per_epoch: 1
scheduling_unit: 1
searcher:
  name: random
  metric: validation_loss
  max_trials: {trials}
  max_concurrent_trials: {concurrent}
  max_length: {{batches: 1}}
max_restarts: 0
experiment_seed: 1
"""


def printer_script(points_each):
    return f"#!/bin/sh\n# {points_each} metric lines, one point each; the hyperparameter arguments are ignored\n" \
           f"exec /usr/bin/seq -f 'loss=%.0f' 1 {points_each}\n"


# ---------------------------------------------------------------- experiments


def submit(cluster, project):
    """(experiment id, submission time in ms since the epoch, taken before the client starts)."""
    submitted_ms = time.time() * 1000
    out = cluster.cli(["experiment", "create", os.path.join(project, "distributed.yaml"), project, "--json"])
    return json.loads(out)["id"], submitted_ms


def experiment_summary(cluster, experiment):
    listed = cluster.api.get(f"/experiments?q={experiment}&archived=any")["experiments"]
    for summary in listed:
        if summary["id"] == experiment:
            return summary
    raise BenchError(f"experiment {experiment} is not in the list")


def wait_until_ended(cluster, experiment, timeout_s, poll_s=0.25):
    """(the experiment's summary, False) once it ended; (its summary, True) when TIMEOUT_S passed first."""
    deadline = time.monotonic() + timeout_s
    while True:
        summary = experiment_summary(cluster, experiment)
        if summary["ended_at_ms"]:
            return summary, False
        if time.monotonic() > deadline:
            return summary, True
        for process, name in ((cluster.master, "master"), (cluster.agent, "agent")):
            if process is not None and process.poll() is not None:
                raise BenchError(f"the {name} exited with status {process.returncode} (see {cluster.data}/nodes.log)")
        time.sleep(poll_s)


def kill_experiment(cluster, experiment):
    """Asks the master to kill the experiment; a master too busy to answer is stopped with the cluster anyway."""
    try:
        cluster.api.post(f"/experiments/{experiment}/kill")
    except BenchError as error:
        log(f"# could not kill experiment {experiment} ({error}); it ends with the cluster")


def block_rates(submitted_ms, end_times_ms, block):
    """Trials/s in each block of BLOCK trials (by end time), from the previous block's last end (or submission)."""
    ends = sorted(end_times_ms)
    rates, previous = [], submitted_ms
    for first in range(0, len(ends) - block + 1, block):
        last = ends[first + block - 1]
        rates.append(round(block / max((last - previous) / 1000, 1e-9), 1))
        previous = last
    return rates


# ---------------------------------------------------------------- throughput


def volador_search_row(args, name, slots, config_text, condition):
    with Cluster(args.bin, slots, keep=args.keep) as cluster:
        project = write_project(os.path.join(cluster.data, "project"), config_text)
        cpu_before = cluster.cpu_s()
        experiment, submitted_ms = submit(cluster, project)
        summary, timed_out = wait_until_ended(cluster, experiment, args.row_timeout)
        ended_ms = summary["ended_at_ms"] or time.time() * 1000
        if timed_out:
            cpu_after = cluster.cpu_s()
            kill_experiment(cluster, experiment)
        else:
            cpu_after = cluster.cpu_s()  # while the warm workers live (Cluster.cpu_s)
        trials = cluster.api.get(f"/experiments/{experiment}/trials")["trials"]
    completed = [t for t in trials if t["state"] == "COMPLETED" and t["ended_at_ms"] <= ended_ms]
    seconds = (ended_ms - submitted_ms) / 1000
    durations = [(t["ended_at_ms"] - t["created_at_ms"]) / 1000 for t in completed]  # trial created -> ended
    cpu = {role: cpu_after[role] - cpu_before[role] for role in cpu_after}
    per_trial = max(len(completed), 1)
    return {"bench": "control_plane", "section": "throughput", "condition": condition, "system": name,
            "slots": slots, "trials": args.trials, "completed": len(completed), "state": summary["state"],
            "timed_out": timed_out, "seconds": round(seconds, 2), "trials_per_s": round(len(completed) / seconds, 2),
            "cpu_ms_per_trial": round(1000 * sum(cpu.values()) / per_trial, 1),
            "master_cpu_ms_per_trial": round(1000 * cpu["master"] / per_trial, 2),
            "agent_cpu_ms_per_trial": round(1000 * cpu["agent"] / per_trial, 2),
            "workers_cpu_ms_per_trial": round(1000 * cpu["workers"] / per_trial, 2),
            "block": args.block, "block_trials_per_s": block_rates(submitted_ms, [t["ended_at_ms"] for t in completed],
                                                                   args.block),
            "trial_s_median": round(statistics.median(durations), 3) if durations else None,
            "trial_s_max": round(max(durations), 3) if durations else None,
            "load_avg_end": load_average()}


def run_peer(peer_args, timeout_s):
    """The PEER json of `peers.py PEER_ARGS`; None with the reason printed when it fails."""
    try:
        done = subprocess.run([PYTHON, PEERS] + peer_args, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        log(f"# peer {peer_args[0]} did not finish within {timeout_s} s")
        return None
    for line in done.stdout.splitlines():
        if line.startswith("PEER "):
            return json.loads(line[5:])
    log(f"# peer {' '.join(peer_args)} failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    return None


def optuna_missing():
    """Why the Optuna peers cannot run, or None."""
    done = subprocess.run([PYTHON, "-c", "import optuna"], capture_output=True, text=True)
    return None if done.returncode == 0 else "python3-optuna is not installed (apt-get install -y python3-optuna)"


def peer_row(args, name, condition, trials, seconds, cpu_s):
    return {"bench": "control_plane", "section": "throughput", "condition": condition, "system": name, "slots": None,
            "trials": args.trials, "completed": trials, "state": None, "timed_out": False, "seconds": round(seconds, 2),
            "trials_per_s": round(trials / seconds, 2), "cpu_ms_per_trial": round(1000 * cpu_s / max(trials, 1), 1),
            "master_cpu_ms_per_trial": None, "agent_cpu_ms_per_trial": None,
            "workers_cpu_ms_per_trial": None, "block": None,
            "block_trials_per_s": None, "trial_s_median": None, "trial_s_max": None, "load_avg_end": load_average()}


def xargs_row(args, condition):
    started = time.perf_counter()
    feeder = subprocess.Popen(["/usr/bin/seq", "1", str(args.trials)], stdout=subprocess.PIPE)
    runner = subprocess.Popen(["/usr/bin/xargs", "-P2", "-I{}", "/bin/echo", "loss=1", "--global_batch_size=1",
                               "--x={}"], stdin=feeder.stdout, stdout=subprocess.DEVNULL)
    feeder.stdout.close()
    _, status, usage = os.wait4(runner.pid, 0)
    runner.returncode = os.waitstatus_to_exitcode(status)
    feeder.wait()
    seconds = time.perf_counter() - started
    return peer_row(args, "xargs -P2", condition, args.trials, seconds, usage.ru_utime + usage.ru_stime)


def throughput_peers(args, condition):
    rows = []
    missing = optuna_missing()
    if missing:
        log(f"# skipped: the Optuna peers: {missing}")
    else:
        memory = run_peer(["optuna", "--trials", str(args.trials), "--jobs", "2"], args.row_timeout * 2)
        if memory:
            rows.append(peer_row(args, "optuna in memory", condition, memory["trials"], memory["seconds"],
                                 memory["cpu_s"]))
        folder = tempfile.mkdtemp(prefix="volador-cp-bench-optuna-")
        try:
            durable = run_peer(["optuna", "--trials", str(args.trials), "--jobs", "2", "--sqlite",
                                os.path.join(folder, "optuna.db")], args.row_timeout * 2)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if durable:
            rows.append(peer_row(args, "optuna sqlite", condition, durable["trials"], durable["seconds"],
                                 durable["cpu_s"]))
    rows.append(xargs_row(args, condition))
    return rows


def print_throughput(rows):
    peers = [r for r in rows if r["slots"] is None]
    log(f"\n== throughput: a random search of {rows[0]['trials']} trivial trials, {rows[0]['condition']} ==")
    header = f"{'system':<22} {'slots':>5} {'done':>6} {'seconds':>8} {'trials/s':>9} {'CPU ms/trial':>13} {'load':>5}"
    header += "".join(f" {'vs ' + p['system']:>20}" for p in peers)
    log(header + "  trials/s per block")
    for r in rows:
        line = f"{r['system']:<22} {r['slots'] or '-':>5} {r['completed']:>6} {r['seconds']:>8.2f} " \
               f"{r['trials_per_s']:>9.2f} {r['cpu_ms_per_trial']:>13.1f} {r['load_avg_end']:>5.1f}"
        line += "".join(f" {ratio_text(r['trials_per_s'], p['trials_per_s']) if r['slots'] else '':>20}"
                        for p in peers)
        note = " ".join(str(b) for b in r["block_trials_per_s"] or [])
        if r["timed_out"]:
            note += f"  (TIMED OUT after {r['seconds']:.0f} s: killed)"
        elif r["state"] not in (None, "COMPLETED"):
            note += f"  (ended {r['state']})"
        log(line + "  " + note)
    log("")
    for r in rows:
        result(r)


def throughput_section(args, condition):
    def concurrent(slots):
        return args.concurrent or 4 * slots

    rows = []
    for name, slots, config in (("volador command", 2, echo_config), ("volador command", 8, echo_config),
                                ("volador native", 2, native_config)):
        log(f"# {name}, {slots} slots: {args.trials} trials ...")
        try:
            rows.append(volador_search_row(args, name, slots, config(args.trials, concurrent(slots)), condition))
        except BenchError as error:
            log(f"# {name}, {slots} slots failed: {error}")
    log("# peers ...")
    rows += throughput_peers(args, condition)
    print_throughput(rows)


# ---------------------------------------------------------------- ingestion


def ingestion_row(args, trials, condition):
    points_each = args.points // trials
    expected = points_each * trials
    with Cluster(args.bin, 8, keep=args.keep) as cluster:
        project = write_project(os.path.join(cluster.data, "project"), command_config("cp-bench-printer", "/bin/sh printer.sh", trials, trials, points_each),
                                {"printer.sh": printer_script(points_each)})
        experiment, submitted_ms = submit(cluster, project)
        summary, timed_out = wait_until_ended(cluster, experiment, args.ingest_timeout)
        states = {}
        journaled = 0
        for trial in cluster.api.get(f"/experiments/{experiment}/trials")["trials"]:
            states[trial["state"]] = states.get(trial["state"], 0) + 1
            journaled += cluster.api.get(f"/trials/{trial['id']}/metrics?max_points=5")["total"]
        # Ended: its end; cut short: when the last count came back (points journaled later are not counted).
        counted_at_ms = summary["ended_at_ms"] or time.time() * 1000
        if timed_out:
            kill_experiment(cluster, experiment)
    seconds = (counted_at_ms - submitted_ms) / 1000
    return {"bench": "control_plane", "section": "ingestion", "condition": condition, "system": "volador",
            "trials": trials, "points": expected, "journaled": journaled,
            "lost": None if timed_out else expected - journaled, "timed_out": timed_out,
            "trial_states": states, "seconds": round(seconds, 2), "points_per_s": round(journaled / seconds),
            "load_avg_end": load_average()}


def sqlite_ingestion_row(args, condition):
    folder = tempfile.mkdtemp(prefix="volador-cp-bench-sqlite-")
    try:
        peer = run_peer(["sqlite-ingest", "--points", str(args.points), "--file", os.path.join(folder, "metrics.db")],
                        args.ingest_timeout * 2)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if peer is None:
        return None
    return {"bench": "control_plane", "section": "ingestion", "condition": condition,
            "system": "sqlite, 1,000 per transaction", "trials": 1, "points": args.points, "journaled": peer["points"],
            "lost": args.points - peer["points"], "timed_out": False, "trial_states": None,
            "seconds": round(peer["seconds"], 2), "points_per_s": round(peer["points"] / peer["seconds"]),
            "load_avg_end": load_average()}


def ingestion_section(args, condition):
    rows = []
    for trials in (1, 8):
        log(f"# ingestion: {trials} trial(s), {args.points} points in all ...")
        try:
            rows.append(ingestion_row(args, trials, condition))
        except BenchError as error:
            log(f"# ingestion with {trials} trial(s) failed: {error}")
    peer = sqlite_ingestion_row(args, condition)
    log(f"\n== metric ingestion: {args.points} points in all, {condition} ==")
    log(f"{'system':<30} {'trials':>6} {'journaled':>10} {'lost':>7} {'seconds':>8} {'points/s':>10} "
        f"{'vs sqlite':>10} {'target':>22} {'load':>5}  trial states")
    for r in rows + ([peer] if peer else []):
        lost = "n/a" if r["lost"] is None else str(r["lost"])
        mine = r["system"] == "volador"
        target = ("MET" if r["points_per_s"] >= INGEST_TARGET and r["lost"] == 0 else "NOT MET") + \
            f" (>= {INGEST_TARGET})" if mine else "-"
        note = json.dumps(r["trial_states"]) if r["trial_states"] else ""
        if r["timed_out"]:
            note += f"  (TIMED OUT: counted after {r['seconds']:.0f} s, then killed)"
        log(f"{r['system']:<30} {r['trials']:>6} {r['journaled']:>10} {lost:>7} {r['seconds']:>8.2f} "
            f"{r['points_per_s']:>10} {ratio_text(r['points_per_s'], peer and peer['points_per_s']) if mine else '':>10} "
            f"{target:>22} {r['load_avg_end']:>5.1f}  {note}")
    log("")
    for r in rows + ([peer] if peer else []):
        result(r)


# ---------------------------------------------------------------- queries


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def time_route(api, path, reps, budget_s):
    """Milliseconds of each GET of PATH (after one warm-up), REPS times or until BUDGET_S is spent (at least 3)."""
    status, body = api.request("GET", path)
    if status != 200:
        raise BenchError(f"GET {path}: HTTP {status}")
    times, spent_from = [], time.perf_counter()
    while len(times) < reps and (len(times) < 3 or time.perf_counter() - spent_from < budget_s):
        started = time.perf_counter()
        status, body = api.request("GET", path)
        times.append((time.perf_counter() - started) * 1000)
        if status != 200:
            raise BenchError(f"GET {path}: HTTP {status}")
    return times, len(body)


def seed_journal(args, data):
    started = time.perf_counter()
    done = subprocess.run([os.path.join(args.bin, "volador-bench-seed"), data, str(args.query_trials),
                           str(args.query_points)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"volador-bench-seed: {done.stderr.strip()}")
    log(f"# seeded {args.query_trials} trials x {args.query_points} validation reports in "
        f"{time.perf_counter() - started:.1f} s")
    return int(done.stdout.strip())


def queries_section(args, conditions):
    data = tempfile.mkdtemp(prefix="volador-cp-bench-queries-")
    try:
        experiment = seed_journal(args, data)
        with Cluster(args.bin, 0, data_dir=data, keep=args.keep) as cluster:
            trial = cluster.api.get(f"/experiments/{experiment}/trials")["trials"][0]["id"]
            routes = [("experiment list", "/experiments", QUERY_TARGET_MS),
                      ("experiment describe", f"/experiments/{experiment}", None),
                      ("trial list", f"/experiments/{experiment}/trials", QUERY_TARGET_MS),
                      ("trial describe", f"/trials/{trial}", None),
                      ("trial metrics (all)", f"/trials/{trial}/metrics?max_points=100000", None)]
            for load_procs in conditions:
                condition = condition_name(load_procs)
                with CpuLoad(load_procs):
                    rows = []
                    for name, path, target in routes:
                        times, size = time_route(cluster.api, path, args.query_reps, args.query_budget)
                        rows.append({"bench": "control_plane", "section": "queries", "condition": condition,
                                     "query": name, "route": "GET /api/v1" + path, "trials": args.query_trials,
                                     "points_per_trial": args.query_points, "requests": len(times),
                                     "median_ms": round(statistics.median(times), 2),
                                     "p95_ms": round(percentile(times, 0.95), 2), "max_ms": round(max(times), 2),
                                     "bytes": size, "target_ms": target, "load_avg_end": load_average()})
                print_queries(rows)
    finally:
        if not args.keep:
            shutil.rmtree(data, ignore_errors=True)


def print_queries(rows):
    r0 = rows[0]
    log(f"\n== queries: {r0['trials']} trials x {r0['points_per_trial']} points, one kept-alive HTTPS connection, "
        f"{r0['condition']} ==")
    log(f"{'query':<22} {'route':<48} {'n':>4} {'median ms':>10} {'p95 ms':>9} {'bytes':>10} {'load':>5}  target")
    for r in rows:
        target = "-" if r["target_ms"] is None else \
            ("under" if r["median_ms"] < r["target_ms"] else "OVER") + \
            f" {r['target_ms']} ms at {r['trials']} trials (target: < {r['target_ms']} ms at 10,000)"
        log(f"{r['query']:<22} {r['route']:<48} {r['requests']:>4} {r['median_ms']:>10.2f} {r['p95_ms']:>9.2f} "
            f"{r['bytes']:>10} {r['load_avg_end']:>5.1f}  {target}")
    log("")
    for r in rows:
        result(r)


# ---------------------------------------------------------------- main


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="the build's bin folder (volador, volador-node, volador-worker, "
                                                     "volador-bench-seed)")
    parser.add_argument("--quick", action="store_true", help="200 trials, 20,000 points, 7 query repetitions")
    parser.add_argument("--loaded", action="store_true", help="each section again beside --load-procs busy loops")
    parser.add_argument("--load-procs", type=int, default=4)
    parser.add_argument("--sections", default="throughput,ingestion,queries")
    parser.add_argument("--trials", type=int)
    parser.add_argument("--block", type=int, help="trials per block of the per-block rate (default: a fifth of --trials)")
    parser.add_argument("--concurrent", type=int, default=0, help="max_concurrent_trials (default: 4 x slots)")
    parser.add_argument("--row-timeout", type=float, default=150, help="seconds a search may take before it is "
                                                                        "killed and counted as it stands")
    parser.add_argument("--points", type=int, help="metric points in all, per ingestion row")
    parser.add_argument("--ingest-timeout", type=float, default=60)
    parser.add_argument("--query-trials", type=int, default=1000)
    parser.add_argument("--query-points", type=int, default=1000)
    parser.add_argument("--query-reps", type=int)
    parser.add_argument("--query-budget", type=float, default=20, help="seconds per route at most (3 requests at least)")
    parser.add_argument("--long-trials", type=int, default=10_000, help="trials of the long section's search")
    parser.add_argument("--long-experiments", type=int, default=1,
                        help="searches the long section's trials are split into, run one after another")
    parser.add_argument("--long-timeout", type=float, default=600, help="seconds the long search may take")
    parser.add_argument("--keep", action="store_true", help="keep the data folders")
    args = parser.parse_args()
    args.trials = args.trials or (200 if args.quick else 1000)
    args.points = args.points or (20_000 if args.quick else 200_000)
    args.query_reps = args.query_reps or (7 if args.quick else 21)
    args.block = min(args.block or max(args.trials // 5, 1), args.trials)
    return args


def exit_on_signal(signum, _frame):
    raise SystemExit(128 + signum)  # unwinds the `with` blocks: clusters and busy loops are stopped


def main():
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, exit_on_signal)
    args = parse_args()
    sections = args.sections.split(",")
    unknown = set(sections) - {"throughput", "ingestion", "long", "queries"}
    if unknown:
        sys.exit(f"bench_control_plane: unknown section(s) {', '.join(sorted(unknown))}")
    conditions = [0, args.load_procs] if args.loaded else [0]
    log(f"# machine: {os.cpu_count()} CPUs, load average {open('/proc/loadavg').read().split()[:3]}; "
        f"binaries: {args.bin}; {'quick' if args.quick else 'full'} run; conditions: "
        f"{', '.join(condition_name(c) for c in conditions)}")
    started = time.perf_counter()
    from long_search import long_search_section  # imports this module: only once it is loaded
    for section, run in (("throughput", throughput_section), ("ingestion", ingestion_section),
                         ("long", long_search_section)):
        if section not in sections:
            continue
        for load_procs in conditions:
            with CpuLoad(load_procs):
                run(args, condition_name(load_procs))
    if "queries" in sections:
        queries_section(args, conditions)
    log(f"# the benchmark took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
