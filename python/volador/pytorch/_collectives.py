"""Gradient averaging and state broadcast over a communicator, fused into buckets.

Tensors are packed back to back into flat buffers of at most `bucket_bytes`
(one tensor larger than that travels alone), so many small tensors cost few
collective calls. With one rank nothing is communicated. The buffers are
host memory, or, when the gradients live on one GPU and every rank's
communicator formed GPU collectives (gradients_device), that GPU's memory:
then the buckets go through NCCL and never leave the device. OverlappedAverage
does the same reduction with each bucket started during backward, on a
communicator that has allreduce_async_.
"""

import os
import sys
from typing import Dict, Iterator, List, Optional, Sequence

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


def gradients_device(parameters: Sequence[torch.nn.Parameter], communicator: Communicator) -> Optional[torch.device]:
    """The GPU whose memory the gradient buckets use, or None for host memory; a collective call.

    Every rank must call it at the same point (the communicator forms its GPU
    collectives then, and all ranks reach the same answer). GPU memory is
    used when every rank's parameters live on one CUDA device and its
    communicator offers use_device_memory (the native module's does) and
    could form them. Which it is, and why not where a rank wanted it, is
    printed once.
    """
    if communicator.size == 1 or not hasattr(communicator, "use_device_memory"):
        return None
    devices = {parameter.device for parameter in parameters}
    device = devices.pop() if len(devices) == 1 else None
    wanted = device is not None and device.type == "cuda"
    reason = communicator.use_device_memory(wanted)
    if reason is None:
        if wanted:
            print(f"volador: gradients are averaged in {device} memory through NCCL", file=sys.stderr, flush=True)
        return device
    if wanted:
        print(f"volador: gradients are averaged through host memory: {reason}", file=sys.stderr, flush=True)
    return None


def average_gradients(parameters: Sequence[torch.nn.Parameter], communicator: Communicator,
                      bucket_bytes: int, device: Optional[torch.device] = None) -> None:
    """Replaces each gradient by its mean over ranks; a rank without a gradient counts as zeros.

    A parameter keeps grad None only when it has no gradient on any rank: a
    float32 vector of gradient presence flags travels in the last bucket.
    The buckets live on `device` (from gradients_device) or in host memory.
    """
    if communicator.size == 1:
        return
    layout = GradientLayout(parameters, bucket_bytes, device)
    reduced = []
    for bucket in range(len(layout.ranges)):
        buffer, views = layout.pack(bucket)
        if device is None:
            communicator.allreduce_(buffer, "avg")
        else:
            start_allreduce(communicator, buffer).wait()
        reduced.append(views)
    layout.unpack(reduced)


class _DeviceAllreduce:
    """A bucket's allreduce in GPU memory in flight: keeps the buffer and its ready event alive until waited."""

    def __init__(self, communicator: Communicator, buffer: torch.Tensor):
        self._buffer = buffer
        self._ready = None
        if buffer.is_cuda:  # NCCL starts once the kernels that packed the bucket (on this stream) are done
            self._ready = torch.cuda.Event()
            self._ready.record()
        ready_event = self._ready.cuda_event if self._ready is not None else 0
        self._handle = communicator.allreduce_device_async_(buffer.data_ptr(), buffer.numel(), "avg", ready_event)

    def wait(self) -> None:
        self._handle.wait()
        self._buffer, self._ready = None, None


def start_allreduce(communicator: Communicator, buffer):
    """Starts averaging a packed bucket (numpy: host memory; tensor: GPU memory); returns a handle with wait()."""
    if isinstance(buffer, numpy.ndarray):
        return communicator.allreduce_async_(buffer, "avg")
    return _DeviceAllreduce(communicator, buffer)


