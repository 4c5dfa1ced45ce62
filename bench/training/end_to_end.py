"""End-to-end row of bench/training: the same MNistTrial as a 1-slot experiment
on a real single-host cluster (`volador-node up`), timed from the trial's
metric reports (README.md here).

    /usr/bin/python3 end_to_end.py --bin BUILD/bin [--batch-size 32] [--batches 300]
        [--unit 50] [--threads 1] [--results FILE] [--out FILE]

Steady-state samples/s = records trained between the first and the last
training report / the time between them (excludes start-up and the first
workload; includes the master-worker round trips between workloads). Also
the worker's own samples/s over the same workloads (from its "trained batches
A-B in S s" trial-log lines), the mean time between workloads, and the whole
experiment's wall time. With --results (bench_training.py's
RESULT lines from the same run), the ratio is against the plain PyTorch
median at the same batch size. When the master refuses the experiment (a
build without Python trials) the row is skipped with the master's reason:
one `SKIPPED {json}` line.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CONFIG = """\
name: bench-training-e2e
entrypoint: model_def:MNistTrial
hyperparameters:
  learning_rate: 1.0
  global_batch_size: {batch_size}
  n_filters1: 32
  n_filters2: 64
  dropout1: 0.25
  dropout2: 0.5
  lr_gamma: 0.97
  torch_threads: {threads}
records_per_epoch: 1500
scheduling_unit: {unit}
searcher:
  name: single
  metric: validation_loss
  smaller_is_better: true
  max_length:
    batches: {batches}
resources:
  slots_per_trial: 1
max_restarts: 0
experiment_seed: 1
"""


def plain_median(results_file: str, batch_size: int):
    """The plain PyTorch samples/s median at `batch_size` in bench_training.py's RESULT lines, or None."""
    if not results_file or not os.path.exists(results_file):
        return None
    value = None
    for line in open(results_file, encoding="utf-8"):
        if line.startswith("RESULT "):
            row = json.loads(line[7:])
            if row.get("variant") == "pytorch" and row.get("global_batch_size") == batch_size:
                value = row["samples_per_s"]
    return value


