"""Small trials the Python tests train (importable by spawned test processes)."""

import numpy
import torch
from torch import nn

from volador.pytorch import DataLoader, LRScheduler, PyTorchCallback, PyTorchTrial, PyTorchTrialContext


def regression_data(records: int, seed: int) -> torch.utils.data.TensorDataset:
    """`records` noisy samples of a fixed linear function of 5 features."""
    rng = numpy.random.default_rng(seed)
    inputs = rng.normal(size=(records, 5)).astype(numpy.float32)
    targets = inputs @ numpy.arange(1, 6, dtype=numpy.float32) + rng.normal(scale=0.1, size=records)
    return torch.utils.data.TensorDataset(torch.from_numpy(inputs), torch.from_numpy(targets.astype(numpy.float32)))


class EpochCounter(PyTorchCallback):
    """Counts epoch starts and validations; its state goes into checkpoints."""

    def __init__(self):
        self.epochs_started = 0
        self.validations = 0

    def on_training_epoch_start(self, epoch_idx):
        self.epochs_started += 1

    def on_validation_end(self, metrics):
        self.validations += 1

    def state_dict(self):
        return {"epochs_started": self.epochs_started, "validations": self.validations}

    def load_state_dict(self, state):
        self.epochs_started = state["epochs_started"]
        self.validations = state["validations"]


class RegressionTrial(PyTorchTrial):
    """A small MLP regression. Hyperparameters: lr, optimizer (sgd|adam), lr_step_mode
    (a StepMode name), dropout, clip_norm (0: none), rank_dependent_init, train_records."""

    def __init__(self, context: PyTorchTrialContext):
        self.context = context
        if context.get_hparams().get("rank_dependent_init"):
            torch.manual_seed(1000 + context.distributed.get_rank())
        self.model = context.wrap_model(nn.Sequential(
            nn.Linear(5, 16), nn.Tanh(), nn.Dropout(context.get_hparams().get("dropout", 0.0)), nn.Linear(16, 1)))
        optimizer_class = torch.optim.Adam if context.get_hparams().get("optimizer") == "adam" else torch.optim.SGD
        self.optimizer = context.wrap_optimizer(optimizer_class(self.model.parameters(), lr=context.get_hparam("lr")))
        step_mode = LRScheduler.StepMode[context.get_hparams().get("lr_step_mode", "STEP_EVERY_EPOCH")]
        self.scheduler = context.wrap_lr_scheduler(
            torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.9), step_mode)
        self.epoch_counter = EpochCounter()

    def build_callbacks(self):
        return {"epoch_counter": self.epoch_counter}

    def build_training_data_loader(self):
        records = self.context.get_hparams().get("train_records", 96)
        return DataLoader(regression_data(records, seed=1), batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self):
        return DataLoader(regression_data(30, seed=2), batch_size=self.context.get_per_slot_batch_size())

    def train_batch(self, batch, epoch_idx, batch_idx):
        inputs, targets = batch
        loss = nn.functional.mse_loss(self.model(inputs).squeeze(1), targets)
        self.context.backward(loss)
        clip_norm = self.context.get_hparams().get("clip_norm", 0)
        clip = (lambda params: nn.utils.clip_grad_norm_(params, clip_norm)) if clip_norm else None
        self.context.step_optimizer(self.optimizer, clip_grads=clip)
        return {"loss": loss, "lr": self.scheduler.get_last_lr()[0]}

    def evaluate_batch(self, batch):
        inputs, targets = batch
        error = self.model(inputs).squeeze(1) - targets
        return {"loss": (error ** 2).mean(), "mae": error.abs().mean().item()}


class IndexDataset(torch.utils.data.Dataset):
    """Record i is a nested structure holding i."""

    def __init__(self, records: int):
        self.records = records

    def __len__(self):
        return self.records

    def __getitem__(self, index):
        return {"index": index, "pair": (numpy.array([index, -index]), torch.tensor(float(index)))}


class IndexTrial(PyTorchTrial):
    """Reports which records it sees. Hyperparameters: train_records, validation_records, and
    train_loader / validation_loader: more DataLoader arguments."""

    def __init__(self, context: PyTorchTrialContext):
        self.context = context
        self.model = context.wrap_model(nn.Linear(1, 1))
        self.seen_training = []
        self.seen_validation = []

    def build_training_data_loader(self):
        arguments = {"shuffle": True, **self.context.get_hparams().get("train_loader", {})}
        return DataLoader(IndexDataset(self.context.get_hparam("train_records")), **arguments)

    def build_validation_data_loader(self):
        return DataLoader(IndexDataset(self.context.get_hparam("validation_records")),
                          **self.context.get_hparams().get("validation_loader", {}))

    def train_batch(self, batch, epoch_idx, batch_idx):
        self.seen_training.append(batch["index"].tolist())
        return {"mean_index": batch["index"].float().mean(), "batch_idx": batch_idx, "epoch_idx": epoch_idx}

    def evaluate_batch(self, batch):
        self.seen_validation.append(batch["index"].tolist())
        return {"mean_index": batch["pair"][1].mean()}
