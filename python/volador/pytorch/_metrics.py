"""Averaging the metrics of train_batch/evaluate_batch over batches and ranks.

Training metrics: each rank averages each metric over the batches that
reported it; the ranks' averages are then averaged. Validation metrics: each
batch's value is weighted by the batch's record count; the weighted sums and
the counts are summed over ranks, so the result is the mean over the whole
validation set whatever the number of ranks. Sums travel as float32 (the
communicator's type); a one-rank trial communicates nothing and keeps float64. Every rank must report the same
metric names (checked; all ranks raise together when they do not).
"""

import zlib
from typing import Any, Dict, List, Mapping, Tuple

import numpy
import torch

from volador._comm import Communicator

# Name checks compare small integer hashes whose squares sum exactly in float32.
_NAME_HASHES = 4
_HASH_RANGE = 64


class MetricAccumulator:
    """Per-metric weighted sums over batches, in float64.

    A tensor metric is only kept (detached) as it arrives: no device
    operation runs per batch. Kept tensors are summed, FOLD_EVERY at a time
    and at totals(), with one stack and one product each, so a GPU trial
    pays no kernel launch per batch for its metrics.
    """

    FOLD_EVERY = 256

    def __init__(self, producer: str):
        self._producer = producer
        self._sums: Dict[str, Any] = {}  # the folded sum: a float, or a float64 tensor on the metric's device
        self._pending: Dict[str, List[Tuple[torch.Tensor, float]]] = {}  # tensors not folded yet, with weights
        self._weights: Dict[str, float] = {}

    def add(self, metrics: Any, weight: float = 1.0) -> None:
        """Adds one batch's metrics (a dict of scalars or one-element tensors) with `weight`."""
        if not isinstance(metrics, Mapping):
            raise TypeError(f"{self._producer} must return a dict of metrics, not {type(metrics).__name__}")
        for name, value in metrics.items():
            scalar = self._scalar(name, value)
            if isinstance(scalar, torch.Tensor):
                pending = self._pending.setdefault(name, [])
                pending.append((scalar, weight))
                if len(pending) >= self.FOLD_EVERY:
                    self._fold(name)
            else:
                self._sums[name] = self._sums.get(name, 0.0) + scalar * weight
            self._weights[name] = self._weights.get(name, 0.0) + weight

    def totals(self) -> Tuple[Dict[str, float], Dict[str, float]]:
        """The weighted sums and the total weights, per metric name."""
        for name in list(self._pending):
            self._fold(name)
        return {name: float(value) for name, value in self._sums.items()}, dict(self._weights)

    def means(self) -> Dict[str, float]:
        """The weighted mean of each metric."""
        sums, weights = self.totals()
        return {name: sums[name] / weights[name] for name in sums}

    def _fold(self, name: str) -> None:
        pending = self._pending.pop(name, [])
        if not pending:
            return
        values = torch.stack([value for value, _ in pending]).double()
        weights = torch.tensor([weight for _, weight in pending], dtype=torch.float64, device=values.device)
        self._sums[name] = self._sums.get(name, 0.0) + torch.dot(values, weights)

    def _scalar(self, name: str, value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            if value.numel() != 1:
                raise ValueError(f"{self._producer} metric {name!r} is a tensor of shape "
                                 f"{tuple(value.shape)}; metrics must be scalars")
            return value.detach().reshape(())
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{self._producer} metric {name!r} is {value!r}, not a number") from None


def mean_over_ranks(means: Dict[str, float], communicator: Communicator) -> Dict[str, float]:
    """The average over ranks of each rank's `means`."""
    names = sorted(means)
    sums = _sum_over_ranks(names, [means[name] for name in names], communicator)
    return {name: total / communicator.size for name, total in zip(names, sums)}


def weighted_mean_over_ranks(sums: Dict[str, float], weights: Dict[str, float],
                             communicator: Communicator) -> Dict[str, float]:
    """(sum over ranks of `sums`) / (sum over ranks of `weights`), per metric."""
    names = sorted(sums)
    values = [sums[name] for name in names] + [weights[name] for name in names]
    totals = _sum_over_ranks(names, values, communicator)
    return {name: totals[i] / totals[len(names) + i] for i, name in enumerate(names)}


def _sum_over_ranks(names: List[str], values: List[float], communicator: Communicator) -> List[float]:
    """The sums over ranks of `values` (one float32 allreduce), which describe `names`."""
    if communicator.size == 1:
        return values
    _check_same_names(names, communicator)
    buffer = numpy.array(values, dtype=numpy.float32)
    communicator.allreduce_(buffer, "sum")
    return buffer.tolist()


def _check_same_names(names: List[str], communicator: Communicator) -> None:
    """Raises on every rank at once when the ranks' metric names differ."""
    encoded = "\0".join(names).encode()
    hashes = [zlib.crc32(encoded, salt) % _HASH_RANGE for salt in range(_NAME_HASHES)]
    buffer = numpy.array([1.0] + hashes + [h * h for h in hashes], dtype=numpy.float32)
    communicator.allreduce_(buffer, "sum")
    ranks, sums, squares = int(buffer[0]), buffer[1:1 + _NAME_HASHES], buffer[1 + _NAME_HASHES:]
    if any(ranks * int(sq) != int(s) ** 2 for s, sq in zip(sums, squares)):
        raise ValueError(f"the ranks report different metric names; rank {communicator.rank} "
                         f"reports {names}")
