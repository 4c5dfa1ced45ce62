"""bench_control_plane's `long` section: is the per-trial cost flat from trial 1 to 10,000? (issue 19, item 2)

One random search of --long-trials (10,000) `/bin/echo loss=1` command trials
on 8 slots, on a fresh single-host cluster; or, with --long-experiments K,
K searches of a K-th of them one after another (a cluster's life: the
summaries of ended experiments leave the master's memory). While it runs, a sampler reads the
master's CPU time and resident memory every 0.5 s. Printed per block of a tenth
of the trials (by end time): trials/s, the master's CPU per trial and the part
of it on RocksDB's background threads (flushes, compactions), the master's
resident memory at the block's end, the whole tree's CPU per trial (master,
agent, warm workers), the master's share of that, and the host's CPUs busy
outside the cluster (other work on a shared machine, this driver included).
A flat row in every column is a flat per-trial cost; the master's CPU per
trial rising with its share flat and the host busier elsewhere is the host,
not the master (bench/control_plane/README.md, session 24).
"""
import bisect
import os
import threading
import time

import bench_control_plane as bench
from cluster import CLOCK_TICKS, Cluster, process_cpu_s

SLOTS = 8
SAMPLE_S = 0.5


def rocksdb_cpu_s(pid):
    """CPU seconds of the process's RocksDB background threads (named rocksdb:low, rocksdb:high, ...)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                text = f.read()
        except (FileNotFoundError, ProcessLookupError):  # the thread ended meanwhile
            continue
        if text[text.index("(") + 1:].startswith("rocksdb"):
            total += sum(int(v) for v in text.rsplit(")", 1)[1].split()[11:13])
    return total / CLOCK_TICKS


def host_busy_s():
    """CPU seconds the host's CPUs spent busy since boot (user, nice, system, irq, softirq of /proc/stat)."""
    with open("/proc/stat") as f:
        user, nice, system, _idle, _iowait, irq, softirq = (int(v) for v in f.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / CLOCK_TICKS


def rss_mib(pid):
    """The process's resident memory in MiB (VmRSS of /proc/PID/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Sampler(threading.Thread):
    """(time ms, master CPU s, master RSS MiB, whole tree's CPU s, master's RocksDB threads' CPU s, host busy
    CPU s) every SAMPLE_S until stopped."""

    def __init__(self, cluster):
        super().__init__(daemon=True)
        self.cluster, self.samples, self._stop_event = cluster, [], threading.Event()

    def run(self):
        while not self._stop_event.is_set():
            self.take()
            self._stop_event.wait(SAMPLE_S)

    def take(self):
        cpu = self.cluster.cpu_s()
        master = self.cluster.master.pid
        self.samples.append((time.time() * 1000, process_cpu_s(master), rss_mib(master), sum(cpu.values()),
                             rocksdb_cpu_s(master), host_busy_s()))

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
    """Per block of BLOCK trials (by end time): (trials/s, master CPU ms/trial, its RocksDB threads' ms/trial,
    master RSS MiB, tree CPU ms/trial, master's share of the tree's CPU, host CPUs busy outside the tree)."""
    ends, rows, previous = sorted(end_times_ms), [], submitted_ms
    for first in range(0, len(ends) - block + 1, block):
        last = ends[first + block - 1]
        seconds = max((last - previous) / 1000, 1e-9)
        used = [at(samples, last, column) - at(samples, previous, column) for column in range(5)]
        master_s, _, tree_s, rocksdb_s, host_s = used
        rows.append((round(block / seconds, 1), round(1000 * master_s / block, 2), round(1000 * rocksdb_s / block, 3),
                     round(at(samples, last, 1), 1), round(1000 * tree_s / block, 2),
                     round(master_s / max(tree_s, 1e-9), 3), round((host_s - tree_s) / seconds, 2)))
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
    bench.log(f"{'block':>5}  {'trials/s':>9}  {'master CPU ms/trial':>20}  {'of it RocksDB':>13}  "
              f"{'master RSS MiB':>15}  {'all CPU ms/trial':>17}  {'master share':>12}  {'CPUs busy outside':>17}")
    for number, (rate, master_ms, rocksdb_ms, rss, tree_ms, share, outside) in enumerate(rows, 1):
        bench.log(f"{number:>5}  {rate:>9}  {master_ms:>20}  {rocksdb_ms:>13}  {rss:>15}  {tree_ms:>17}  {share:>12}  "
                  f"{outside:>17}")
    seconds = (ended_ms - submitted_ms) / 1000
    bench.log(f"{len(ends)} of {trials} COMPLETED in {seconds:.1f} s ({len(ends) / seconds:.1f} trials/s)"
              f"{', TIMED OUT' if timed_out else ''}\n")
    bench.result({"bench": "control_plane", "section": "long", "condition": condition, "system": "volador command",
                  "slots": SLOTS, "trials": trials, "experiments": experiments, "completed": len(ends), "timed_out": timed_out,
                  "seconds": round(seconds, 2), "block": block,
                  "block_trials_per_s": [r[0] for r in rows], "block_master_cpu_ms_per_trial": [r[1] for r in rows],
                  "block_master_rocksdb_cpu_ms_per_trial": [r[2] for r in rows],
                  "block_master_rss_mib": [r[3] for r in rows], "block_cpu_ms_per_trial": [r[4] for r in rows],
                  "block_master_cpu_share": [r[5] for r in rows], "block_cpus_busy_outside": [r[6] for r in rows],
                  "load_avg_end": bench.load_average()})
