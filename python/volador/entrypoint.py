"""Loading a trial class named by an experiment's entrypoint, `model_def:MyTrial`."""

import importlib
import os
import sys
import traceback
from typing import Tuple


class TrialLoadError(ImportError):
    """The entrypoint's trial class could not be loaded; the message says why."""


def load_trial_class(entrypoint: str, folder: str = ".") -> type:
    """Imports module `file` of `file:Class` from `folder` and returns its PyTorchTrial subclass `Class`.

    `folder` is put first on sys.path, so the module can import its siblings.
    Raises TrialLoadError naming the file and class when the entrypoint is
    malformed, the file is missing, importing it raises (with the
    traceback), the class is missing, or it is not a PyTorchTrial subclass.
    """
    module_name, class_name = _split(entrypoint)
    module = _import(module_name, os.path.abspath(folder))
    trial_class = getattr(module, class_name, None)
    if trial_class is None:
        defined = ", ".join(_classes_in(module)) or "no classes"
        raise TrialLoadError(f"{_file_of(module_name)} has no class {class_name!r} "
                             f"(entrypoint {entrypoint!r}); it defines: {defined}")
    _check_is_trial(trial_class, entrypoint)
    return trial_class


def _split(entrypoint: str) -> Tuple[str, str]:
    module_name, separator, class_name = entrypoint.partition(":")
    if not separator or not module_name or not class_name:
        raise TrialLoadError(f"entrypoint {entrypoint!r} is not of the form file:Class (e.g. model_def:MyTrial)")
    return module_name, class_name


def _import(module_name: str, folder: str):
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if module_name == error.name or module_name.startswith(f"{error.name}."):
            raise TrialLoadError(f"{_file_of(module_name)} not found in {folder}") from None
        raise TrialLoadError(_import_failure(module_name)) from error
    except (Exception, SystemExit) as error:
        raise TrialLoadError(_import_failure(module_name)) from error


def _import_failure(module_name: str) -> str:
    return f"importing {_file_of(module_name)} raised:\n{traceback.format_exc()}"


def _check_is_trial(trial_class, entrypoint: str) -> None:
    from volador.pytorch import PyTorchTrial  # torch is needed only once a trial is loaded

    if not isinstance(trial_class, type) or not issubclass(trial_class, PyTorchTrial):
        raise TrialLoadError(f"{entrypoint} is not a PyTorchTrial subclass (derive it from "
                             f"determined.pytorch.PyTorchTrial or volador.pytorch.PyTorchTrial)")


def _file_of(module_name: str) -> str:
    return module_name.replace(".", os.sep) + ".py"


def _classes_in(module) -> list:
    return sorted(name for name, value in vars(module).items()
                  if isinstance(value, type) and value.__module__ == module.__name__)
