"""Training throughput of the manual's MNIST PyTorchTrial under Volador's
TrialController against the same model, optimizer and batches in a plain
PyTorch loop, interleaved in one process (README.md here).

    /usr/bin/python3 bench_training.py [--rounds 7] [--batch-sizes 32,128]
        [--samples 512] [--threads 1] [--device auto|cpu|cuda] [--amp auto|on|off]
        [--out FILE]

Each round times one segment per (batch size, variant), alternating which
variant goes first; a segment is one TrialController.train(start, n) call
(one workload, as a rank worker runs it) or the plain loop over the same n
batches. Both variants are reseeded before each segment, so they draw the
same dropout masks and their weights must stay identical (checked at the end).
Prints a table and one `RESULT {json}` line per row. Then the framework's
own cost per batch, measured the same way with the conv net replaced by one
linear layer (so the model's time no longer hides it): one `OVERHEAD {json}`
line per batch size.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time
import warnings
from typing import Dict, Iterator, List

import numpy
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "mnist_pytorch")  # the manual's trial, which bench_trial extends
sys.path[:0] = [HERE, EXAMPLE, os.path.join(HERE, "..", "..", "python")]

import bench_trial  # noqa: E402  (the trial under test; shares the model/optimizer builders)
from volador.pytorch import PyTorchTrialContext, TrialController  # noqa: E402

HPARAMS = {"learning_rate": 1.0, "n_filters1": 32, "n_filters2": 64, "dropout1": 0.25,
           "dropout2": 0.5, "lr_gamma": 0.97}
TRIAL_SEED = 1
TARGET = 0.98


class PlainLoop:
    """The same training in plain PyTorch: torch DataLoader, forward, backward, step, zero_grad, StepLR per epoch.

    The records of each batch follow Volador's documented order (a seeded
    numpy permutation per epoch, batch b is slice b of it), so both variants
    see the same batches; a user's loop would shuffle the same way.
    """

    def __init__(self, hparams: Dict, global_batch_size: int, device: torch.device, amp: bool):
        torch.manual_seed(TRIAL_SEED)  # as TrialController seeds before building the trial
        self.device, self.amp, self.batch_size = device, amp, global_batch_size
        self.model = bench_trial.build_model(hparams).to(device)
        self.optimizer = bench_trial.build_optimizer(hparams, self.model)
        self.scheduler = bench_trial.build_scheduler(hparams, self.optimizer)
        self.scaler = torch.cuda.amp.GradScaler(enabled=amp and device.type == "cuda")
        self.dataset = bench_trial.digits_datasets()[0]
        self.batches_per_epoch = len(self.dataset) // global_batch_size

    def _index_batches(self, start: int, batches: int) -> Iterator[List[int]]:
        order, order_epoch = None, None
        for b in range(start, start + batches):
            epoch = b // self.batches_per_epoch
            if epoch != order_epoch:
                order = numpy.random.default_rng((TRIAL_SEED, epoch)).permutation(len(self.dataset))
                order_epoch = epoch
            first = (b % self.batches_per_epoch) * self.batch_size
            yield order[first:first + self.batch_size].tolist()

    def train(self, start: int, batches: int) -> Dict[str, float]:
        self.model.train()
        loader = torch.utils.data.DataLoader(self.dataset, batch_sampler=self._index_batches(start, batches),
                                             generator=torch.Generator())
        total = torch.zeros((), device=self.device)
        for b, (data, labels) in zip(range(start, start + batches), loader):
            data = data.to(self.device, non_blocking=True)
            labels = labels.to(self.device, non_blocking=True)
            with torch.autocast(device_type=self.device.type, dtype=_amp_dtype(self.device), enabled=self.amp):
                output = self.model(data)
            loss = torch.nn.functional.nll_loss(output.float(), labels)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()
            total += loss.detach()
            if self.scheduler is not None and (b + 1) % self.batches_per_epoch == 0:
                self.scheduler.step()
        return {"loss": float(total) / batches}


class VoladorRun:
    """MNistTrial driven by TrialController.train, as the Python rank worker drives it (one rank)."""

    def __init__(self, hparams: Dict, global_batch_size: int, device: torch.device):
        context = PyTorchTrialContext({**hparams, "global_batch_size": global_batch_size},
                                      trial_seed=TRIAL_SEED, device=device)
        self.controller = TrialController(bench_trial.MNistBenchTrial, context)
        self.model = self.controller.trial.model

    def train(self, start: int, batches: int) -> Dict[str, float]:
        return self.controller.train(start, batches)


def _amp_dtype(device: torch.device) -> torch.dtype:
    return torch.float16 if device.type == "cuda" else torch.bfloat16


def timed_segment(runner, start: int, batches: int, device: torch.device, seed: int) -> float:
    """Seconds for runner.train(start, batches), after seeding torch's generator (dropout) with `seed`."""
    torch.manual_seed(seed)
    if device.type == "cuda":
        torch.cuda.synchronize()
    began = time.perf_counter()
    runner.train(start, batches)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - began


