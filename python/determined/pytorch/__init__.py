"""determined.pytorch: Volador's PyTorch Trial API under the manual's name."""

import importlib

from volador.pytorch import (DataLoader, LRScheduler, PyTorchCallback, PyTorchTrial, PyTorchTrialContext,
                             TorchData, to_device)

__all__ = ["DataLoader", "LRScheduler", "PyTorchCallback", "PyTorchTrial", "PyTorchTrialContext", "TorchData",
           "to_device"]


def __getattr__(name: str):
    """Loads det.pytorch.deepspeed on first access (which explains that it is not available)."""
    if name == "deepspeed":
        return importlib.import_module(f"{__name__}.deepspeed")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
