"""bench_control_plane's `long` section: is the per-trial cost flat from trial 1 to 10,000? (issue 19, item 2)

One random search of --long-trials (10,000) `/bin/echo loss=1` command trials
on 8 slots, on a fresh single-host cluster; or, with --long-experiments K,
K searches of a K-th of them one after another (a cluster's life: the
summaries of ended experiments leave the master's memory). While it runs, a sampler reads the
master's CPU time and resident memory every 0.5 s. Printed per block of a tenth
of the trials (by end time): trials/s, the master's CPU per trial, the master's
resident memory at the block's end, and the whole tree's CPU per trial (master,
agent, warm workers). A flat row in every column is a flat per-trial cost.
"""
import bisect
import threading
import time

import bench_control_plane as bench
from cluster import Cluster, process_cpu_s

SLOTS = 8
SAMPLE_S = 0.5


def rss_mib(pid):
    """The process's resident memory in MiB (VmRSS of /proc/PID/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Sampler(threading.Thread):
    """(time ms, master CPU s, master RSS MiB, whole tree's CPU s) every SAMPLE_S until stopped."""

    def __init__(self, cluster):
        super().__init__(daemon=True)
        self.cluster, self.samples, self._stop_event = cluster, [], threading.Event()

    def run(self):
        while not self._stop_event.is_set():
            self.take()
            self._stop_event.wait(SAMPLE_S)

    def take(self):
        cpu = self.cluster.cpu_s()
        self.samples.append((time.time() * 1000, process_cpu_s(self.cluster.master.pid),
                             rss_mib(self.cluster.master.pid), sum(cpu.values())))

    def stop(self):
        self._stop_event.set()
        self.join()
        self.take()


def at(samples, when_ms, column):
    """The sampled COLUMN at WHEN_MS, linearly between the samples around it."""
    times = [s[0] for s in samples]
    i = min(max(bisect.bisect_left(times, when_ms), 1), len(samples) - 1)
    (t0, *v0), (t1, *v1) = samples[i - 1], samples[i]
    share = 0.0 if t1 == t0 else min(max((when_ms - t0) / (t1 - t0), 0.0), 1.0)
    return v0[column] + share * (v1[column] - v0[column])


def blocks(samples, submitted_ms, end_times_ms, block):
    """Per block of BLOCK trials (by end time): (trials/s, master CPU ms/trial, master RSS MiB, tree CPU ms/trial)."""
    ends, rows, previous = sorted(end_times_ms), [], submitted_ms
    for first in range(0, len(ends) - block + 1, block):
        last = ends[first + block - 1]
        master_ms = 1000 * (at(samples, last, 0) - at(samples, previous, 0)) / block
        tree_ms = 1000 * (at(samples, last, 2) - at(samples, previous, 2)) / block
        rows.append((round(block / max((last - previous) / 1000, 1e-9), 1), round(master_ms, 2),
                     round(at(samples, last, 1), 1), round(tree_ms, 2)))
        previous = last
    return rows


def run_searches(args, cluster, trials, experiments):
    """Submits EXPERIMENTS searches of TRIALS/EXPERIMENTS trials one after another; (first submission ms,
    end ms, end times of the COMPLETED trials, whether one timed out)."""
    first_submitted_ms, ends, timed_out, ended_ms = None, [], False, None
    for number in range(experiments):
        project = bench.write_project(f"{cluster.data}/project-{number}",
                                      bench.echo_config(trials // experiments, 4 * SLOTS))
        experiment, submitted_ms = bench.submit(cluster, project)
        first_submitted_ms = first_submitted_ms or submitted_ms
        summary, timed_out = bench.wait_until_ended(cluster, experiment, args.long_timeout)
        ended_ms = summary["ended_at_ms"] or time.time() * 1000
        listed = cluster.api.get(f"/experiments/{experiment}/trials")["trials"]
        ends += [t["ended_at_ms"] for t in listed if t["state"] == "COMPLETED" and t["ended_at_ms"] <= ended_ms]
        if timed_out:
            break
    return first_submitted_ms, ended_ms, ends, timed_out


def long_search_section(args, condition):
    trials, experiments = args.long_trials, args.long_experiments
    block = max(trials // 10, 1)
    searches = "one search" if experiments == 1 else f"{experiments} searches one after another"
    bench.log(f"# long search: {trials} command trials in {searches}, on {SLOTS} slots ...")
    with Cluster(args.bin, SLOTS, keep=args.keep) as cluster:
        sampler = Sampler(cluster)
        sampler.start()
        submitted_ms, ended_ms, ends, timed_out = run_searches(args, cluster, trials, experiments)
        sampler.stop()
    rows = blocks(sampler.samples, submitted_ms, ends, block)
    bench.log(f"\n== long search: {trials} trivial command trials in {searches}, {SLOTS} slots, {condition}; "
              f"per block of {block} ==")
    bench.log(f"{'block':>5}  {'trials/s':>9}  {'master CPU ms/trial':>20}  {'master RSS MiB':>15}  "
              f"{'all CPU ms/trial':>17}")
    for number, (rate, master_ms, rss, tree_ms) in enumerate(rows, 1):
        bench.log(f"{number:>5}  {rate:>9}  {master_ms:>20}  {rss:>15}  {tree_ms:>17}")
    seconds = (ended_ms - submitted_ms) / 1000
    bench.log(f"{len(ends)} of {trials} COMPLETED in {seconds:.1f} s ({len(ends) / seconds:.1f} trials/s)"
              f"{', TIMED OUT' if timed_out else ''}\n")
    bench.result({"bench": "control_plane", "section": "long", "condition": condition, "system": "volador command",
                  "slots": SLOTS, "trials": trials, "experiments": experiments, "completed": len(ends), "timed_out": timed_out,
                  "seconds": round(seconds, 2), "block": block,
                  "block_trials_per_s": [r[0] for r in rows], "block_master_cpu_ms_per_trial": [r[1] for r in rows],
                  "block_master_rss_mib": [r[2] for r in rows], "block_cpu_ms_per_trial": [r[3] for r in rows],
                  "load_avg_end": bench.load_average()})
