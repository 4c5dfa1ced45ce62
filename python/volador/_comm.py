"""The communicator a trial's ranks use, and its one-rank implementation.

A communicator connects the ranks of one trial. Every rank must make the same
calls in the same order with arrays of the same shape; all calls block until
every rank has made them. The native module provides the multi-rank one.
"""

from typing import Protocol

import numpy


class Communicator(Protocol):
    """The collective operations the Trial API needs (all synchronous)."""

    rank: int
    size: int
    local_rank: int
    local_size: int

    def allreduce_(self, array: numpy.ndarray, op: str) -> None:
        """Reduces a C-contiguous float32 `array` in place over all ranks; op is "sum" or "avg"."""

    def broadcast_(self, array: numpy.ndarray, root: int) -> None:
        """Overwrites a C-contiguous `array` (any dtype) in place with rank `root`'s bytes."""

    def barrier(self) -> None:
        """Returns once every rank has called barrier()."""


# Optional: a communicator may also offer `allreduce_async_(array, op)`, which
# queues the reduction and returns a handle whose `wait()` blocks until it is
# done (the native module's session does); the context then starts gradient
# buckets during backward instead of in step_optimizer.


class SingleRank:
    """The communicator of a one-rank trial: every collective is the identity."""

    rank = 0
    size = 1
    local_rank = 0
    local_size = 1

    def allreduce_(self, array: numpy.ndarray, op: str) -> None:
        """Leaves `array` as it is (the reduction over one rank); checks `op`."""
        if op not in ("sum", "avg"):
            raise ValueError(f"allreduce_ op must be 'sum' or 'avg', not {op!r}")

    def broadcast_(self, array: numpy.ndarray, root: int) -> None:
        """Leaves `array` as it is (this rank is the root); checks `root`."""
        if root != 0:
            raise ValueError(f"broadcast_ root {root} is not a rank of a one-rank trial")

    def barrier(self) -> None:
        """Returns at once."""
