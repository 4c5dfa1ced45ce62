"""Compatibility with the manual's `determined` imports, backed by Volador.

`import determined as det; det.pytorch.PyTorchTrial` and
`from determined.pytorch import DataLoader, PyTorchTrial, PyTorchTrialContext, LRScheduler`
give Volador's classes. Submodules load on first use, so importing this
package does not import torch.
"""

import importlib

_SUBMODULES = ("pytorch", "keras")


def __getattr__(name: str):
    """Loads the submodule `name` on first access (det.pytorch, det.keras)."""
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
