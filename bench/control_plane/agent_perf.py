"""A CPU profile of the agent and its warm workers over bench_control_plane's throughput search.

    /usr/bin/python3 bench/control_plane/agent_perf.py --bin BIN --out FILE.perf [--trials 3000] [--slots 2]
                                                       [--trial command|native] [--warmup-s 1.5] [--freq 999]

Runs one `volador command` (or `--trial native`) search as ab_builds.py does,
and `--warmup-s` after the submission (the warm workers started) attaches
`perf record --call-graph dwarf` to the agent and to the volador-worker
processes then under it (their later threads and children, the commands,
included; workers started later are not followed). When the experiment ends
it stops perf, prints how many trials ended while perf watched and the
pids, and leaves the profile in `--out`. CAF names the agent's and the
workers' threads alike: split the samples by pid (`perf script -i
FILE.perf -F pid,tid,ip,sym` prints each sample's PID/TID and its stack).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, live_descendants  # noqa: E402
from perf_watch import watch_search  # noqa: E402


def warm_workers(agent_pid):
    """Pids of the volador-worker processes under the agent now."""
    pids = []
    for pid in live_descendants(agent_pid):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() == "volador-worker":
                    pids.append(pid)
        except FileNotFoundError:  # ended meanwhile
            pass
    return pids


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the build's bin folder")
    parser.add_argument("--out", required=True, help="perf's data file")
    parser.add_argument("--trials", type=int, default=3000)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--trial", choices=("command", "native"), default="command")
    parser.add_argument("--warmup-s", type=float, default=1.5, help="seconds after the submission before perf attaches")
    parser.add_argument("--freq", type=int, default=999, help="samples per second and thread")
    args = parser.parse_args()
    with Cluster(os.path.abspath(args.bin), args.slots) as cluster:
        pids = []

        def perf_record():
            pids.extend([cluster.agent.pid] + warm_workers(cluster.agent.pid))
            return ["perf", "record", "-q", "-F", str(args.freq), "--call-graph", "dwarf,16384",
                    "-p", ",".join(map(str, pids)), "-o", args.out]

        watched = watch_search(cluster, args.trial, args.trials, args.slots, args.warmup_s, perf_record)
    print(f"# {args.trial} trials, {args.slots} slots: {len(watched.ended)} trials ended in "
          f"{watched.seconds:.1f} s while perf watched the agent (pid {pids[0]}) and "
          f"{len(pids) - 1} warm workers (pids {', '.join(map(str, pids[1:]))}){' (TIMED OUT)' if watched.timed_out else ''}; "
          f"state {watched.summary['state']}")


if __name__ == "__main__":
    main()
