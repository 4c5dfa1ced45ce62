#!/usr/bin/python3
"""Optuna's TPE on the objectives, budgets and seeds of bench_searchers.

Prints the same table columns and one `RESULT {json}` line per row, with
searcher "optuna_tpe" (Optuna's defaults: independent TPE, 10 startup trials,
24 EI candidates) and "optuna_tpe_mv" (multivariate=True).
Run with Debian's interpreter: /usr/bin/python3 optuna_peer.py [--seeds N] [--budgets 50,100] [--only branin,...]
"""
import time
import warnings

import optuna

from objectives import best_so_far, budgets_and_seeds, print_header, print_rows


def suggest(trial, parameters):
    h = {}
    for name, kind, *bounds in parameters:
        if kind == "categorical":
            h[name] = trial.suggest_categorical(name, bounds[0])
        elif kind == "int":
            h[name] = trial.suggest_int(name, bounds[0], bounds[1])
        else:
            h[name] = trial.suggest_float(name, bounds[0], bounds[1], log=kind == "log")
    return h


def curve(parameters, function, minimum, budget, seed, multivariate):
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed, multivariate=multivariate))
    study.optimize(lambda trial: function(suggest(trial, parameters)), n_trials=budget)
    return best_so_far([t.value for t in study.trials], minimum)


def main():
    args = budgets_and_seeds(__doc__)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    print_header(f"\n== Optuna {optuna.__version__} TPE, best-found regret (median [25%, 75%] over {args.seeds} seeds) ==")
    for name, minimum, parameters, function in args.objectives:
        for searcher, multivariate in (("optuna_tpe", False), ("optuna_tpe_mv", True)):
            start = time.perf_counter()
            curves = [curve(parameters, function, minimum, max(args.budgets), seed, multivariate)
                      for seed in range(1, args.seeds + 1)]
            print_rows(name, searcher, curves, args.budgets, (time.perf_counter() - start) / args.seeds)


if __name__ == "__main__":
    main()
