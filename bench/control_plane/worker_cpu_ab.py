"""Two builds' warm-worker CPU per trial, by part, alternating in one session.

    /usr/bin/python3 bench/control_plane/worker_cpu_ab.py --before BIN_A --after BIN_B [--rounds 6] [--trials 1000]
                                                          [--slots 2] [--trial command|native]

Runs the same searches as ab_builds.py (bench_control_plane's `volador
command` or `volador native` row), alternating the builds and their order
round by round, and reads the warm workers' CPU when the search has ended:
their main threads (what runs the trial: launch, files, spawning the
command, the rank session's calls; /proc/PID/task/PID/schedstat, in
nanoseconds), the whole processes (every thread, those that ended
included: CAF's network, scheduler and clock threads, a command's output
reader; /proc/PID/stat, clock ticks) and their reaped children (the
commands, with the start of each before its exec). The main thread's share
is read precisely, so a change to its work shows beside the rest of the
trial's, which the machine's load moves by more. Prints each run and, per
part, both builds' medians and the median of the rounds' ratios (after /
before in the same round: the load drifts less within a round than across).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_control_plane as bench  # noqa: E402
from cluster import CLOCK_TICKS, Cluster, live_descendants  # noqa: E402

PARTS = ("main thread", "whole worker", "children")


def workers_cpu_s(agent_pid):
    """{part: CPU seconds} summed over the live warm workers under the agent."""
    out = dict.fromkeys(PARTS, 0.0)
    for pid in live_descendants(agent_pid):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "volador-worker":
                    continue
            with open(f"/proc/{pid}/schedstat") as f:
                out["main thread"] += int(f.read().split()[0]) / 1e9
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out["whole worker"] += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
            out["children"] += (int(fields[13]) + int(fields[14])) / CLOCK_TICKS
        except (FileNotFoundError, ProcessLookupError):  # ended meanwhile
            pass
    return out


def run_row(bin_dir, args, make_config):
    """(trials/s, {part: ms per trial}) of one search on a fresh cluster of BIN_DIR."""
    with Cluster(bin_dir, args.slots) as cluster:
        project = bench.write_project(os.path.join(cluster.data, "project"),
                                      make_config(args.trials, 4 * args.slots))
        experiment, submitted_ms = bench.submit(cluster, project)
        summary, timed_out = bench.wait_until_ended(cluster, experiment, 150, poll_s=0.1)
        if timed_out or summary["state"] != "COMPLETED":
            raise bench.BenchError(f"the search ended {summary['state']} (timed out: {timed_out})")
        cpu = workers_cpu_s(cluster.agent.pid)
    seconds = (summary["ended_at_ms"] - submitted_ms) / 1000
    return args.trials / seconds, {part: 1000 * cpu[part] / args.trials for part in PARTS}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the first build's bin folder")
    parser.add_argument("--after", required=True, help="the second build's bin folder")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--trial", choices=("command", "native"), default="command")
    args = parser.parse_args()
    make_config = bench.echo_config if args.trial == "command" else bench.native_config
    runs = {"before": [], "after": []}
    for round_number in range(args.rounds):
        builds = [("before", args.before), ("after", args.after)]
        for name, bin_dir in builds if round_number % 2 == 0 else reversed(builds):
            rate, ms = run_row(bin_dir, args, make_config)
            runs[name].append(ms)
            parts = ", ".join(f"{part} {ms[part]:.3f}" for part in PARTS)
            print(f"round {round_number} {name:6} {args.slots} slots: {rate:6.1f} trials/s; "
                  f"workers' CPU ms/trial: {parts}", flush=True)
    for part in PARTS:
        before = statistics.median(ms[part] for ms in runs["before"])
        after = statistics.median(ms[part] for ms in runs["after"])
        pairs = [a[part] / b[part] for a, b in zip(runs["after"], runs["before"]) if b[part]]
        paired = f"{statistics.median(pairs):.3f} (rounds {min(pairs):.3f} to {max(pairs):.3f})" if pairs else "-"
        print(f"{part:13}: median before {before:.3f}, after {after:.3f} ms/trial; after/before in each round: "
              f"median {paired}")


if __name__ == "__main__":
    main()
