"""The API surface: volador.pytorch, the determined shim, and the manual's MNIST model_def unchanged."""

import os
import subprocess
import sys
import tempfile
import unittest

import determined as det
import determined.pytorch
import volador.pytorch
from volador import local
from volador.entrypoint import load_trial_class
from volador.pytorch import PyTorchTrialContext

PYTHON_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The manual's MNIST tutorial code; only the data source differs (scikit-learn's
# 8x8 digits padded to 28x28 instead of a download).
MANUAL_MNIST = '''
from typing import Any, Dict, Sequence, Tuple, Union, cast

import numpy as np
import torch
from sklearn.datasets import load_digits
from torch import nn

from determined.pytorch import DataLoader, PyTorchTrial, PyTorchTrialContext

TorchData = Union[Dict[str, torch.Tensor], Sequence[torch.Tensor], torch.Tensor]


class Flatten(nn.Module):
    def forward(self, x):
        return x.view(x.size(0), -1)


def get_dataset(train):
    digits = load_digits()
    images = np.pad(digits.images / 16.0, ((0, 0), (10, 10), (10, 10)))[:, None]
    images = ((images - images.mean()) / images.std()).astype(np.float32)
    part = slice(0, 1500) if train else slice(1500, None)
    return torch.utils.data.TensorDataset(torch.from_numpy(images[part]), torch.from_numpy(digits.target[part]))


class MNistTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext):
        self.context = context
        self.download_directory = f"/tmp/data-rank{self.context.distributed.get_rank()}"
        self.data_downloaded = False
        self.model = self.context.wrap_model(
            nn.Sequential(
                nn.Conv2d(1, self.context.get_hparam("n_filters1"), 3, 1),
                nn.ReLU(),
                nn.Conv2d(
                    self.context.get_hparam("n_filters1"),
                    self.context.get_hparam("n_filters2"),
                    3,
                ),
                nn.ReLU(),
                nn.MaxPool2d(2),
                nn.Dropout2d(self.context.get_hparam("dropout1")),
                Flatten(),
                nn.Linear(144 * self.context.get_hparam("n_filters2"), 128),
                nn.ReLU(),
                nn.Dropout2d(self.context.get_hparam("dropout2")),
                nn.Linear(128, 10),
                nn.LogSoftmax(),
            )
        )
        self.optimizer = self.context.wrap_optimizer(
            torch.optim.Adadelta(
                self.model.parameters(), lr=self.context.get_hparam("learning_rate")
            )
        )

    def build_training_data_loader(self):
        train_data = get_dataset(train=True)
        return DataLoader(train_data, batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self):
        validation_data = get_dataset(train=False)
        return DataLoader(validation_data, batch_size=self.context.get_per_slot_batch_size())

    def train_batch(self, batch: TorchData, epoch_idx: int, batch_idx: int):
        batch = cast(Tuple[torch.Tensor, torch.Tensor], batch)
        data, labels = batch

        output = self.model(data)
        loss = torch.nn.functional.nll_loss(output, labels)

        self.context.backward(loss)
        self.context.step_optimizer(self.optimizer)

        return {"loss": loss}

    def evaluate_batch(self, batch: TorchData):
        batch = cast(Tuple[torch.Tensor, torch.Tensor], batch)
        data, labels = batch

        output = self.model(data)
        validation_loss = torch.nn.functional.nll_loss(output, labels).item()

        pred = output.argmax(dim=1, keepdim=True)
        accuracy = pred.eq(labels.view_as(pred)).sum().item() / len(data)

        return {"validation_loss": validation_loss, "accuracy": accuracy}
'''
MNIST_HPARAMS = {"learning_rate": 1.0, "global_batch_size": 32, "n_filters1": 4, "n_filters2": 8,
                 "dropout1": 0.25, "dropout2": 0.5}


def write_manual_mnist(folder):
    with open(os.path.join(folder, "manual_mnist_def.py"), "w") as file:
        file.write(MANUAL_MNIST)


