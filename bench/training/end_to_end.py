"""End-to-end row of bench/training: the same MNistTrial as a 1-slot experiment on a real single-host cluster
(`volador-node up`), interleaved round by round with the plain PyTorch loop in a process of its own
(README.md here).

    /usr/bin/python3 end_to_end.py --bin BUILD/bin [--rounds 5] [--batch-size 32] [--batches 200]
        [--unit 50] [--threads 1] [--out FILE]

One node serves every round. A round runs, in an order that rotates from
round to round: the trial as an experiment on the cluster (a fresh rank
worker process), plain_worker.py (bench_training.py's plain loop, a fresh
process, default malloc settings: what a user's script gets) and
plain_worker.py --keep-freed-memory (the same with the rank worker's malloc
settings). Each variant trains batches 0 .. --batches - 1 in chunks of --unit
(the cluster's workloads) and reports each chunk's seconds; its samples/s
for the round are over every chunk but the first (start-up, first
allocations). Reported per variant: the median over the rounds, min..max,
and against plain PyTorch both the ratio of the medians and the median of
the rounds' own ratios. The cluster row also gives its rate from the trial's
metric reports (the time between the first and the last training report,
so the master-worker round trips between workloads count), the mean time
between workloads and the experiment's wall time (start-up, validation and
checkpoint included). When the master refuses the experiment (a build without
Python trials) the row is skipped with the master's reason: one
`SKIPPED {json}` line.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "mnist_pytorch")  # the manual's trial, which bench_trial extends
CLUSTER, PLAIN, PLAIN_KEPT = "volador-cluster", "pytorch-process", "pytorch-process-kept-memory"
VARIANTS = (CLUSTER, PLAIN, PLAIN_KEPT)
CHUNK_LINE = re.compile(r"volador: trained batches (\d+)-(\d+) in ([0-9.]+) s")

CONFIG = """\
name: bench-training-e2e
entrypoint: bench_trial:MNistBenchTrial
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


class Skipped(Exception):
    """The cluster cannot run the row; the message says why."""


def chunks_of(log: str) -> List[Tuple[int, int, float]]:
    """(first batch, last batch, seconds) of each `trained batches A-B in S s` line."""
    return [(int(a), int(b), float(s)) for a, b, s in CHUNK_LINE.findall(log)]


def steady_rate(chunks: List[Tuple[int, int, float]], batch_size: int) -> float:
    """Samples/s over every chunk but the first."""
    timed = chunks[1:]
    if not timed:
        raise Skipped("one chunk only: raise --batches or lower --unit")
    return sum(b - a + 1 for a, b, _ in timed) * batch_size / sum(s for _, _, s in timed)


def write_project(folder: str) -> str:
    """Writes the experiment's project folder: the MNIST example's files plus bench_trial.py. Returns `folder`."""
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(HERE, "bench_trial.py"), folder)
    return folder


