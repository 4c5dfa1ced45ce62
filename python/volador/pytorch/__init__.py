"""The manual's PyTorch Trial API (also importable as determined.pytorch).

A user's model_def.py subclasses PyTorchTrial; Volador builds it with a
PyTorchTrialContext and runs it through a TrialController.
"""

from volador.pytorch._callback import PyTorchCallback
from volador.pytorch._context import DistributedContext, PyTorchTrialContext
from volador.pytorch._controller import TrialController
from volador.pytorch._data import DataLoader, TorchData, to_device
from volador.pytorch._lr_scheduler import LRScheduler
from volador.pytorch._trial import PyTorchTrial

__all__ = [
    "DataLoader",
    "DistributedContext",
    "LRScheduler",
    "PyTorchCallback",
    "PyTorchTrial",
    "PyTorchTrialContext",
    "TorchData",
    "TrialController",
    "to_device",
]
