"""Train a trial in this process with one rank, no cluster: a quick check of a model_def.py.

    /usr/bin/python3 -m volador.local model_def:MyTrial --config distributed.yaml [--batches N] [--seed S]

Uses the config's constant hyperparameters, `data`, `scheduling_unit` and
searcher.max_length (unless --batches is given); prints the training metrics
every scheduling_unit batches and the validation metrics at the end.
"""

import argparse
import sys
from typing import Any, Callable, Dict, Optional

from volador.entrypoint import TrialLoadError, load_trial_class

_SEARCH_TYPES = ("int", "double", "log", "categorical")


class ConfigError(ValueError):
    """The experiment config cannot be run locally; the message names the field."""


def run(trial_class: type, hparams: Dict[str, Any], *, batches: int, global_batch_size: Optional[int] = None,
        data_config: Optional[Dict[str, Any]] = None, trial_seed: int = 0, scheduling_unit: int = 100,
        report: Callable[[str], None] = print) -> Dict[str, float]:
    """Trains `batches` batches, reporting metrics every `scheduling_unit`; returns the final validation metrics."""
    from volador.pytorch import PyTorchTrialContext, TrialController

    if global_batch_size is not None:
        hparams = {**hparams, "global_batch_size": global_batch_size}
    context = PyTorchTrialContext(hparams, trial_seed=trial_seed, data_config=data_config)
    controller = TrialController(trial_class, context)
    for start in range(0, batches, scheduling_unit):
        count = min(scheduling_unit, batches - start)
        report(f"batches {start}-{start + count - 1}: {_format(controller.train(start, count))}")
    metrics = controller.validate()
    report(f"validation after {batches} batches: {_format(metrics)}")
    return metrics


def constant_hparams(section: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    """The config's hyperparameters with {type: const, val} resolved; a search range is a ConfigError."""
    resolved = {}
    for name, value in section.items():
        if isinstance(value, dict) and value.get("type") == "const":
            resolved[name] = value.get("val")
        elif isinstance(value, dict) and value.get("type") in _SEARCH_TYPES:
            raise ConfigError(f"hyperparameters.{prefix}{name} is a {value['type']} search range; "
                              "volador.local trains one setting, so give it a constant value")
        elif isinstance(value, dict):
            resolved[name] = constant_hparams(value, f"{prefix}{name}.")
        else:
            resolved[name] = value
    return resolved


def batches_to_train(config: Dict[str, Any]) -> int:
    """searcher.max_length in batches (records and epochs are converted with global_batch_size)."""
    length = (config.get("searcher") or {}).get("max_length") or {}
    batch_size = int((config.get("hyperparameters") or {}).get("global_batch_size", 0) or 0)
    if "batches" in length:
        return int(length["batches"])
    if batch_size <= 0:
        raise ConfigError("hyperparameters.global_batch_size must be a positive constant")
    if "records" in length:
        return max(1, int(length["records"]) // batch_size)
    if "epochs" in length:
        if "records_per_epoch" not in config:
            raise ConfigError("searcher.max_length is in epochs, so records_per_epoch is required")
        return max(1, int(length["epochs"]) * int(config["records_per_epoch"]) // batch_size)
    raise ConfigError("searcher.max_length is missing: pass --batches")


def main(argv: Optional[list] = None) -> int:
    """The command line; returns the exit status (1 with a message on stderr for bad input)."""
    parser = argparse.ArgumentParser(prog="python3 -m volador.local", description=__doc__.splitlines()[0])
    parser.add_argument("entrypoint", help="file:Class, e.g. model_def:MyTrial (file in the current folder)")
    parser.add_argument("--config", required=True, help="the experiment config (distributed.yaml)")
    parser.add_argument("--batches", type=int, help="batches to train (default: searcher.max_length)")
    parser.add_argument("--seed", type=int, default=0, help="the trial seed (default 0)")
    args = parser.parse_args(argv)
    try:
        config = _read_yaml(args.config)
        hparams = constant_hparams(config.get("hyperparameters") or {})
        batches = args.batches if args.batches is not None else batches_to_train(config)
        trial_class = load_trial_class(args.entrypoint)
    except (ConfigError, TrialLoadError, OSError) as error:
        print(f"volador.local: {error}", file=sys.stderr)
        return 1
    run(trial_class, hparams, batches=batches, data_config=config.get("data"), trial_seed=args.seed,
        scheduling_unit=int(config.get("scheduling_unit", 100)))
    return 0


def _read_yaml(path: str) -> Dict[str, Any]:
    try:
        import yaml
    except ImportError:
        raise ConfigError("reading the config needs python3-yaml (apt-get install python3-yaml)") from None
    with open(path, encoding="utf-8") as file:
        try:
            config = yaml.safe_load(file)
        except yaml.YAMLError as error:
            raise ConfigError(f"{path}: {error}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path} is not a YAML mapping")
    return config


def _format(metrics: Dict[str, float]) -> str:
    return " ".join(f"{name}={value:.6g}" for name, value in sorted(metrics.items())) or "(no metrics)"


if __name__ == "__main__":
    sys.exit(main())
