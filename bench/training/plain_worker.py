"""bench_training.py's plain PyTorch loop in a process of its own, timed the way the cluster's rank worker
is: one line per chunk of --unit batches, in the worker's trial-log format (end_to_end.py compares them).

    /usr/bin/python3 plain_worker.py [--batch-size 32] [--batches 200] [--unit 50] [--threads 1]
        [--keep-freed-memory]

Like a fresh worker, it starts from nothing: it imports torch, builds the
model, then trains batches 0 .. --batches - 1 in chunks, printing
`volador: trained batches A-B in S s` per chunk. --keep-freed-memory applies
the rank worker's malloc settings (volador._allocator) first.
"""

import argparse
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "python")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--unit", type=int, default=50, help="batches per timed chunk (the cluster's workload)")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    parser.add_argument("--keep-freed-memory", action="store_true", help="the rank worker's malloc settings")
    args = parser.parse_args()
    if args.keep_freed_memory:
        from volador._allocator import keep_freed_memory

        keep_freed_memory()
    import torch

    from bench_training import HPARAMS, PlainLoop

    warnings.filterwarnings("ignore", message="dropout2d: Received a 2-D input")
    torch.set_num_threads(args.threads)
    loop = PlainLoop(HPARAMS, args.batch_size, torch.device("cpu"), amp=False)
    for start in range(0, args.batches, args.unit):
        count = min(args.unit, args.batches - start)
        began = time.perf_counter()
        loop.train(start, count)
        print(f"volador: trained batches {start}-{start + count - 1} in {time.perf_counter() - began:.2f} s",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
