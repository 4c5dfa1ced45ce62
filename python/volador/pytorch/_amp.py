"""Automatic mixed precision: the manual's configure_apex_amp mapped to torch's native AMP.

A model's forward pass runs under torch.autocast and its floating outputs
come back as float32. On CUDA, autocast uses float16 and losses are scaled by
a dynamic torch.cuda.amp.GradScaler. On CPU, autocast uses bfloat16 (the type
CPU autocast supports) and nothing is scaled: bfloat16 has float32's exponent
range, and torch 1.13 has no CPU GradScaler.
"""

import functools
from typing import Any, Optional

import torch

_REDUCED_TYPES = (torch.float16, torch.bfloat16)


def autocast_dtype(device: torch.device) -> torch.dtype:
    """The reduced precision type autocast uses on `device`."""
    return torch.float16 if device.type == "cuda" else torch.bfloat16


def grad_scaler(device: torch.device, enabled: bool, loss_scale: Optional[float] = None) -> torch.cuda.amp.GradScaler:
    """A GradScaler that scales only on CUDA with AMP on; a numeric `loss_scale` is its initial scale."""
    scaling = enabled and device.type == "cuda"
    if loss_scale is None or loss_scale == "dynamic":
        return torch.cuda.amp.GradScaler(enabled=scaling)
    return torch.cuda.amp.GradScaler(init_scale=float(loss_scale), enabled=scaling)


def autocast_forward(model: torch.nn.Module, device: torch.device) -> None:
    """Makes `model`'s forward run under autocast on `device` and return float32 outputs."""
    forward = model.forward

    @functools.wraps(forward)
    def mixed_precision_forward(*args, **kwargs):
        with torch.autocast(device_type=device.type, dtype=autocast_dtype(device)):
            return _to_float32(forward(*args, **kwargs))

    model.forward = mixed_precision_forward


def _to_float32(data: Any) -> Any:
    if isinstance(data, torch.Tensor):
        return data.float() if data.dtype in _REDUCED_TYPES else data
    if isinstance(data, dict):
        return {key: _to_float32(value) for key, value in data.items()}
    if isinstance(data, (tuple, list)) and not hasattr(data, "_fields"):
        return type(data)(_to_float32(value) for value in data)
    return data
