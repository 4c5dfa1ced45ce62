#!/usr/bin/python3
"""Optuna's TPE on the functions, budgets and seeds of bench_searchers.

Prints the same table columns and one `RESULT {json}` line per row, with
searcher "optuna_tpe" (Optuna's defaults: independent TPE, 10 startup trials,
24 EI candidates) and "optuna_tpe_mv" (multivariate=True).
Run with Debian's interpreter: /usr/bin/python3 optuna_peer.py [--seeds N] [--budgets 25,50,100]
"""
import argparse
import json
import math
import statistics
import time
import warnings

import optuna

BRANIN_MIN = 0.397887
HARTMANN6_MIN = -3.32237
ALPHA = [1.0, 1.2, 3.0, 3.2]
A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886], [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
     [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650], [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]


def branin(trial):
    x1 = trial.suggest_float("x1", -5, 10)
    x2 = trial.suggest_float("x2", 0, 15)
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1 * x1 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


def hartmann6(trial):
    x = [trial.suggest_float(f"x{j + 1}", 0, 1) for j in range(6)]
    return -sum(ALPHA[i] * math.exp(-sum(A[i][j] * (x[j] - P[i][j]) ** 2 for j in range(6))) for i in range(4))


def quantile(values, q):
    v = sorted(values)
    at = q * (len(v) - 1)
    lo = math.floor(at)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (at - lo)


def curve(objective, minimum, budget, seed, multivariate):
    sampler = optuna.samplers.TPESampler(seed=seed, multivariate=multivariate)
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=budget)
    best, out = math.inf, []
    for t in study.trials:
        best = min(best, t.value)
        out.append(best - minimum)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budgets", default="25,50,100")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    print(f"\n== Optuna {optuna.__version__} TPE, best-found regret (median [25%, 75%] over {args.seeds} seeds) ==")
    print(f"{'function':<10} {'searcher':<14} {'budget':>7} {'median':>12} {'q25':>12} {'q75':>12} {'mean':>10} {'s/search':>12}")
    for name, objective, minimum in (("branin", branin, BRANIN_MIN), ("hartmann6", hartmann6, HARTMANN6_MIN)):
        for searcher, multivariate in (("optuna_tpe", False), ("optuna_tpe_mv", True)):
            start = time.perf_counter()
            curves = [curve(objective, minimum, max(budgets), seed, multivariate) for seed in range(1, args.seeds + 1)]
            per_search = (time.perf_counter() - start) / args.seeds
            for b in budgets:
                at = [c[b - 1] for c in curves]
                med, q25, q75, mean = quantile(at, 0.5), quantile(at, 0.25), quantile(at, 0.75), statistics.fmean(at)
                print(f"{name:<10} {searcher:<14} {b:>7} {med:>12.5f} {q25:>12.5f} {q75:>12.5f} {mean:>10.5f} {per_search:>12.3f}")
                print("RESULT " + json.dumps({"bench": "regret", "function": name, "searcher": searcher, "budget": b,
                                              "seeds": args.seeds, "median_regret": med, "q25": q25, "q75": q75,
                                              "mean_regret": mean,
                                              f"seconds_per_search_of_{max(budgets)}": per_search}))


if __name__ == "__main__":
    main()
