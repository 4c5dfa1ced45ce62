"""The agent's system calls per trial, by call, in bench_control_plane's throughput search.

    /usr/bin/python3 bench/control_plane/agent_syscalls.py --bin BIN [--trials 3000] [--slots 2]
                                                           [--trial command|native] [--warmup-s 1.5]

Runs one `volador command` (or `--trial native`) search as ab_builds.py does,
and `--warmup-s` after the submission (the warm workers started) attaches
`perf trace -s` to every thread the agent then has (`--tid`: the workers it
starts are not followed, nor their commands). When the experiment ends it
stops perf and prints each call's count over the trials that ended while perf
watched, and the total. perf slows the agent a little; the per-trial counts
of calls made at intervals (the agent's 0.1 s flush) grow as the rate falls.
"""
import argparse
import collections
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster  # noqa: E402
from perf_watch import watch_search  # noqa: E402

SUMMARY_LINE = re.compile(r"^\s+(\w+)\s+(\d+)\s+(\d+)\s+[\d.]+")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the build's bin folder")
    parser.add_argument("--trials", type=int, default=3000)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--trial", choices=("command", "native"), default="native")
    parser.add_argument("--warmup-s", type=float, default=1.5, help="seconds after the submission before perf attaches")
    parser.add_argument("--trace-out", help="keep perf's summary (by thread) in this file")
    args = parser.parse_args()
    with Cluster(args.bin, args.slots, keep=False) as cluster:
        tids = []
        with tempfile.NamedTemporaryFile("r", suffix=".perf-trace") as out:

            def perf_trace():
                tids.extend(sorted(os.listdir(f"/proc/{cluster.agent.pid}/task"), key=int))
                return ["perf", "trace", "-s", "--tid", ",".join(tids), "-o", out.name]

            watched = watch_search(cluster, args.trial, args.trials, args.slots, args.warmup_s, perf_trace)
            text = out.read()
        if args.trace_out:
            with open(args.trace_out, "w") as kept:
                kept.write(text)
        calls = count_calls(text)
    ended = watched.ended
    print(f"# {args.trial} trials, {args.slots} slots: {len(ended)} trials ended in {watched.seconds:.1f} s "
          f"while perf watched {len(tids)} agent threads{' (TIMED OUT)' if watched.timed_out else ''}; "
          f"state {watched.summary['state']}")
    per_trial = max(len(ended), 1)
    for name, count in sorted(calls.items(), key=lambda item: -item[1]):
        print(f"{name:24} {count:8} {count / per_trial:8.2f} per trial")
    print(f"{'total':24} {sum(calls.values()):8} {sum(calls.values()) / per_trial:8.2f} per trial")


def count_calls(text):
    """{syscall: calls} summed over the threads of a `perf trace -s` summary."""
    calls = collections.Counter()
    for line in text.splitlines():
        match = SUMMARY_LINE.match(line)
        if match:
            calls[match.group(1)] += int(match.group(2))
    return calls


if __name__ == "__main__":
    main()
