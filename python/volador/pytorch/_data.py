"""The manual's DataLoader and how batches reach the model.

Users construct DataLoader like torch's. Volador keeps the dataset and the
loading options (num_workers, collate_fn, pin_memory, worker_init_fn, ...)
but decides itself which records form each batch (see _sampling), so the
user's batch_size, shuffle, sampler, batch_sampler, drop_last and generator
have no effect. Records are collated by the collate_fn (torch's
default_collate unless given: tensors, numpy arrays and numbers are stacked
into tensors inside any nesting of tuples, lists and dicts) and the batch is
then moved to the trial's device.
"""

from typing import Any, Dict, Iterable, Iterator, List, Sequence, Union

import torch
import torch.utils.data

TorchData = Union[Dict[str, torch.Tensor], Sequence[torch.Tensor], torch.Tensor]


class DataLoader:
    """A map-style dataset plus torch DataLoader loading options; Volador does the sampling."""

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=2, persistent_workers=False):
        if isinstance(dataset, torch.utils.data.IterableDataset) or not hasattr(dataset, "__len__"):
            raise TypeError(
                "Volador's DataLoader needs a map-style dataset (with __len__ and __getitem__); "
                f"got {type(dataset).__name__}")
        self.dataset = dataset
        self.batch_size = batch_size
        self._options = {
            "num_workers": num_workers,
            "collate_fn": collate_fn or torch.utils.data.default_collate,
            "pin_memory": pin_memory,
            "timeout": timeout,
            "worker_init_fn": worker_init_fn,
            "multiprocessing_context": multiprocessing_context,
        }
        if num_workers > 0:
            self._options["prefetch_factor"] = prefetch_factor

    def records(self) -> int:
        """The number of records in the dataset."""
        return len(self.dataset)

    def load(self, index_batches: Iterable[List[int]], generator: torch.Generator) -> Iterator[Any]:
        """Yields the collated batch of each index list in order; `generator` seeds the loader's workers."""
        loader = torch.utils.data.DataLoader(
            self.dataset, batch_sampler=index_batches, generator=generator, **self._options)
        return iter(loader)


def to_device(data: Any, device: torch.device) -> Any:
    """`data` with every tensor inside its tuples, lists and dicts moved to `device`."""
    if isinstance(data, torch.Tensor):
        return data.to(device, non_blocking=True)
    if isinstance(data, dict):
        moved = {key: to_device(value, device) for key, value in data.items()}
        return moved if type(data) is dict else _same_mapping_type(data, moved)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(to_device(value, device) for value in data))
    if isinstance(data, (tuple, list)):
        return type(data)(to_device(value, device) for value in data)
    return data


def _same_mapping_type(original: dict, moved: dict) -> dict:
    try:
        return type(original)(moved)
    except TypeError:  # a mapping type that cannot be built from a dict, e.g. defaultdict
        return moved
