"""Where a training batch's time goes: cProfile of bench_training's two variants, side by side.

    /usr/bin/python3 bench/training/profile_batches.py [--device cuda] [--amp on] [--batch-size 32] [--batches 300]

Runs each variant once untimed, then `--batches` batches under cProfile,
and prints each one's wall time per batch and its top functions by own time
(the functions only the Volador variant shows are its overhead), and, on
CUDA, the operators each variant runs per batch (torch.profiler).
"""

import argparse
import cProfile
import io
import pstats
import time
import warnings

import torch

import bench_training


def profile(runner, batches: int, device: torch.device, top: int) -> str:
    bench_training.timed_segment(runner, 0, batches, device, seed=1)  # warm-up (cudnn autotuning, allocator)
    profiler = cProfile.Profile()
    began = time.perf_counter()
    profiler.enable()
    bench_training.timed_segment(runner, batches, batches, device, seed=2)
    profiler.disable()
    seconds = time.perf_counter() - began
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
    return f"{seconds / batches * 1e6:.0f} us per batch (under cProfile)\n" + text.getvalue()


def operators_per_batch(runner, batches: int, device: torch.device) -> str:
    """The torch operators and CUDA launches of `batches` batches, per batch, most frequent first."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profiler:
        bench_training.timed_segment(runner, 2 * batches, batches, device, seed=3)
    counts = sorted(((event.count / batches, event.key) for event in profiler.key_averages()
                     if event.key.startswith(("aten::", "cuda"))), reverse=True)
    return "\n".join(f"{per_batch:8.2f}  {key}" for per_batch, key in counts[:40])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cpu", "cuda"))
    parser.add_argument("--amp", default="on", choices=("on", "off"))
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    device = torch.device(args.device, 0) if args.device == "cuda" else torch.device("cpu")
    amp = args.amp == "on"
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    hparams = {**bench_training.HPARAMS, "amp": amp, "torch_threads": 1}
    runners = {"volador": bench_training.VoladorRun(hparams, args.batch_size, device),
               "pytorch": bench_training.PlainLoop(hparams, args.batch_size, device, amp)}
    for name, runner in runners.items():
        print(f"===== {name}, batch {args.batch_size}, {device}, amp {args.amp}: "
              + profile(runner, args.batches, device, args.top), flush=True)
        print(f"----- {name}: operators per batch\n" + operators_per_batch(runner, 20, device), flush=True)


if __name__ == "__main__":
    main()