def max_weight_difference(a: torch.nn.Module, b: torch.nn.Module) -> float:
    return max(float((x.detach().float() - y.detach().float()).abs().max())
               for x, y in zip(a.state_dict().values(), b.state_dict().values()))


def interleaved_seconds(runners: Dict, batches: int, rounds: int, device: torch.device, seed: int) -> Dict:
    """Per variant, the seconds of each round's segment of `batches` batches (after one untimed round)."""
    times = {variant: [] for variant in runners}
    start = 0
    for round_idx in range(-1, rounds):
        order = list(runners) if round_idx % 2 == 0 else list(reversed(list(runners)))
        for variant in order:
            seconds = timed_segment(runners[variant], start, batches, device, seed=seed + round_idx + 1)
            if round_idx >= 0:
                times[variant].append(seconds)
        start += batches
    return times


def overhead_per_batch(hparams: Dict, size: int, device: torch.device, amp: bool) -> Dict:
    """Microseconds per batch of both variants with a one-layer model (784 -> 10), medians of 9 rounds of 100."""
    conv_net = bench_trial.build_model
    bench_trial.build_model = lambda _: torch.nn.Sequential(bench_trial.Flatten(), torch.nn.Linear(784, 10),
                                                           torch.nn.LogSoftmax(dim=1))
    try:
        runners = {"volador": VoladorRun(hparams, size, device), "pytorch": PlainLoop(hparams, size, device, amp)}
    finally:
        bench_trial.build_model = conv_net
    times = interleaved_seconds(runners, 100, 9, device, seed=size)
    us = {variant: statistics.median(ts) / 100 * 1e6 for variant, ts in times.items()}
    return {"bench": "training", "variant": "overhead", "model": "linear784x10", "device": device.type, "amp": amp,
            "threads": torch.get_num_threads(), "global_batch_size": size,
            "volador_us_per_batch": round(us["volador"], 1), "pytorch_us_per_batch": round(us["pytorch"], 1),
            "overhead_us_per_batch": round(us["volador"] - us["pytorch"], 1)}


