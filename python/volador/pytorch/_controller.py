"""TrialController: runs train, validate and checkpoint workloads against one rank's trial.

Data and metric semantics are those of the native runtime, so a trial gives
the same metrics (within float tolerance) on any number of ranks: see
_sampling (which records), _metrics (how metrics are averaged) and
_checkpoint (the format). All ranks must run the same workloads in the same
order, except checkpoints, which only rank 0 runs (saving communicates nothing).
"""

import random
from typing import Dict, Type

import numpy
import torch

from volador.pytorch._checkpoint import load_checkpoint, save_checkpoint
from volador.pytorch._context import PyTorchTrialContext
from volador.pytorch._data import DataLoader, to_device
from volador.pytorch._metrics import MetricAccumulator, mean_over_ranks, weighted_mean_over_ranks
from volador.pytorch._sampling import TrainingSchedule, epoch_order, validation_batches
from volador.pytorch._trial import PyTorchTrial


class TrialController:
    """Builds a trial on this rank (after seeding python, numpy and torch) and runs workloads on it."""

    def __init__(self, trial_class: Type[PyTorchTrial], context: PyTorchTrialContext):
        _seed_everything(context.get_trial_seed())
        self.context = context
        self.trial = trial_class(context)
        self.batches_trained = 0
        self._communicator = context.distributed.communicator
        self._training = _data_loader(self.trial.build_training_data_loader(), "build_training_data_loader")
        self._validation = _data_loader(self.trial.build_validation_data_loader(), "build_validation_data_loader")
        self._callbacks = self.trial.build_callbacks()
        self._training.check_training(context.get_per_slot_batch_size(), "build_training_data_loader")
        self._schedule = TrainingSchedule(
            self._training.records(), context.get_global_batch_size(), context.get_trial_seed(),
            self._communicator.rank, self._communicator.size, shuffle=self._training.shuffle)
        self._check_validation_shares()

    @property
    def batches_per_epoch(self) -> int:
        """Full global batches per pass over the training data."""
        return self._schedule.batches_per_epoch

    def train(self, start_batch: int, batches: int) -> Dict[str, float]:
        """Trains global batches [start_batch, start_batch + batches); returns metrics averaged over them and ranks."""
        self._set_training_mode(True)
        accumulator = MetricAccumulator("train_batch")
        index_batches = self._schedule.index_batches(start_batch, batches)
        loaded = self._training.load(index_batches, self._loader_generator(start_batch))
        for batch_idx, batch in zip(range(start_batch, start_batch + batches), loaded):
            accumulator.add(self._train_one(batch_idx, batch))
        self.batches_trained = start_batch + batches
        return mean_over_ranks(accumulator.means(), self._communicator)

    def validate(self) -> Dict[str, float]:
        """Evaluates this rank's share of the validation set; returns record-weighted means over all ranks."""
        self._set_training_mode(False)
        accumulator = MetricAccumulator("evaluate_batch")
        index_batches = self._validation_batches()
        with torch.no_grad():
            for indices, batch in zip(index_batches, self._validation.load(index_batches, torch.Generator())):
                accumulator.add(self.trial.evaluate_batch(to_device(batch, self.context.device)), len(indices))
        metrics = weighted_mean_over_ranks(*accumulator.totals(), self._communicator)
        for callback in self._callbacks.values():
            callback.on_validation_end(metrics)
        return metrics

    def save(self, directory: str) -> None:
        """Writes the checkpoint into the existing, empty `directory`; communicates nothing.

        Only rank 0 is sent checkpoint workloads (the other ranks go on to the
        next workload), so saving must not wait for them. On ranks other than
        0 it does nothing.
        """
        if self._communicator.rank == 0:
            save_checkpoint(directory, self.context, self._callbacks, self.batches_trained)

    def load(self, directory: str) -> None:
        """Restores the checkpoint in `directory` (every rank reads the same file)."""
        self.batches_trained = load_checkpoint(directory, self.context, self._callbacks)

    def _check_validation_shares(self) -> None:
        """Raises, on every rank alike, when some rank would have no validation batch to evaluate."""
        records, size = self._validation.records(), self._communicator.size
        if records < size:
            raise ValueError(f"the validation data set holds {records} records, fewer than the {size} ranks")
        batch_size = self._validation_batch_size()
        if self._validation.drop_last and records // size < batch_size:
            raise ValueError(
                f"build_validation_data_loader: DataLoader(drop_last=True) leaves a rank nothing to evaluate: "
                f"{records} records over {size} ranks is fewer than one batch of {batch_size} each")

    def _validation_batch_size(self) -> int:
        return self._validation.batch_size or self.context.get_per_slot_batch_size()

    def _validation_batches(self):
        records = self._validation.records()
        order = epoch_order(self.context.get_trial_seed(), 0, records) if self._validation.shuffle else None
        return validation_batches(records, self._validation_batch_size(),
                                  self._communicator.rank, self._communicator.size, order,
                                  drop_last=bool(self._validation.drop_last))

    def _train_one(self, batch_idx: int, batch) -> Dict:
        epoch_idx = self._schedule.epoch_of(batch_idx)
        if batch_idx % self.batches_per_epoch == 0:
            for callback in self._callbacks.values():
                callback.on_training_epoch_start(epoch_idx)
        metrics = self.trial.train_batch(to_device(batch, self.context.device), epoch_idx, batch_idx)
        self.context._after_train_batch(batch_idx, epoch_idx, self._schedule.ends_epoch(batch_idx))
        return metrics

    def _set_training_mode(self, training: bool) -> None:
        for model in self.context.models:
            model.train(training)

    def _loader_generator(self, start_batch: int) -> torch.Generator:
        """Seeds the data loader's workers from (trial seed, start batch, rank), not from torch's global RNG."""
        seed = numpy.random.SeedSequence(
            (self.context.get_trial_seed(), start_batch, self._communicator.rank)).generate_state(1)[0]
        return torch.Generator().manual_seed(int(seed))


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    numpy.random.seed(seed)
    torch.manual_seed(seed)


def _data_loader(loader, method: str) -> DataLoader:
    if not isinstance(loader, DataLoader):
        raise TypeError(f"{method}() must return a volador.pytorch.DataLoader (determined.pytorch.DataLoader), "
                        f"not {type(loader).__name__}")
    return loader
