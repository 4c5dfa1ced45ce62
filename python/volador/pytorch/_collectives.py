"""Gradient averaging and state broadcast over a communicator, fused into buckets.

Tensors are packed back to back into flat host buffers of at most
`bucket_bytes` (one tensor larger than that travels alone), so many small
tensors cost few collective calls. With one rank nothing is communicated.
OverlappedAverage does the same reduction with each bucket started during
backward, on a communicator that has allreduce_async_.
"""

import os
from typing import Iterator, List, Optional, Sequence

import numpy
import torch

from volador._comm import Communicator

DEFAULT_BUCKET_BYTES = 4 << 20
BUCKET_BYTES_ENV = "VOLADOR_BUCKET_BYTES"
# Byte offsets in a broadcast buffer are aligned so every dtype can be viewed in place.
_ALIGNMENT = 16


def bucket_bytes_setting(explicit: Optional[int] = None) -> int:
    """`explicit` when given, else $VOLADOR_BUCKET_BYTES, else 4 MiB."""
    value = explicit if explicit is not None else int(os.environ.get(BUCKET_BYTES_ENV, DEFAULT_BUCKET_BYTES))
    if value <= 0:
        raise ValueError(f"the gradient bucket size must be positive, not {value}")
    return value


def buckets(sizes: Sequence[int], bucket_bytes: int) -> Iterator[range]:
    """Consecutive index ranges of `sizes` (in bytes) whose totals stay within `bucket_bytes`."""
    start, filled = 0, 0
    for index, size in enumerate(sizes):
        if index > start and filled + size > bucket_bytes:
            yield range(start, index)
            start, filled = index, 0
        filled += size
    if start < len(sizes):
        yield range(start, len(sizes))


def average_gradients(parameters: Sequence[torch.nn.Parameter], communicator: Communicator,
                      bucket_bytes: int) -> None:
    """Replaces each gradient by its mean over ranks; a rank without a gradient counts as zeros.

    A parameter keeps grad None only when it has no gradient on any rank: a
    float32 vector of gradient presence flags travels in the first bucket.
    """
    if communicator.size == 1:
        return
    layout = GradientLayout(parameters, bucket_bytes)
    presence = layout.presence()
    for bucket in range(len(layout.ranges)):
        buffer, views = layout.pack(bucket, presence)
        communicator.allreduce_(buffer, "avg")
        layout.unpack(views, presence)


class GradientLayout:
    """How average_gradients fuses gradients: index 0 the presence flags, index i + 1 parameters[i]."""

    def __init__(self, parameters: Sequence[torch.nn.Parameter], bucket_bytes: int):
        self.parameters = list(parameters)
        self.lengths = [len(self.parameters)] + [p.numel() for p in self.parameters]
        self.ranges = list(buckets([length * 4 for length in self.lengths], bucket_bytes))

    def bucket_parameters(self) -> List[List[int]]:
        """Per bucket, the indices into `parameters` it carries (the flags are not one)."""
        return [[i - 1 for i in bucket if i > 0] for bucket in self.ranges]

    def presence(self) -> torch.Tensor:
        return torch.tensor([p.grad is not None for p in self.parameters], dtype=torch.float32)

    def pack(self, bucket: int, presence: torch.Tensor):
        """A fresh float32 buffer holding bucket `bucket`'s values, and its views by index."""
        indices = self.ranges[bucket]
        buffer = numpy.empty(sum(self.lengths[i] for i in indices), dtype=numpy.float32)
        views = dict(zip(indices, _views(torch.from_numpy(buffer), [self.lengths[i] for i in indices])))
        for i, view in views.items():
            _pack_gradient(view, presence if i == 0 else self.parameters[i - 1].grad)
        return buffer, views

    def unpack(self, views, presence: torch.Tensor) -> None:
        """Writes reduced views back; the flags (bucket 0) update `presence` before the gradients use them."""
        for i, view in views.items():
            if i == 0:
                presence.copy_(view)
            else:
                _unpack_gradient(view, self.parameters[i - 1], present_somewhere=bool(presence[i - 1] > 0))


class BucketLauncher:
    """Which buckets may start their allreduce while backward runs: strictly in bucket order.

    Bucket i may start once every parameter in buckets 0..i is final for this
    backward (mark_ready); bucket 0 also carries every parameter's presence
    flag, so it waits until each parameter either had a gradient before
    backward (it cannot lose it) or is final. finish() releases the rest once
    backward has returned. Every rank thus starts the same buckets in the same
    order, whatever order its gradients arrive in.
    """

    def __init__(self, bucket_parameters: Sequence[Sequence[int]], had_gradient: Sequence[bool]):
        self._buckets = [list(b) for b in bucket_parameters]
        self._ready = [False] * len(had_gradient)
        self._unknown = sum(1 for had in had_gradient if not had)
        self._known = list(had_gradient)
        self._waiting = [len(b) for b in self._buckets]
        self._bucket_of = {j: k for k, bucket in enumerate(self._buckets) for j in bucket}
        self.launched = 0

    def mark_ready(self, parameter: int) -> List[int]:
        """Records that `parameter`'s gradient is final; returns the buckets that may start now, in order."""
        if self._ready[parameter]:
            return []
        self._ready[parameter] = True
        if not self._known[parameter]:
            self._known[parameter] = True
            self._unknown -= 1
        self._waiting[self._bucket_of[parameter]] -= 1
        return self._release()

    def finish(self) -> List[int]:
        """The buckets not started yet, in order (backward is over: every gradient is final)."""
        rest = list(range(self.launched, len(self._buckets)))
        self.launched = len(self._buckets)
        return rest

    def _release(self) -> List[int]:
        released = []
        while self.launched < len(self._buckets) and self._waiting[self.launched] == 0:
            if self.launched == 0 and self._unknown > 0:
                break
            released.append(self.launched)
            self.launched += 1
        return released


