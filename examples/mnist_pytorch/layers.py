"""The layer the manual's model uses (as in Determined's mnist_pytorch example)."""

from typing import Any

import torch
from torch import nn


class Flatten(nn.Module):
    def forward(self, *args: Any, **kwargs: Any) -> torch.Tensor:
        assert len(args) == 1
        x = args[0]
        assert isinstance(x, torch.Tensor)
        return x.contiguous().view(x.size(0), -1)
