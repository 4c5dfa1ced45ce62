"""One throughput search of bench_control_plane watched by a perf command,
for the bench's profiling tools (agent_perf.py, agent_syscalls.py)."""
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_control_plane as bench  # noqa: E402


@dataclass
class Watched:
    """What a watched search came to: its summary, whether it timed out,
    the trials that ended while perf watched, and for how many seconds."""
    summary: dict
    timed_out: bool
    ended: list
    seconds: float


def watch_search(cluster, trial, trials, slots, warmup_s, perf_command):
    """Submits a search of `trials` trivial `trial` trials ("command" or
    "native") on `cluster`, waits `warmup_s` (the warm workers started), runs
    perf_command() (perf's argv, made then: it may name the processes
    running now) and stops it with SIGINT once the search ended."""
    make_config = bench.echo_config if trial == "command" else bench.native_config
    project = bench.write_project(os.path.join(cluster.data, "project"), make_config(trials, 4 * slots))
    experiment, _ = bench.submit(cluster, project)
    time.sleep(warmup_s)
    perf = subprocess.Popen(perf_command())
    time.sleep(0.5)  # perf attached
    watched_from_ms = time.time() * 1000
    summary, timed_out = bench.wait_until_ended(cluster, experiment, 300, poll_s=0.1)
    watched_to_ms = time.time() * 1000
    perf.send_signal(signal.SIGINT)
    perf.wait()
    all_trials = cluster.api.get(f"/experiments/{experiment}/trials")["trials"]
    ended = [t for t in all_trials if t["state"] == "COMPLETED" and watched_from_ms <= t["ended_at_ms"] <= watched_to_ms]
    return Watched(summary, timed_out, ended, (watched_to_ms - watched_from_ms) / 1000)