def emit(kind: str, row: dict, out: str) -> None:
    line = f"{kind} " + json.dumps(row, separators=(",", ":"))
    print(line, flush=True)
    if out:
        with open(out, "a", encoding="utf-8") as file:
            file.write(line + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with volador and volador-node")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--batches", type=int, default=300, help="batches the trial trains")
    parser.add_argument("--unit", type=int, default=50, help="scheduling_unit (batches per workload)")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads in the worker")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before giving up on the experiment")
    parser.add_argument("--results", help="bench_training.py's RESULT lines (for the ratio)")
    parser.add_argument("--out", help="also append the RESULT/SKIPPED line to this file")
    args = parser.parse_args()

    base = {"bench": "training", "variant": "volador-cluster", "device": "cpu", "amp": False,
            "threads": args.threads, "global_batch_size": args.batch_size, "batches": args.batches,
            "scheduling_unit": args.unit}
    cli, node_bin = os.path.join(args.bin, "volador"), os.path.join(args.bin, "volador-node")
    if not (os.access(cli, os.X_OK) and os.access(node_bin, os.X_OK)):
        emit("SKIPPED", {**base, "reason": f"no volador/volador-node in {args.bin}"}, args.out)
        return 0
    data = tempfile.mkdtemp(prefix="volador-bench-training-")
    with open(os.path.join(data, "distributed.yaml"), "w", encoding="utf-8") as file:
        file.write(CONFIG.format(batch_size=args.batch_size, batches=args.batches, unit=args.unit,
                                 threads=args.threads))
    node_log = open(os.path.join(data, "node.log"), "w", encoding="utf-8")
    # Its own process group (to stop it and its workers at the end) but the same session as this
    # process: a new session would be a new autogroup at nice 0, and the worker would train without
    # the priority run.sh gave the in-process variants (the agent's workers stay in the node's session).
    group = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
    node = subprocess.Popen([node_bin, "up", "--data", data, "--listen", "127.0.0.1:0"],
                            stdout=node_log, stderr=subprocess.STDOUT, **group)
    try:
        addr_file = os.path.join(data, "master.addr")
        for _ in range(300):
            if os.path.exists(addr_file) and os.path.getsize(addr_file) > 0:
                break
            if node.poll() is not None:
                raise RuntimeError(f"volador-node exited with {node.returncode}; see {node_log.name}")
            time.sleep(0.1)
        env = {**os.environ, "VOLADOR_MASTER": open(addr_file, encoding="utf-8").read().strip()}
        began = time.monotonic()
        created = subprocess.run([cli, "experiment", "create", os.path.join(data, "distributed.yaml"),
                                  os.path.join(HERE, "mnist_trial"), "--follow"],
                                 env=env, capture_output=True, text=True, timeout=args.timeout)
        wall = time.monotonic() - began
        print(created.stdout + created.stderr, end="", flush=True)
        match = re.search(r"created experiment (\d+)", created.stdout)
        if not match:
            reason = (created.stdout + created.stderr).strip().splitlines()
            emit("SKIPPED", {**base, "reason": "the master refused the experiment: " + " / ".join(reason)}, args.out)
            return 0
        experiment = json.loads(subprocess.run([cli, "experiment", "describe", match.group(1), "--json"], env=env,
                                               capture_output=True, text=True, check=True).stdout)
        trial_id = experiment.get("best_trial_id") or 1
        trial = json.loads(subprocess.run([cli, "trial", "describe", str(trial_id), "--json"], env=env,
                                          capture_output=True, text=True, check=True).stdout)
        if trial.get("state") != "COMPLETED":
            logs = subprocess.run([cli, "trial", "logs", str(trial_id)], env=env, capture_output=True, text=True)
            print(logs.stdout[-4000:], file=sys.stderr)
            emit("SKIPPED", {**base, "reason": f"trial {trial_id} ended {trial.get('state')}, not COMPLETED"},
                 args.out)
            return 1
        reports = [m for m in trial["metrics"] if m["kind"] == "training"]
        if len(reports) < 2:
            emit("SKIPPED", {**base, "reason": "fewer than two training reports: raise --batches or lower --unit"},
                 args.out)
            return 1
        first, last = reports[0], reports[-1]
        seconds = (last["reported_at_ms"] - first["reported_at_ms"]) / 1000.0
        steady = (last["batches"] - first["batches"]) * args.batch_size / seconds
        overall = experiment["ended_at_ms"] - experiment["created_at_ms"]
        plain = plain_median(args.results, args.batch_size)
        # The worker's own time per training workload (TrialController.train, from its trial-log lines), over the
        # same workloads as the steady window: separates training speed from the time between workloads.
        logs = subprocess.run([cli, "trial", "logs", str(trial_id)], env=env, capture_output=True, text=True).stdout
        trained = [(int(a), int(b), float(t)) for a, b, t in
                   re.findall(r"volador: trained batches (\d+)-(\d+) in ([0-9.]+) s", logs)]
        window = [(a, b, t) for a, b, t in trained if first["batches"] <= a and b < last["batches"]]
        in_worker = gap = None
        if window:
            worker_seconds = sum(t for _, _, t in window)
            in_worker = sum(b - a + 1 for a, b, _ in window) * args.batch_size / worker_seconds
            gap = (seconds - worker_seconds) / len(window)
        emit("RESULT", {**base, "samples_per_s": round(steady, 2),
                        "samples_per_s_in_worker": round(in_worker, 2) if in_worker else None,
                        "between_workloads_s": round(gap, 3) if gap is not None else None,
                        "experiment_wall_s": round(overall / 1000.0, 2),
                        "samples_per_s_whole_experiment": round(args.batches * args.batch_size / (overall / 1000.0), 2),
                        "cli_wall_s": round(wall, 2),
                        "ratio": round(steady / plain, 4) if plain else None,
                        "ratio_in_worker": round(in_worker / plain, 4) if plain and in_worker else None,
                        "ratio_against": "pytorch median of bench_training.py in the same run" if plain else None},
             args.out)
        return 0
    finally:
        os.killpg(node.pid, signal.SIGTERM)
        try:
            node.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(node.pid, signal.SIGKILL)
            node.wait()
        node_log.close()
        if os.environ.get("VOLADOR_BENCH_KEEP") != "1":
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
