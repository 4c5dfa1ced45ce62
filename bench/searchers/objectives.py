"""The objectives of bench_searchers (bench/searchers/objectives.hpp) and the
table rows, for the Python peers (optuna_peer.py, gp_peer.py); the
learning-curve objectives of its early-stopping part (stopping_bench.hpp).

Each objective: a name, its global minimum, its parameters and the function of a
dict of their values. A parameter is (name, kind, low, high) with kind "float",
"log" (value 10^x, low and high the values' bounds), "int", or (name,
"categorical", choices).
"""
import math

ALPHA = [1.0, 1.2, 3.0, 3.2]
A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886], [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
     [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650], [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]


def branin(h):
    x1, x2 = h["x1"], h["x2"]
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1 * x1 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


def hartmann6(h):
    x = [h[f"x{j + 1}"] for j in range(6)]
    return -sum(ALPHA[i] * math.exp(-sum(A[i][j] * (x[j] - P[i][j]) ** 2 for j in range(6))) for i in range(4))


def rosenbrock5(h):
    x = [h[f"x{j + 1}"] for j in range(5)]
    return sum(100 * (x[j + 1] - x[j] ** 2) ** 2 + (1 - x[j]) ** 2 for j in range(4))


def levy5(h):
    w = [1 + (h[f"x{j + 1}"] - 1) / 4 for j in range(5)]
    total = math.sin(math.pi * w[0]) ** 2 + (w[-1] - 1) ** 2 * (1 + math.sin(2 * math.pi * w[-1]) ** 2)
    for wi in w[:-1]:
        total += (wi - 1) ** 2 * (1 + 10 * math.sin(math.pi * wi + 1) ** 2)
    return total


# Per optimizer: an offset and the best log10 learning rate.
MIXED_OPTIMIZERS = {"adam": (0.0, -3.2), "rmsprop": (0.05, -2.8), "sgd": (0.2, -2.0)}


def mixed(h):
    offset, best_log_lr = MIXED_OPTIMIZERS[h["optimizer"]]
    a, b = math.log10(h["lr"]) - best_log_lr, h["dropout"] - 0.2
    return offset + 0.25 * a * a + 0.3 * a * b + 2 * b * b + 0.02 * (h["layers"] - 4) ** 2


def _reals(n, low, high):
    return [(f"x{j + 1}", "float", low, high) for j in range(n)]


OBJECTIVES = [
    ("branin", 0.397887, [("x1", "float", -5, 10), ("x2", "float", 0, 15)], branin),
    ("hartmann6", -3.32237, _reals(6, 0, 1), hartmann6),
    ("rosenbrock5", 0.0, _reals(5, -2.048, 2.048), rosenbrock5),
    ("levy5", 0.0, _reals(5, -10, 10), levy5),
    ("mixed", 0.0, [("dropout", "float", 0, 0.5), ("layers", "int", 1, 8), ("lr", "log", 1e-5, 1e-1),
                    ("optimizer", "categorical", sorted(MIXED_OPTIMIZERS))], mixed),
]


# The learning-curve objectives (objectives.hpp, curve_loss): name, speed divisor, minimum final loss.
CURVE_EPOCHS = 81
CURVE_OBJECTIVES = [("curve", 9, 1.0233446e-11), ("curve_late", 27, 1.630237912465890e-4)]
CURVE_PARAMETERS = [("decay", "float", 0, 1), ("lr", "log", 1e-4, 1), ("width", "float", 0, 1)]


def curve_loss(speed_divisor, h, epoch):
    """Validation loss after `epoch` epochs: plateau(h) + exp(-speed(h) * epoch), curves crossing."""
    v, width, decay = math.log10(h["lr"]) + 4, h["width"], h["decay"]
    speed = 10 ** (v / 2) * (0.5 + width) / speed_divisor
    plateau = 0.02 * (v - 1.5) ** 2 + 0.1 * width ** 2 + 0.1 * (decay - 0.6) ** 2
    return plateau + math.exp(-speed * epoch)


def budgets_and_seeds(description):
    """The peers' command line: --seeds N --budgets 50,100 [--only NAME,...]."""
    import argparse
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budgets", default="50,100")
    parser.add_argument("--only", default="", help="objectives to run, comma-separated (default all)")
    parser.add_argument("--stopping-trials", type=int, default=100, help="trials of the early-stopping rows (0: skip)")
    args = parser.parse_args()
    args.budgets = [int(b) for b in args.budgets.split(",")]
    args.objectives = [o for o in OBJECTIVES if not args.only or o[0] in args.only.split(",")]
    return args


def print_header(title):
    print(title)
    print(f"{'function':<12} {'searcher':<14} {'budget':>7} {'median':>12} {'q25':>12} {'q75':>12} {'mean':>10} "
          f"{'s/search':>10}", flush=True)


def print_rows(name, searcher, curves, budgets, per_search):
    """One row per budget: the regret after that many trials over the seeds' best-so-far curves."""
    import json
    import statistics
    for b in budgets:
        at = [c[b - 1] for c in curves]
        med, q25, q75, mean = quantile(at, 0.5), quantile(at, 0.25), quantile(at, 0.75), statistics.fmean(at)
        print(f"{name:<12} {searcher:<14} {b:>7} {med:>12.4g} {q25:>12.4g} {q75:>12.4g} {mean:>10.4g} "
              f"{per_search:>10.3f}")
        print("RESULT " + json.dumps({"bench": "regret", "function": name, "searcher": searcher, "budget": b,
                                      "seeds": len(curves), "median_regret": med, "q25": q25, "q75": q75,
                                      "mean_regret": mean, f"seconds_per_search_of_{max(budgets)}": per_search}),
              flush=True)


def regret_within(run, epochs):
    """The regret of the best validation within `epochs` epochs; run: [(epochs so far, best regret so far)]."""
    regret = math.inf
    for at, best in run:
        if at > epochs:
            break
        regret = best
    return regret


def print_stopping_header(title):
    print(title)
    print(f"{'function':<11} {'searcher':<18} {'epochs':>22} {'saved':>6} {'stopped':>7} {'regret':>32} "
          f"{'@700 ep':>10} {'baseline':>10} (same epochs, no stopping)", flush=True)


def print_stopping_row(name, searcher, runs, baseline_name, baseline_runs, trials):
    """One row of the early-stopping table: runs are (curve, epochs, stopped) per seed, as stopping_bench.cpp."""
    import json
    epochs = [r[1] for r in runs]
    stopped = [r[2] for r in runs]
    regret = [r[0][-1][1] for r in runs]
    at700 = [regret_within(r[0], 700) for r in runs]
    same = [regret_within(b[0], r[1]) for r, b in zip(runs, baseline_runs)] if baseline_runs else regret
    saved = 1 - quantile(epochs, 0.5) / (trials * CURVE_EPOCHS)
    print(f"{name:<11} {searcher:<18} {quantile(epochs, 0.5):>7.0f} [{quantile(epochs, 0.25):>5.0f}, "
          f"{quantile(epochs, 0.75):>5.0f}] {100 * saved:>5.0f}% {quantile(stopped, 0.5):>7.0f} "
          f"{quantile(regret, 0.5):>10.3g} [{quantile(regret, 0.25):>9.3g}, {quantile(regret, 0.75):>9.3g}] "
          f"{quantile(at700, 0.5):>10.3g} {quantile(same, 0.5):>10.3g} {baseline_name:<7}")
    print("RESULT " + json.dumps({"bench": "stopping", "function": name, "searcher": searcher, "trials": trials,
                                  "seeds": len(runs), "median_epochs": quantile(epochs, 0.5), "saved_fraction": saved,
                                  "median_stopped": quantile(stopped, 0.5), "median_regret": quantile(regret, 0.5),
                                  "q25": quantile(regret, 0.25), "q75": quantile(regret, 0.75),
                                  "median_regret_at_700_epochs": quantile(at700, 0.5), "baseline": baseline_name,
                                  "median_baseline_regret_at_same_epochs": quantile(same, 0.5)}), flush=True)


def best_so_far(values, minimum):
    """Regret of the best value found after each trial."""
    best, out = math.inf, []
    for v in values:
        best = min(best, v)
        out.append(best - minimum)
    return out


def quantile(values, q):
    v = sorted(values)
    at = q * (len(v) - 1)
    lo = math.floor(at)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (at - lo)
