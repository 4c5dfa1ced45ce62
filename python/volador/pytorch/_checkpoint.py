"""The checkpoint format: one torch.save'd dict in `<dir>/state_dict.pth`.

Keys: models_state_dict, optimizers_state_dict, lr_schedulers_state_dict
(lists, in wrapping order), callbacks (dict by callback name), plus
grad_scaler_state_dict, rng_state (python, numpy, torch, cuda) and
batches_trained (the data position). Restoring it into a freshly built trial
continues training bit for bit as if never stopped (on CPU).
"""

import os
import random
from typing import Any, Dict

import numpy
import torch

from volador.pytorch._callback import PyTorchCallback
from volador.pytorch._context import PyTorchTrialContext

CHECKPOINT_FILE = "state_dict.pth"


def save_checkpoint(directory: str, context: PyTorchTrialContext,
                    callbacks: Dict[str, PyTorchCallback], batches_trained: int) -> None:
    """Writes the trial's state into `directory` (which must exist)."""
    state = {
        "models_state_dict": [model.state_dict() for model in context.models],
        "optimizers_state_dict": [optimizer.state_dict() for optimizer in context.optimizers],
        "lr_schedulers_state_dict": [scheduler.state_dict() for scheduler in context.lr_schedulers],
        "callbacks": {name: callback.state_dict() for name, callback in callbacks.items()},
        "grad_scaler_state_dict": context.grad_scaler.state_dict(),
        "rng_state": _rng_state(),
        "batches_trained": batches_trained,
    }
    torch.save(state, os.path.join(directory, CHECKPOINT_FILE))


def load_checkpoint(directory: str, context: PyTorchTrialContext,
                    callbacks: Dict[str, PyTorchCallback]) -> int:
    """Restores what save_checkpoint wrote into a trial built the same way; returns batches_trained."""
    state = torch.load(os.path.join(directory, CHECKPOINT_FILE), map_location="cpu")
    _load_each("models", context.models, state["models_state_dict"])
    _load_each("optimizers", context.optimizers, state["optimizers_state_dict"])
    _load_each("LR schedulers", context.lr_schedulers, state["lr_schedulers_state_dict"])
    for name, callback in callbacks.items():
        if name in state["callbacks"]:
            callback.load_state_dict(state["callbacks"][name])
    context.grad_scaler.load_state_dict(state["grad_scaler_state_dict"])
    _set_rng_state(state["rng_state"])
    return int(state["batches_trained"])


def _load_each(what: str, objects: list, states: list) -> None:
    if len(objects) != len(states):
        raise ValueError(f"the checkpoint holds {len(states)} {what} but the trial wrapped {len(objects)}")
    for target, state in zip(objects, states):
        target.load_state_dict(state)


def _rng_state() -> Dict[str, Any]:
    return {
        "python": random.getstate(),
        "numpy": numpy.random.get_state(),
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }


def _set_rng_state(state: Dict[str, Any]) -> None:
    random.setstate(state["python"])
    numpy.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if torch.cuda.is_available() and state["cuda"]:
        torch.cuda.set_rng_state_all(state["cuda"])
