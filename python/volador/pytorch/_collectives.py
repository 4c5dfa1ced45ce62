"""Gradient averaging and state broadcast over a communicator, fused into buckets.

Tensors are packed back to back into flat host buffers of at most
`bucket_bytes` (one tensor larger than that travels alone), so many small
tensors cost few collective calls. With one rank nothing is communicated.
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
    presence = torch.tensor([p.grad is not None for p in parameters], dtype=torch.float32)
    lengths = [presence.numel()] + [p.numel() for p in parameters]
    for bucket in buckets([length * 4 for length in lengths], bucket_bytes):
        buffer = numpy.empty(sum(lengths[i] for i in bucket), dtype=numpy.float32)
        views = dict(zip(bucket, _views(torch.from_numpy(buffer), [lengths[i] for i in bucket])))
        for i, view in views.items():
            _pack_gradient(view, presence if i == 0 else parameters[i - 1].grad)
        communicator.allreduce_(buffer, "avg")
        for i, view in views.items():
            if i == 0:
                presence.copy_(view)
            else:
                _unpack_gradient(view, parameters[i - 1], present_somewhere=bool(presence[i - 1] > 0))


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