class OverlappedAverage:
    """average_gradients with each bucket's allreduce started during backward (allreduce_async_).

    attach() before backward hooks every parameter's gradient accumulator;
    the hooks pack and start buckets as BucketLauncher allows; backward_done()
    starts the rest; finish() waits for them and writes the means back.
    Buckets, order and arithmetic are average_gradients' own, so the result is
    the same, as long as no gradient changes between backward and finish().
    """

    def __init__(self, parameters: Sequence[torch.nn.Parameter], communicator: Communicator, bucket_bytes: int):
        self.layout = GradientLayout(parameters, bucket_bytes)
        self._communicator = communicator
        self._launcher = BucketLauncher(self.layout.bucket_parameters(),
                                        [p.grad is not None for p in self.layout.parameters])
        self._presence: Optional[torch.Tensor] = None
        self._inflight = []  # (handle, views) per started bucket, in order
        self._hooks = []

    def attach(self) -> None:
        with torch.enable_grad():
            for index, parameter in enumerate(self.layout.parameters):
                # The AccumulateGrad node's post-hook runs once p.grad holds this backward's sum.
                accumulator = parameter.expand_as(parameter).grad_fn.next_functions[0][0]
                self._hooks.append(accumulator.register_hook(self._hook(index)))

    def covers(self, parameters: Sequence[torch.nn.Parameter]) -> bool:
        """Whether `parameters` are the ones (same objects, same order) this averages."""
        mine = self.layout.parameters
        return len(parameters) == len(mine) and all(a is b for a, b in zip(parameters, mine))

    def backward_done(self) -> None:
        self._detach()
        self._start(self._launcher.finish())

    def finish(self) -> None:
        """Waits for every bucket and writes the averaged gradients back."""
        self.backward_done()
        inflight, self._inflight = self._inflight, []
        for handle, _ in inflight:
            handle.wait()
        for _, views in inflight:
            self.layout.unpack(views, self._presence)

    def abandon(self) -> None:
        """Stops listening and waits for what was started (ranks start the same buckets), discarding it."""
        self._detach()
        inflight, self._inflight = self._inflight, []
        for handle, _ in inflight:
            try:
                handle.wait()
            except RuntimeError:
                pass

    def _hook(self, index: int):
        def ready(*_):
            self._start(self._launcher.mark_ready(index))
        return ready

    def _start(self, bucket_indices: List[int]) -> None:
        for bucket in bucket_indices:
            if bucket == 0:
                self._presence = self.layout.presence()
            buffer, views = self.layout.pack(bucket, self._presence)
            self._inflight.append((self._communicator.allreduce_async_(buffer, "avg"), views))

    def _detach(self) -> None:
        hooks, self._hooks = self._hooks, []
        for hook in hooks:
            hook.remove()


def broadcast_module_state(module: torch.nn.Module, communicator: Communicator, bucket_bytes: int) -> None:
    """Overwrites `module`'s parameters and buffers with rank 0's, byte for byte."""
    if communicator.size == 1:
        return
    tensors = list(module.state_dict().values())
    nbytes = [t.numel() * t.element_size() for t in tensors]
    padded = [_aligned(n) for n in nbytes]
    with torch.no_grad():
        for bucket in buckets(padded, bucket_bytes):
            buffer = numpy.empty(sum(padded[i] for i in bucket), dtype=numpy.uint8)
            views = dict(zip(bucket, _views(torch.from_numpy(buffer), [padded[i] for i in bucket])))
            for i, view in views.items():
                view[:nbytes[i]].copy_(tensors[i].detach().reshape(-1).view(torch.uint8))
            communicator.broadcast_(buffer, 0)
            for i, view in views.items():
                tensors[i].copy_(view[:nbytes[i]].view(tensors[i].dtype).view_as(tensors[i]))


def _views(flat: torch.Tensor, lengths: List[int]) -> List[torch.Tensor]:
    offsets = numpy.cumsum([0] + lengths)
    return [flat[offsets[k]:offsets[k + 1]] for k in range(len(lengths))]


def _pack_gradient(view: torch.Tensor, gradient: Optional[torch.Tensor]) -> None:
    if gradient is None:
        view.zero_()
    else:
        view.copy_(gradient.detach().reshape(-1))


def _unpack_gradient(view: torch.Tensor, parameter: torch.nn.Parameter, present_somewhere: bool) -> None:
    if parameter.grad is not None:
        parameter.grad.copy_(view.view_as(parameter.grad))
    elif present_somewhere:
        parameter.grad = view.view_as(parameter).to(device=parameter.device, dtype=parameter.dtype, copy=True)


def _aligned(size: int) -> int:
    return (size + _ALIGNMENT - 1) // _ALIGNMENT * _ALIGNMENT
