"""Which records each rank trains and evaluates on.

Training: global batch b (0-based, counted across epochs) belongs to epoch
b // batches_per_epoch, where batches_per_epoch = records // global_batch_size
(a partial batch at the end of an epoch is dropped). Epoch e's order is the
permutation numpy.random.default_rng((seed, e)).permutation(records) when the
loader shuffles, and range(records) when it does not; batch b
is the slice [i*G, (i+1)*G) of that order with i = b % batches_per_epoch, and
rank r of `size` takes the contiguous sub-slice [r*P, (r+1)*P), P = G / size.

Validation: rank r evaluates positions [r*n // size, (r+1)*n // size) of the
validation order (range(n), or the seeded permutation of epoch 0 when the
loader shuffles) in batches of the loader's batch size (P unless given), so
every record is evaluated exactly once across the ranks; with drop_last a
rank's last partial batch is left out.
"""

from typing import Iterator, List, Optional

import numpy


def epoch_order(seed: int, epoch: int, records: int) -> numpy.ndarray:
    """The order of the records in `epoch` when shuffling: a seeded permutation of range(records)."""
    return numpy.random.default_rng((seed, epoch)).permutation(records)


class TrainingSchedule:
    """Maps global batch numbers to the training record indices of one rank."""

    def __init__(self, records: int, global_batch_size: int, seed: int, rank: int, size: int, shuffle: bool = True):
        if records < global_batch_size:
            raise ValueError(
                f"the training data set holds {records} records, fewer than one "
                f"global batch ({global_batch_size})")
        self.batches_per_epoch = records // global_batch_size
        self._records = records
        self._global_batch_size = global_batch_size
        self._per_slot = global_batch_size // size
        self._seed = seed
        self._rank = rank
        self._shuffle = shuffle
        self._cached_epoch = None
        self._cached_order = None

    def epoch_of(self, batch: int) -> int:
        """The epoch that global batch `batch` belongs to."""
        return batch // self.batches_per_epoch

    def ends_epoch(self, batch: int) -> bool:
        """Whether `batch` is the last batch of its epoch."""
        return (batch + 1) % self.batches_per_epoch == 0

    def rank_indices(self, batch: int) -> List[int]:
        """This rank's record indices in global batch `batch`."""
        order = self._order(self.epoch_of(batch))
        first = (batch % self.batches_per_epoch) * self._global_batch_size
        first += self._rank * self._per_slot
        return order[first:first + self._per_slot].tolist()

    def index_batches(self, start_batch: int, batches: int) -> Iterator[List[int]]:
        """This rank's record indices for batches start_batch .. start_batch + batches - 1."""
        for batch in range(start_batch, start_batch + batches):
            yield self.rank_indices(batch)

    def _order(self, epoch: int) -> numpy.ndarray:
        if epoch != self._cached_epoch:
            self._cached_order = (epoch_order(self._seed, epoch, self._records) if self._shuffle
                                  else numpy.arange(self._records))
            self._cached_epoch = epoch
        return self._cached_order


def validation_batches(records: int, batch_size: int, rank: int, size: int,
                       order: Optional[numpy.ndarray] = None, drop_last: bool = False) -> List[List[int]]:
    """This rank's contiguous share of the `records` validation records (of `order`, range(records) if none),
    in batches of `batch_size`; without the last partial batch when `drop_last`."""
    first, end = rank * records // size, (rank + 1) * records // size
    positions = [list(range(start, min(start + batch_size, end))) for start in range(first, end, batch_size)]
    if drop_last and positions and len(positions[-1]) < batch_size:
        positions.pop()
    if order is None:
        return positions
    return [order[batch].tolist() for batch in positions]