class GradientLayout:
    """How gradients are fused: the parameters in reverse order, then their presence flags (PRESENCE_FLAGS).

    Backward finishes gradients roughly last layer first, so reverse
    parameter order (as PyTorch DDP) lets the first buckets start while
    backward is still computing the others. The flags come last: by the time
    the last bucket starts, every gradient is final, so the flags are too.
    """

    PRESENCE_FLAGS = -1

    def __init__(self, parameters: Sequence[torch.nn.Parameter], bucket_bytes: int,
                 device: Optional[torch.device] = None):
        self.parameters = list(parameters)
        self.device = device  # where the buffers live: None for numpy host memory
        # Per entry: the index into `parameters`, or PRESENCE_FLAGS.
        self.entries = list(reversed(range(len(self.parameters)))) + [self.PRESENCE_FLAGS]
        self.lengths = [len(self.parameters) if entry == self.PRESENCE_FLAGS else self.parameters[entry].numel()
                        for entry in self.entries]
        self.ranges = list(buckets([length * 4 for length in self.lengths], bucket_bytes))

    def bucket_parameters(self) -> List[List[int]]:
        """Per bucket, the indices into `parameters` it carries (the flags are not one)."""
        return [[self.entries[k] for k in bucket if self.entries[k] != self.PRESENCE_FLAGS] for bucket in self.ranges]

    def pack(self, bucket: int):
        """A fresh float32 buffer holding bucket `bucket`'s values, and its views by entry (parameter index or flags).

        The buffer is a numpy array in host memory, or a tensor on `device`.
        """
        indices = self.ranges[bucket]
        length = sum(self.lengths[k] for k in indices)
        if self.device is None:
            buffer = numpy.empty(length, dtype=numpy.float32)
            flat = torch.from_numpy(buffer)
        else:
            buffer = flat = torch.empty(length, dtype=torch.float32, device=self.device)
        views = dict(zip((self.entries[k] for k in indices), _views(flat, [self.lengths[k] for k in indices])))
        for entry, view in views.items():
            if entry == self.PRESENCE_FLAGS:
                view.copy_(torch.tensor([p.grad is not None for p in self.parameters], dtype=torch.float32))
            else:
                _pack_gradient(view, self.parameters[entry].grad)
        return buffer, views

    def unpack(self, bucket_views: Sequence[Dict[int, torch.Tensor]]) -> None:
        """Writes every bucket's reduced values back; the reduced flags decide who gains a gradient."""
        present_somewhere = (bucket_views[-1][self.PRESENCE_FLAGS] > 0).tolist()
        for views in bucket_views:
            for entry, view in views.items():
                if entry != self.PRESENCE_FLAGS:
                    _unpack_gradient(view, self.parameters[entry], present_somewhere[entry])


class BucketLauncher:
    """Which buckets may start their allreduce while backward runs: strictly in bucket order.

    Bucket i may start once every parameter in buckets 0..i is final for this
    backward (mark_ready); finish() releases the rest once backward has
    returned. Every rank thus starts the same buckets in the same order,
    whatever order its gradients arrive in.
    """

    def __init__(self, bucket_parameters: Sequence[Sequence[int]]):
        self._waiting = [len(bucket) for bucket in bucket_parameters]
        self._bucket_of = {parameter: k for k, bucket in enumerate(bucket_parameters) for parameter in bucket}
        self._ready = set()
        self.launched = 0

    def mark_ready(self, parameter: int) -> List[int]:
        """Records that `parameter`'s gradient is final; returns the buckets that may start now, in order."""
        if parameter in self._ready:
            return []
        self._ready.add(parameter)
        self._waiting[self._bucket_of[parameter]] -= 1
        released = []
        while self.launched < len(self._waiting) and self._waiting[self.launched] == 0:
            released.append(self.launched)
            self.launched += 1
        return released

    def finish(self) -> List[int]:
        """The buckets not started yet, in order (backward is over: every gradient is final)."""
        rest = list(range(self.launched, len(self._waiting)))
        self.launched = len(self._waiting)
        return rest


class OverlappedAverage:
    """average_gradients with each bucket's allreduce started during backward (allreduce_async_).

    attach(), after forward and before backward, hooks every parameter's
    gradient accumulator (the forward graph keeps the hooked nodes alive);
    the hooks pack and start buckets as BucketLauncher allows; backward_done()
    starts the rest; finish() waits for them and writes the means back.
    Buckets, order and arithmetic are average_gradients' own, so the result is
    the same, as long as no gradient changes between backward and finish().
    """

    def __init__(self, parameters: Sequence[torch.nn.Parameter], communicator: Communicator, bucket_bytes: int,
                 device: Optional[torch.device] = None):
        self.layout = GradientLayout(parameters, bucket_bytes, device)
        self._communicator = communicator
        self._launcher = BucketLauncher(self.layout.bucket_parameters())
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
        self.layout.unpack([views for _, views in inflight])

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
            buffer, views = self.layout.pack(bucket)
            self._inflight.append((start_allreduce(self._communicator, buffer), views))

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
