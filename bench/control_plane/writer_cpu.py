"""The master's CPU by thread over one metric-ingestion row, two builds alternating.

    /usr/bin/python3 bench/control_plane/writer_cpu.py --before BIN_A --after BIN_B [--rounds 3]
                                                       [--points 200000] [--trials 1] [--load-procs 0]

Runs bench_control_plane's ingestion row (--trials command trials printing
--points `loss=N` lines in all, 8 slots; beside --load-procs busy loops, as
`run.sh --loaded` does) with each build's bin folder in turn, --rounds
times, and prints per run the seconds, the points journaled (and per second)
and the CPU ticks (1/100 s) of the master: in all, of its journal writer
thread, and of its threads by name. The writer is the busiest thread that
keeps the program's name other than the main one (CAF names its threads
caf.*, RocksDB its own rocksdb:*). Alternating keeps the machine's drifting
load out of the comparison.
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_control_plane as bench  # noqa: E402
from cluster import Cluster  # noqa: E402


def thread_ticks(pid):
    """[(tid, name, utime + stime ticks)] of every live thread of process PID."""
    threads = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue  # ended meanwhile
        threads.append((int(tid), name, int(fields[11]) + int(fields[12])))
    return threads


def ingestion_run(binaries, points, trials, timeout_s):
    """One ingestion row: {seconds, journaled, master, writer, by_name} (ticks), read before the master stops."""
    points_each = points // trials
    with Cluster(binaries, 8) as cluster:
        project = bench.write_project(os.path.join(cluster.data, "project"),
                                      bench.command_config("cp-bench-printer", "/bin/sh printer.sh", trials, trials,
                                                           points_each),
                                      {"printer.sh": bench.printer_script(points_each)})
        experiment, submitted_ms = bench.submit(cluster, project)
        summary, timed_out = bench.wait_until_ended(cluster, experiment, timeout_s)
        threads = thread_ticks(cluster.master.pid)
        journaled = sum(cluster.api.get(f"/trials/{trial['id']}/metrics?max_points=5")["total"]
                        for trial in cluster.api.get(f"/experiments/{experiment}/trials")["trials"])
        if timed_out:
            bench.kill_experiment(cluster, experiment)
    unnamed = [t for t in threads if t[1] == "volador-node" and t[0] != cluster.master.pid]
    by_name = collections.Counter()
    for _, name, ticks in threads:
        by_name[name] += ticks
    end_ms = summary["ended_at_ms"] or 0
    return {"seconds": round((end_ms - submitted_ms) / 1000, 2) if end_ms else None, "journaled": journaled,
            "timed_out": timed_out, "master": sum(t[2] for t in threads),
            "writer": max((t[2] for t in unnamed), default=0), "by_name": dict(by_name.most_common())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the first build's bin folder")
    parser.add_argument("--after", required=True, help="the second build's bin folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--points", type=int, default=200_000)
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120, help="seconds a row may take before it is cut short")
    parser.add_argument("--load-procs", type=int, default=0, help="busy loops beside each row (run.sh --loaded: 4)")
    args = parser.parse_args()
    for round_number in range(1, args.rounds + 1):
        for name, binaries in (("before", args.before), ("after", args.after)):
            with bench.CpuLoad(args.load_procs):
                run = ingestion_run(binaries, args.points, args.trials, args.timeout)
            rate = f" ({round(run['journaled'] / run['seconds'])} points/s)" if run["seconds"] else ""
            print(f"round {round_number} {name:6} {args.trials} trial(s): {run['journaled']} of {args.points} points "
                  f"journaled in {run['seconds']} s{rate}{' (TIMED OUT)' if run['timed_out'] else ''}; master "
                  f"{run['master']} ticks, journal writer {run['writer']}; by thread name {run['by_name']}; "
                  f"load {bench.load_average()}", flush=True)


if __name__ == "__main__":
    main()