class LocalCluster:
    """`volador-node up` on a temporary data folder, in its own process group but this process's session.

    The same session keeps the node and its workers in this process's
    autogroup, so they run at the priority run.sh gave the benchmark (a new
    session would be a new autogroup at nice 0).
    """

    def __init__(self, bin_dir: str, config: str):
        self.cli = os.path.join(bin_dir, "volador")
        self.data = tempfile.mkdtemp(prefix="volador-bench-training-")
        self.config = os.path.join(self.data, "distributed.yaml")
        with open(self.config, "w", encoding="utf-8") as file:
            file.write(config)
        self.project = write_project(os.path.join(self.data, "bench-project"))
        self._log = open(os.path.join(self.data, "node.log"), "w", encoding="utf-8")
        group = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
        self._node = subprocess.Popen([os.path.join(bin_dir, "volador-node"), "up", "--data", self.data,
                                       "--listen", "127.0.0.1:0"], stdout=self._log, stderr=subprocess.STDOUT, **group)
        # The client's token goes to a HOME of its own, not the user's ~/.volador.
        self.env = {**os.environ, "VOLADOR_MASTER": self._master_address(),
                    "VOLADOR_BUNDLE": os.path.join(self.data, "tls", "admin.bundle"), "HOME": self.data}
        self.env.pop("VOLADOR_TOKEN", None)
        self._log_in()

    def _log_in(self) -> None:
        """Logs the client in as the admin the master made on its first start (password in DATA/admin.password)."""
        with open(os.path.join(self.data, "admin.password"), encoding="utf-8") as password:
            subprocess.run([self.cli, "user", "login", "admin", "--password-stdin"], env=self.env, stdin=password,
                           capture_output=True, text=True, check=True)

    def _master_address(self) -> str:
        addr_file = os.path.join(self.data, "master.addr")
        for _ in range(300):
            if os.path.exists(addr_file) and os.path.getsize(addr_file) > 0:
                return open(addr_file, encoding="utf-8").read().strip()
            if self._node.poll() is not None:
                raise RuntimeError(f"volador-node exited with {self._node.returncode}; see {self._log.name}")
            time.sleep(0.1)
        raise RuntimeError(f"volador-node wrote no master address in 30 s; see {self._log.name}")

    def cli_json(self, *args: str) -> Dict:
        return json.loads(subprocess.run([self.cli, *args, "--json"], env=self.env, capture_output=True, text=True,
                                         check=True).stdout)

    def stop(self) -> None:
        os.killpg(self._node.pid, signal.SIGTERM)
        try:
            self._node.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self._node.pid, signal.SIGKILL)
            self._node.wait()
        self._log.close()
        if os.environ.get("VOLADOR_BENCH_KEEP") != "1":
            shutil.rmtree(self.data, ignore_errors=True)


def cluster_round(cluster: LocalCluster, args) -> Dict[str, float]:
    """Runs the trial as one experiment: its worker's samples/s, the rate from its reports, the gaps, the wall time."""
    created = subprocess.run([cluster.cli, "experiment", "create", cluster.config, cluster.project, "--follow"],
                             env=cluster.env, capture_output=True, text=True, timeout=args.timeout)
    match = re.search(r"created experiment (\d+)", created.stdout)
    if not match:
        raise Skipped("the master refused the experiment: " +
                      " / ".join((created.stdout + created.stderr).strip().splitlines()))
    experiment = cluster.cli_json("experiment", "describe", match.group(1))
    best = experiment.get("best")
    trial_id = str(best["trial_id"] if best else experiment["trials"][0]["id"])
    trial = cluster.cli_json("trial", "describe", trial_id)
    logs = subprocess.run([cluster.cli, "trial", "logs", "--all", trial_id], env=cluster.env, capture_output=True,
                          text=True).stdout
    if trial.get("state") != "COMPLETED":
        print(logs[-4000:], file=sys.stderr)
        raise Skipped(f"trial {trial_id} ended {trial.get('state')}, not COMPLETED")
    chunks = chunks_of(logs)
    reports = [m for m in trial["metrics"] if m["kind"] == "TRAINING"]
    first, last = reports[0], reports[-1]  # from the end of the first workload on
    report_seconds = (last["reported_at_ms"] - first["reported_at_ms"]) / 1000.0
    worker_seconds = sum(s for a, _, s in chunks if first["batches"] <= a < last["batches"])
    workloads_between = sum(1 for a, _, _ in chunks if first["batches"] <= a < last["batches"])
    return {"samples_per_s": steady_rate(chunks, args.batch_size),
            "samples_per_s_from_reports": (last["batches"] - first["batches"]) * args.batch_size / report_seconds,
            "between_workloads_s": (report_seconds - worker_seconds) / max(1, workloads_between),
            "experiment_wall_s": (experiment["ended_at_ms"] - experiment["created_at_ms"]) / 1000.0}


def plain_round(args, keep_freed_memory: bool) -> Dict[str, float]:
    """Runs plain_worker.py once; its samples/s."""
    command = [sys.executable, os.path.join(HERE, "plain_worker.py"), "--batch-size", str(args.batch_size),
               "--batches", str(args.batches), "--unit", str(args.unit), "--threads", str(args.threads)]
    run = subprocess.run(command + (["--keep-freed-memory"] if keep_freed_memory else []), capture_output=True,
                         text=True, timeout=args.timeout, check=True)
    return {"samples_per_s": steady_rate(chunks_of(run.stdout), args.batch_size)}


