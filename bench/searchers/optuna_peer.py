#!/usr/bin/python3
"""Optuna's TPE on the objectives, budgets and seeds of bench_searchers.

Prints the same table columns and one `RESULT {json}` line per row, with
searcher "optuna_tpe" (Optuna's defaults: independent TPE, 10 startup trials,
24 EI candidates) and "optuna_tpe_mv" (multivariate=True).
Then the early-stopping rows on the learning-curve objectives (as
stopping_bench.hpp; --stopping-trials N, 0 to skip): Optuna's random and TPE
samplers without pruning, TPE with its MedianPruner and with its
SuccessiveHalvingPruner, and random with the SuccessiveHalvingPruner (plain
ASHA), all with their defaults, every trial reporting every epoch.
Run with Debian's interpreter: /usr/bin/python3 optuna_peer.py [--seeds N] [--budgets 50,100] [--only branin,...]
"""
import math
import time
import warnings

import optuna

from objectives import (CURVE_EPOCHS, CURVE_OBJECTIVES, CURVE_PARAMETERS, best_so_far, budgets_and_seeds, curve_loss,
                        print_header, print_rows, print_stopping_header, print_stopping_row)

# Early-stopping rows: name, sampler class, pruner class (None: no pruning), the row without pruning it is compared with.
STOPPING_ROWS = [
    ("optuna_random", optuna.samplers.RandomSampler, None, ""),
    ("optuna_tpe", optuna.samplers.TPESampler, None, ""),
    ("optuna_tpe_median", optuna.samplers.TPESampler, optuna.pruners.MedianPruner, "optuna_tpe"),
    ("optuna_tpe_sha", optuna.samplers.TPESampler, optuna.pruners.SuccessiveHalvingPruner, "optuna_tpe"),
    ("optuna_random_sha", optuna.samplers.RandomSampler, optuna.pruners.SuccessiveHalvingPruner, "optuna_random"),
]


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


def stopping_run(speed_divisor, minimum, sampler, pruner, trials, seed):
    """One search of `trials` trials on a learning curve: (best regret against epochs so far, epochs, trials pruned)."""
    study = optuna.create_study(sampler=sampler(seed=seed), pruner=pruner() if pruner else optuna.pruners.NopPruner())
    run, epochs, best = [], 0, math.inf

    def validate(value):
        nonlocal best
        best = min(best, value)
        run.append((epochs, best - minimum))
        return value

    def objective(trial):
        nonlocal epochs
        h = suggest(trial, CURVE_PARAMETERS)
        if pruner is None:
            epochs += CURVE_EPOCHS
            return validate(curve_loss(speed_divisor, h, CURVE_EPOCHS))
        for epoch in range(1, CURVE_EPOCHS + 1):
            epochs += 1
            value = validate(curve_loss(speed_divisor, h, epoch))
            trial.report(value, epoch)
            if epoch < CURVE_EPOCHS and trial.should_prune():
                raise optuna.TrialPruned()
        return value

    study.optimize(objective, n_trials=trials)
    pruned = sum(t.state == optuna.trial.TrialState.PRUNED for t in study.trials)
    return run, epochs, pruned


def stopping_table(seeds, trials):
    print_stopping_header(f"\n== Optuna {optuna.__version__} early stopping on the learning-curve objectives: {trials} "
                          f"trials of at most {CURVE_EPOCHS} epochs, median [25%, 75%] over {seeds} seeds ==")
    for name, speed_divisor, minimum in CURVE_OBJECTIVES:
        done = {}
        for searcher, sampler, pruner, baseline in STOPPING_ROWS:
            done[searcher] = [stopping_run(speed_divisor, minimum, sampler, pruner, trials, seed)
                              for seed in range(1, seeds + 1)]
            print_stopping_row(name, searcher, done[searcher], baseline, done.get(baseline), trials)


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
    if args.stopping_trials > 0:
        stopping_table(args.seeds, args.stopping_trials)


if __name__ == "__main__":
    main()
