"""The manual's MNIST PyTorchTrial as bench/training runs it: examples/mnist_pytorch's
MNistTrial (its train_batch and evaluate_batch) with the model, optimizer and
data built by `build_model`, `build_optimizer`, `build_scheduler` and
`digits_datasets`, which bench_training.py's plain PyTorch loop shares, so both
variants train exactly the same model on the same records.

The model, optimizer (Adadelta), loss and metrics are the manual's; the data
are scikit-learn's bundled 8x8 digits, upsampled to MNIST's 28x28 (1,500
training records, 297 validation). An optional StepLR (hparam lr_gamma,
stepped every epoch) exercises Volador's LR-scheduler path; hparam amp turns
on configure_apex_amp (O1); hparam torch_threads, when given, fixes
torch.set_num_threads in the worker.

Imports the example's model_def and layers: bench_training.py puts
examples/mnist_pytorch on sys.path, end_to_end.py ships its files in the
experiment's project folder.
"""

from typing import Any, Dict, Tuple

import torch
from torch import nn

from determined.pytorch import DataLoader, LRScheduler, PyTorchTrialContext
from layers import Flatten
from model_def import MNistTrial

_VALIDATION_RECORDS = 297  # of the 1,797 digits; the other 1,500 train
_MNIST_MEAN, _MNIST_STD = 0.1307, 0.3081
_DATASETS = {}


class DigitsDataset(torch.utils.data.Dataset):
    """(image [1, 28, 28] float32, label int) records, like torchvision's MNIST after ToTensor/Normalize."""

    def __init__(self, images: torch.Tensor, labels: torch.Tensor):
        self.images, self.labels = images, labels

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> Tuple[torch.Tensor, int]:
        return self.images[index], int(self.labels[index])


def digits_datasets() -> Tuple[DigitsDataset, DigitsDataset]:
    """(training, validation): scikit-learn's digits upsampled bilinearly to 28x28 and normalised; built once."""
    if not _DATASETS:
        from sklearn.datasets import load_digits

        digits = load_digits()
        images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0
        images = nn.functional.interpolate(images, size=(28, 28), mode="bilinear", align_corners=False)
        images = ((images - _MNIST_MEAN) / _MNIST_STD).contiguous()
        labels = torch.tensor(digits.target, dtype=torch.int64)
        split = len(labels) - _VALIDATION_RECORDS
        _DATASETS["train"] = DigitsDataset(images[:split], labels[:split])
        _DATASETS["validation"] = DigitsDataset(images[split:], labels[split:])
    return _DATASETS["train"], _DATASETS["validation"]


def build_model(hparams: Dict[str, Any]) -> nn.Module:
    """The manual's MNIST conv net."""
    return nn.Sequential(
        nn.Conv2d(1, hparams["n_filters1"], 3, 1),
        nn.ReLU(),
        nn.Conv2d(hparams["n_filters1"], hparams["n_filters2"], 3),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Dropout2d(hparams["dropout1"]),
        Flatten(),
        nn.Linear(144 * hparams["n_filters2"], 128),
        nn.ReLU(),
        nn.Dropout2d(hparams["dropout2"]),
        nn.Linear(128, 10),
        nn.LogSoftmax(dim=1),
    )


def build_optimizer(hparams: Dict[str, Any], model: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.Adadelta(model.parameters(), lr=hparams["learning_rate"])


def build_scheduler(hparams: Dict[str, Any], optimizer: torch.optim.Optimizer):
    """StepLR(step_size=1, gamma=lr_gamma), stepped after every epoch; None without lr_gamma."""
    gamma = hparams.get("lr_gamma")
    return None if gamma is None else torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=gamma)


class MNistBenchTrial(MNistTrial):
    """The example's MNistTrial; __init__ and the data loaders are replaced (the example's __init__ is not run)."""

    def __init__(self, context: PyTorchTrialContext):
        self.context = context
        hparams = context.get_hparams()
        if hparams.get("torch_threads"):
            torch.set_num_threads(int(hparams["torch_threads"]))
        self.model = self.context.wrap_model(build_model(hparams))
        self.optimizer = self.context.wrap_optimizer(build_optimizer(hparams, self.model))
        scheduler = build_scheduler(hparams, self.optimizer)
        if scheduler is not None:
            self.context.wrap_lr_scheduler(scheduler, step_mode=LRScheduler.StepMode.STEP_EVERY_EPOCH)
        if hparams.get("amp", False):
            self.model, self.optimizer = self.context.configure_apex_amp(
                models=self.model, optimizers=self.optimizer, opt_level="O1")

    def build_training_data_loader(self):
        return DataLoader(digits_datasets()[0], batch_size=self.context.get_per_slot_batch_size(), shuffle=True)

    def build_validation_data_loader(self):
        return DataLoader(digits_datasets()[1], batch_size=self.context.get_per_slot_batch_size())
