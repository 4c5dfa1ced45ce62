"""Hyperparameters and results for plain training scripts (stdlib only).

A script run by a command entrypoint (``entrypoint: python3 train.py``)
needs only this module, in the style of an HPO service's SDK::

    from volador.reporting import get_data, get_parameter, report_final_result, report_intermediate_result

    params = get_parameter()                  # {"lr": 0.01, "optimizer": {"momentum": 0.9}, ...}
    lr = get_parameter("lr", 0.01)            # one value, with a default
    url = get_data("url")                     # from the config's data section
    for epoch in range(epochs):
        ...
        report_intermediate_result(accuracy, step=epoch)
        report_loss(loss, step=epoch)
    report_final_result(accuracy)

Checkpoints: write files into the folder ``checkpoint_dir()`` (the
environment variable ``VOLADOR_CHECKPOINT_DIR``, empty when the command
starts); what it holds when the command exits successfully becomes the
trial's checkpoint, and ``checkpoint()`` saves it mid-run. A resumed command
(after a pause or a restart) finds the trial's latest checkpoint in
``latest_checkpoint()`` (``VOLADOR_LATEST_CHECKPOINT``), or None::

    latest = latest_checkpoint()
    start = int(open(os.path.join(latest, "epoch")).read()) if latest else 0
    for epoch in range(start, epochs):
        ...
        with open(os.path.join(checkpoint_dir(), "epoch"), "w") as f:
            f.write(str(epoch + 1))
        checkpoint()

Hyperparameters come from the environment variable ``VOLADOR_HPARAMS`` (a
JSON object), else from the JSON file named by ``VOLADOR_HPARAMS_FILE``
(Volador sets both, and also passes them as ``--name=value`` arguments).
The config's free-form ``data`` section comes the same way, from
``VOLADOR_DATA`` else ``VOLADOR_DATA_FILE``: ``get_data("url")``.
Outside Volador, where none is set, ``get_parameter()`` and ``get_data()``
return ``{}`` and warn once (RuntimeWarning), so that the script still runs
with its own defaults.

Each report is one line on stdout, flushed at once, that Volador's worker
reads (report_line.hpp)::

    [volador-report] {"kind": "intermediate", "value": 0.91, "step": 3}
    [volador-report] {"kind": "loss", "value": 0.25}
    [volador-report] {"kind": "final", "value": 0.93}
    [volador-report] {"kind": "metrics", "metrics": {"loss": 0.25, "acc": 0.91}, "step": 3}
    [volador-report] {"kind": "checkpoint", "folder": "snapshot-k2j4"}

Values must be finite real numbers (int, float, numpy scalars; convert a
tensor with ``float(t)``): anything else raises TypeError, NaN and infinity
raise ValueError. A step is an optional non-negative int (a wrong type
raises TypeError, a negative one ValueError).
"""

import json
import math
import numbers
import os
import shutil
import sys
import tempfile
import threading
import warnings

REPORT_PREFIX = "[volador-report] "
HPARAMS_ENV = "VOLADOR_HPARAMS"
HPARAMS_FILE_ENV = "VOLADOR_HPARAMS_FILE"
DATA_ENV = "VOLADOR_DATA"
DATA_FILE_ENV = "VOLADOR_DATA_FILE"
CHECKPOINT_DIR_ENV = "VOLADOR_CHECKPOINT_DIR"
LATEST_CHECKPOINT_ENV = "VOLADOR_LATEST_CHECKPOINT"

_NO_DEFAULT = object()
_write_lock = threading.Lock()
_warned_outside_volador = False


def get_parameter(name=None, default=_NO_DEFAULT):
    """All hyperparameters as a new dict, or the value of the one named ``name``.

    ``name`` may be dotted ("optimizer.lr") to reach into nested maps. A
    missing name returns ``default``, or raises KeyError when none is given.
    Raises ValueError when the hyperparameters are not a JSON object and
    OSError when the file cannot be read.
    """
    return _get(_load_object(HPARAMS_ENV, HPARAMS_FILE_ENV, "hyperparameters"), "hyperparameter", name, default)


def get_data(name=None, default=_NO_DEFAULT):
    """The config's ``data`` section as a new dict, or the value at ``name`` in it.

    As get_parameter(): ``name`` may be dotted, a missing one returns
    ``default`` or raises KeyError, bad data raises ValueError or OSError.
    """
    return _get(_load_object(DATA_ENV, DATA_FILE_ENV, "data"), "data field", name, default)


def report_intermediate_result(value, step=None):
    """Report the searcher's metric so far, e.g. validation accuracy after an epoch."""
    _write_report({"kind": "intermediate", "value": _finite(value, "value"), **_step(step)})