def machine_description(device: torch.device, threads: int) -> str:
    if device.type == "cuda":
        what = torch.cuda.get_device_name(device)
    else:
        what = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                     if line.startswith("model name")), platform.processor())
        what += f", {os.cpu_count()} CPUs visible, load average {os.getloadavg()[0]:.1f} at start"
    return f"{what}; torch {torch.__version__}, torch.set_num_threads({threads}), python {platform.python_version()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds (medians over them); default 15")
    parser.add_argument("--batch-sizes", default="32,128", help="global batch sizes; default 32,128")
    parser.add_argument("--samples", type=int, default=512,
                        help="records per timed segment (rounded to whole batches); default 512")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads; default 1")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--amp", default="auto", choices=("auto", "on", "off"),
                        help="mixed precision (configure_apex_amp O1 / torch.autocast); auto: on with CUDA")
    parser.add_argument("--out", help="also append the RESULT lines to this file")
    args = parser.parse_args()

    warnings.filterwarnings("ignore", message="dropout2d: Received a 2-D input")
    torch.set_num_threads(args.threads)
    cuda = torch.cuda.is_available() if args.device == "auto" else args.device == "cuda"
    device = torch.device("cuda", 0) if cuda else torch.device("cpu")
    amp = cuda if args.amp == "auto" else args.amp == "on"
    if cuda:
        torch.backends.cudnn.benchmark = True
    hparams = {**HPARAMS, "amp": amp, "torch_threads": args.threads}
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    print(f"# machine: {machine_description(device, args.threads)}")
    print(f"# device {device}, amp {'on' if amp else 'off'}, {args.rounds} rounds, "
          f"~{args.samples} records per segment, variants interleaved", flush=True)

    runners, batches, times = {}, {}, {}
    for size in sizes:
        runners[size] = {"volador": VoladorRun(hparams, size, device),
                         "pytorch": PlainLoop(hparams, size, device, amp)}
        batches[size] = max(1, round(args.samples / size))
        times[size] = {"volador": [], "pytorch": []}
    start = {size: 0 for size in sizes}
    for round_idx in range(-1, args.rounds):  # round -1 warms up and is not recorded
        for size in sizes:
            order = ["volador", "pytorch"] if round_idx % 2 == 0 else ["pytorch", "volador"]
            for variant in order:
                seconds = timed_segment(runners[size][variant], start[size], batches[size], device,
                                        seed=hash((size, round_idx)) & 0x7fffffff)
                if round_idx >= 0:
                    times[size][variant].append(seconds)
            start[size] += batches[size]
        if round_idx >= 0:
            done = ", ".join(f"bs {s}: " + " ".join(f"{v} {batches[s] * s / times[s][v][-1]:.0f}"
                                                    for v in ("volador", "pytorch")) for s in sizes)
            print(f"# round {round_idx + 1}/{args.rounds} samples/s: {done}", flush=True)

    rows, failures = [], []
    for size in sizes:
        difference = max_weight_difference(runners[size]["volador"].model, runners[size]["pytorch"].model)
        if difference > 1e-5:
            failures.append(f"bs {size}: the variants' weights differ by up to {difference:.3g}; "
                            "they did not train the same batches")
        rates = {v: [batches[size] * size / t for t in ts] for v, ts in times[size].items()}
        plain = statistics.median(rates["pytorch"])
        paired = statistics.median(p / q for p, q in zip(rates["volador"], rates["pytorch"]))
        for variant in ("volador", "pytorch"):
            median = statistics.median(rates[variant])
            rows.append({"bench": "training", "variant": variant, "device": device.type, "amp": amp,
                         "threads": args.threads, "global_batch_size": size, "rounds": args.rounds,
                         "batches_per_segment": batches[size],
                         "samples_per_s": round(median, 2), "min": round(min(rates[variant]), 2),
                         "max": round(max(rates[variant]), 2), "ratio": round(median / plain, 4),
                         "paired_ratio": round(paired if variant == "volador" else 1.0, 4),
                         "max_weight_diff": difference})

    print(f"\n{'variant':<8} {'batch':>5} {'samples/s median':>17} {'min..max':>17} {'ratio':>6} {'paired':>7}")
    for r in rows:
        print(f"{r['variant']:<8} {r['global_batch_size']:>5} {r['samples_per_s']:>17.1f} "
              f"{r['min']:>8.1f}..{r['max']:<8.1f} {r['ratio']:>6.3f} {r['paired_ratio']:>7.3f}")
    print()
    lines = ["RESULT " + json.dumps(r, separators=(",", ":")) for r in rows]
    print("\n".join(lines))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    print()
    for r in rows:
        if r["variant"] == "volador":
            met = r["ratio"] >= TARGET
            print(f"  [{'MET' if met else 'NOT MET'}] volador >= {TARGET:.0%} of plain PyTorch, "
                  f"{r['device']}{' amp' if amp else ''}, batch {r['global_batch_size']}: "
                  f"{r['ratio']:.1%} of the medians ({r['paired_ratio']:.1%} median of paired rounds)")
    print("\n## framework overhead per batch (the conv net replaced by one linear layer; medians of 9 rounds)")
    overheads = [overhead_per_batch(hparams, size, device, amp) for size in sizes]
    conv = {r["global_batch_size"]: r["samples_per_s"] for r in rows if r["variant"] == "pytorch"}
    for o in overheads:
        step_us = o["global_batch_size"] / conv[o["global_batch_size"]] * 1e6
        o["share_of_conv_net_step"] = round(o["overhead_us_per_batch"] / step_us, 5)
        print(f"  batch {o['global_batch_size']:>4}: volador {o['volador_us_per_batch']:.0f} us, "
              f"pytorch {o['pytorch_us_per_batch']:.0f} us, difference {o['overhead_us_per_batch']:+.0f} us "
              f"= {o['share_of_conv_net_step']:+.2%} of a conv-net step ({step_us / 1000:.1f} ms)")
    lines = ["OVERHEAD " + json.dumps(o, separators=(",", ":")) for o in overheads]
    print("\n".join(lines))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    for failure in failures:
        print(f"  [ERROR] {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