def run_variant(variant: str, cluster: LocalCluster, args) -> Dict[str, float]:
    if variant == CLUSTER:
        return cluster_round(cluster, args)
    return plain_round(args, keep_freed_memory=variant == PLAIN_KEPT)


def summary(rounds: List[Dict[str, Dict[str, float]]], base: Dict) -> List[Dict]:
    """One RESULT row per variant: medians over the rounds and ratios against the plain process."""
    rates = {v: [r[v]["samples_per_s"] for r in rounds] for v in VARIANTS}
    plain = statistics.median(rates[PLAIN])
    rows = []
    for variant in VARIANTS:
        median = statistics.median(rates[variant])
        row = {**base, "variant": variant, "samples_per_s": round(median, 2), "min": round(min(rates[variant]), 2),
               "max": round(max(rates[variant]), 2), "ratio": round(median / plain, 4),
               "paired_ratio": round(statistics.median(v / p for v, p in zip(rates[variant], rates[PLAIN])), 4)}
        if variant == CLUSTER:
            for key in ("samples_per_s_from_reports", "between_workloads_s", "experiment_wall_s"):
                row[key] = round(statistics.median(r[CLUSTER][key] for r in rounds), 3)
            row["paired_ratio_to_kept_memory"] = round(
                statistics.median(v / p for v, p in zip(rates[CLUSTER], rates[PLAIN_KEPT])), 4)
        rows.append(row)
    return rows


def emit(kind: str, row: dict, out: str) -> None:
    line = f"{kind} " + json.dumps(row, separators=(",", ":"))
    print(line, flush=True)
    if out:
        with open(out, "a", encoding="utf-8") as file:
            file.write(line + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder with volador and volador-node")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the three variants; default 5")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--batches", type=int, default=200, help="batches each variant trains per round")
    parser.add_argument("--unit", type=int, default=50, help="scheduling_unit (batches per workload)")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads in every variant")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before giving up on one run")
    parser.add_argument("--out", help="also append the RESULT/SKIPPED lines to this file")
    args = parser.parse_args()

    base = {"bench": "training", "device": "cpu", "amp": False, "threads": args.threads,
            "global_batch_size": args.batch_size, "batches": args.batches, "scheduling_unit": args.unit,
            "rounds": args.rounds}
    if not all(os.access(os.path.join(args.bin, b), os.X_OK) for b in ("volador", "volador-node")):
        emit("SKIPPED", {**base, "variant": CLUSTER, "reason": f"no volador/volador-node in {args.bin}"}, args.out)
        return 0
    cluster = LocalCluster(args.bin, CONFIG.format(batch_size=args.batch_size, batches=args.batches, unit=args.unit,
                                                   threads=args.threads))
    rounds = []
    try:
        for round_idx in range(args.rounds):
            order = VARIANTS[round_idx % 3:] + VARIANTS[:round_idx % 3]
            rounds.append({variant: run_variant(variant, cluster, args) for variant in order})
            print(f"# round {round_idx + 1}/{args.rounds} samples/s: " +
                  ", ".join(f"{v} {rounds[-1][v]['samples_per_s']:.1f}" for v in order), flush=True)
    except Skipped as reason:
        emit("SKIPPED", {**base, "variant": CLUSTER, "reason": str(reason)}, args.out)
        return 0
    finally:
        cluster.stop()
    rows = summary(rounds, base)
    print(f"\n{'variant':<28} {'samples/s median':>17} {'min..max':>17} {'ratio':>6} {'paired':>7}")
    for r in rows:
        print(f"{r['variant']:<28} {r['samples_per_s']:>17.1f} {r['min']:>8.1f}..{r['max']:<8.1f} "
              f"{r['ratio']:>6.3f} {r['paired_ratio']:>7.3f}")
    print()
    for row in rows:
        emit("RESULT", row, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
