#!/usr/bin/python3
"""The peers of the control-plane benchmark, each run in a process of its own
by bench_control_plane.py (so that one's imports and threads never touch
another's figures). Each prints one `PEER {json}` line: seconds of the measured
part and the CPU it took (this process and its reaped children).

  peers.py optuna --trials N [--jobs 2] [--sqlite FILE]
      Optuna's random sampler; each trial runs `/bin/echo loss=1 --x=V` in a
      subprocess and parses the `name=value` pairs it prints with Volador's
      default pattern (Katib's), returning loss. In memory, or with the study
      in SQLite at FILE (Optuna's RDB storage; SQLite's default
      synchronous=FULL, rollback journal: every trial's writes are durable).
  peers.py sqlite-ingest --points N --file FILE [--batch 1000]
      N metric points inserted into SQLite at FILE, synchronous=FULL, one
      transaction per batch of points.
"""
import argparse
import json
import os
import re
import resource
import sqlite3
import subprocess
import time

METRIC_PATTERN = re.compile(r"([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)")


def cpu_s():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def echo_objective(trial):
    x = trial.suggest_float("x", 0, 1)
    out = subprocess.run(["/bin/echo", "loss=1", "--global_batch_size=1", f"--x={x}"], capture_output=True, text=True,
                         check=True).stdout
    metrics = {m.group(1): float(m.group(2)) for m in METRIC_PATTERN.finditer(out)}
    return metrics["loss"]


def run_optuna(args):
    import optuna  # only this peer needs it; the caller checks that it imports
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{args.sqlite}" if args.sqlite else None
    cpu_before, started = cpu_s(), time.perf_counter()
    study = optuna.create_study(storage=storage, sampler=optuna.samplers.RandomSampler(seed=1))
    study.optimize(echo_objective, n_trials=args.trials, n_jobs=args.jobs)
    seconds = time.perf_counter() - started
    complete = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    return {"trials": complete, "seconds": seconds, "cpu_s": cpu_s() - cpu_before, "optuna": optuna.__version__}


def run_sqlite_ingest(args):
    if os.path.exists(args.file):
        os.remove(args.file)
    cpu_before, started = cpu_s(), time.perf_counter()
    db = sqlite3.connect(args.file, isolation_level=None)
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE metrics (trial_id INTEGER, step INTEGER, name TEXT, value REAL)")
    for first in range(0, args.points, args.batch):
        rows = [(1, step, "loss", float(step)) for step in range(first, min(first + args.batch, args.points))]
        db.execute("BEGIN")
        db.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?)", rows)
        db.execute("COMMIT")
    seconds = time.perf_counter() - started
    stored = db.execute("SELECT COUNT(*) FROM metrics").fetchone()[0]
    db.close()
    return {"points": stored, "seconds": seconds, "cpu_s": cpu_s() - cpu_before}


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="peer", required=True)
    optuna_peer = sub.add_parser("optuna")
    optuna_peer.add_argument("--trials", type=int, required=True)
    optuna_peer.add_argument("--jobs", type=int, default=2)
    optuna_peer.add_argument("--sqlite")
    ingest = sub.add_parser("sqlite-ingest")
    ingest.add_argument("--points", type=int, required=True)
    ingest.add_argument("--file", required=True)
    ingest.add_argument("--batch", type=int, default=1000)
    args = parser.parse_args()
    result = run_optuna(args) if args.peer == "optuna" else run_sqlite_ingest(args)
    print("PEER " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