def report_loss(value, step=None):
    """Report a training loss, for plots."""
    _write_report({"kind": "loss", "value": _finite(value, "value"), **_step(step)})


def report_final_result(value):
    """Report the trial's final result for the searcher's metric."""
    _write_report({"kind": "final", "value": _finite(value, "value")})


def report_metrics(metrics, step=None):
    """Report several named metrics at once, e.g. ``{"loss": 0.25, "accuracy": 0.91}``."""
    if not isinstance(metrics, dict) or not metrics:
        raise TypeError(f"metrics must be a non-empty dict of name: number, got {metrics!r}")
    checked = {}
    for name, value in metrics.items():
        if not isinstance(name, str):
            raise TypeError(f"metric names must be strings, got {name!r}")
        if not name:
            raise ValueError("metric names must not be empty")
        checked[name] = _finite(value, f"metric {name!r}")
    _write_report({"kind": "metrics", "metrics": checked, **_step(step)})


def checkpoint_dir():
    """The folder whose files become the trial's checkpoint, or None outside Volador."""
    return os.environ.get(CHECKPOINT_DIR_ENV)


def latest_checkpoint():
    """The folder holding the trial's latest checkpoint (its files and Volador's
    manifest.json) when this run resumes from one, else None."""
    return os.environ.get(LATEST_CHECKPOINT_ENV)


def checkpoint():
    """Saves the files now in ``checkpoint_dir()`` as the trial's checkpoint.

    They are copied at once (a snapshot beside the folder), so the script may
    change the folder as soon as this returns; Volador then registers the copy
    (with a manifest and checksums) in the order of the reports around it. A
    folder without files saves nothing. Files and folders only: a symlink
    fails the trial. Outside Volador this warns once and does nothing.
    """
    folder = checkpoint_dir()
    if folder is None:
        _warn_outside_volador(stacklevel=3)
        return
    snapshots = os.path.join(os.path.dirname(folder), "snapshots")
    os.makedirs(snapshots, exist_ok=True)
    snapshot = tempfile.mkdtemp(prefix="snapshot-", dir=snapshots)
    shutil.copytree(folder, snapshot, symlinks=True, dirs_exist_ok=True)
    _write_report({"kind": "checkpoint", "folder": os.path.basename(snapshot)})


def _get(values, what, name, default):
    if name is None:
        return values
    try:
        return _lookup(values, name)
    except KeyError:
        if default is _NO_DEFAULT:
            known = ", ".join(sorted(values)) or "none"
            raise KeyError(f"no {what} named {name!r} (known: {known})") from None
        return default


def _load_object(variable, file_variable, what):
    """The JSON object in the environment variable `variable`, else in the file `file_variable` names."""
    text = os.environ.get(variable)
    source = f"the environment variable {variable}"
    if text is None:
        path = os.environ.get(file_variable)
        if path is None:
            _warn_outside_volador()
            return {}
        source = f"the file {path!r} named by {file_variable}"
        with open(path, encoding="utf-8") as file:
            text = file.read()
    try:
        values = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"the {what} in {source} are not valid JSON: {error}") from None
    if not isinstance(values, dict):
        raise ValueError(f"the {what} in {source} are not a JSON object: {text[:80]!r}")
    return values


def _warn_outside_volador(stacklevel=4):
    global _warned_outside_volador
    if not _warned_outside_volador:
        _warned_outside_volador = True
        warnings.warn(f"not run by Volador (neither {HPARAMS_ENV} nor {HPARAMS_FILE_ENV} is set): "
                      "no hyperparameters or data, get_parameter() and get_data() return {} and defaults; "
                      "checkpoint() saves nothing",
                      RuntimeWarning, stacklevel=stacklevel)


def _lookup(hparams, name):
    if name in hparams:
        return hparams[name]
    value = hparams
    for part in name.split("."):
        if not isinstance(value, dict):
            raise KeyError(name)
        value = value[part]
    return value


def _finite(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number such as 0.91, got {type(value).__name__} {value!r}; "
                        "convert a tensor with float(t)")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{what} {value!r} is too large for a float") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} must be finite, got {number!r}")
    return number


def _step(step):
    if step is None:
        return {}
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise TypeError(f"step must be a non-negative int or None, got {type(step).__name__} {step!r}")
    if step < 0:
        raise ValueError(f"step must be a non-negative int or None, got {step!r}")
    return {"step": int(step)}


def _write_report(record):
    line = REPORT_PREFIX + json.dumps(record, allow_nan=False) + "\n"
    with _write_lock:
        sys.stdout.write(line)
        sys.stdout.flush()
