"""PyTorchTrial: the class a user's model_def.py subclasses (the manual's API)."""

import abc
from typing import Any, Dict

from volador.pytorch._callback import PyTorchCallback
from volador.pytorch._context import PyTorchTrialContext
from volador.pytorch._data import DataLoader, TorchData


class PyTorchTrial(abc.ABC):
    """A trial: builds and wraps its models in __init__, provides data loaders and per-batch steps.

    Volador calls train_batch for each batch it draws from the training data
    and evaluate_batch (with the models in eval mode, without gradients) for
    each validation batch; it averages the returned metrics over batches and
    ranks.
    """

    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context

    @abc.abstractmethod
    def build_training_data_loader(self) -> DataLoader:
        """The training data (Volador draws its batches, see volador.pytorch._sampling)."""

    @abc.abstractmethod
    def build_validation_data_loader(self) -> DataLoader:
        """The validation data (every record is evaluated once per validation)."""

    @abc.abstractmethod
    def train_batch(self, batch: TorchData, epoch_idx: int, batch_idx: int) -> Dict[str, Any]:
        """One optimisation step on `batch` (global batch `batch_idx` of epoch `epoch_idx`); returns metrics."""

    @abc.abstractmethod
    def evaluate_batch(self, batch: TorchData) -> Dict[str, Any]:
        """The metrics of `batch` under the current models."""

    def build_callbacks(self) -> Dict[str, PyTorchCallback]:
        """The trial's callbacks by name (none unless overridden)."""
        return {}