class ManualMnistTest(unittest.TestCase):
    def test_the_manuals_mnist_trial_trains_unchanged(self):
        with tempfile.TemporaryDirectory() as folder:
            write_manual_mnist(folder)
            trial_class = load_trial_class("manual_mnist_def:MNistTrial", folder)
            lines = []
            metrics = local.run(trial_class, MNIST_HPARAMS, batches=40, scheduling_unit=20, report=lines.append)
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith("batches 0-19: loss="), lines[0])
        self.assertGreater(metrics["accuracy"], 0.4)  # chance is 0.1; 0.66 when written


class ImportSurfaceTest(unittest.TestCase):
    def test_determined_names_are_voladors(self):
        from determined.pytorch import DataLoader, LRScheduler, PyTorchTrial, PyTorchTrialContext

        self.assertIs(PyTorchTrial, volador.pytorch.PyTorchTrial)
        self.assertIs(PyTorchTrialContext, volador.pytorch.PyTorchTrialContext)
        self.assertIs(DataLoader, volador.pytorch.DataLoader)
        self.assertIs(LRScheduler, volador.pytorch.LRScheduler)
        self.assertIs(det.pytorch.PyTorchTrial, volador.pytorch.PyTorchTrial)
        self.assertIs(det.pytorch, determined.pytorch)
        self.assertEqual({mode.name for mode in LRScheduler.StepMode},
                         {"STEP_EVERY_EPOCH", "STEP_EVERY_BATCH", "MANUAL_STEP", "STEP_EVERY_OPTIMIZER_STEP"})

    def test_keras_and_deepspeed_say_they_are_not_available_and_what_to_use(self):
        with self.assertRaisesRegex(ImportError, "determined.keras .*not available in Volador yet.*PyTorchTrial"):
            from determined.keras import TFKerasTrial  # noqa: F401
        with self.assertRaisesRegex(ImportError, "deepspeed .*not available in Volador yet.*PyTorchTrial"):
            det.pytorch.deepspeed  # noqa: B018

    def test_importing_the_packages_does_not_import_torch(self):
        code = ("import sys, volador, determined, volador.entrypoint, volador.worker, volador.local; "
                "sys.exit('torch' in sys.modules)")
        environment = {**os.environ, "PYTHONPATH": PYTHON_ROOT}
        self.assertEqual(subprocess.run([sys.executable, "-c", code], env=environment).returncode, 0)


class ContextTest(unittest.TestCase):
    def test_getters(self):
        context = PyTorchTrialContext({"global_batch_size": 12, "lr": 0.1, "net": {"width": 3}},
                                      trial_seed=4, data_config={"url": "u"}, experiment_id=7, trial_id=31)
        self.assertEqual(context.get_hparam("lr"), 0.1)
        self.assertEqual(context.get_hparam("net"), {"width": 3})
        self.assertEqual(context.get_hparams()["global_batch_size"], 12)
        self.assertEqual((context.get_global_batch_size(), context.get_per_slot_batch_size()), (12, 12))
        self.assertEqual(context.get_data_config(), {"url": "u"})
        self.assertEqual((context.get_experiment_id(), context.get_trial_id(), context.get_trial_seed()), (7, 31, 4))
        distributed = context.distributed
        self.assertEqual((distributed.get_rank(), distributed.get_size(), distributed.get_local_rank(),
                          distributed.get_local_size()), (0, 1, 0, 1))

    def test_per_slot_batch_size_divides_the_global_one(self):
        class ThreeRanks:
            rank, size, local_rank, local_size = 2, 3, 0, 1

        context = PyTorchTrialContext({"global_batch_size": 12}, communicator=ThreeRanks())
        self.assertEqual(context.get_per_slot_batch_size(), 4)
        self.assertEqual(context.distributed.get_rank(), 2)
        with self.assertRaisesRegex(ValueError, "global_batch_size 10 must be positive and divisible by the 3"):
            PyTorchTrialContext({"global_batch_size": 10}, communicator=ThreeRanks())

    def test_missing_hyperparameters_are_named(self):
        with self.assertRaisesRegex(KeyError, "must include global_batch_size"):
            PyTorchTrialContext({"lr": 0.1})
        with self.assertRaisesRegex(KeyError, "'momentum' is not defined; defined: global_batch_size, lr"):
            PyTorchTrialContext({"global_batch_size": 2, "lr": 0.1}).get_hparam("momentum")


if __name__ == "__main__":
    unittest.main()
