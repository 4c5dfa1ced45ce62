"""The manual's DataLoader and how batches reach the model.

Users construct DataLoader like torch's. Volador decides which records form
each batch (see _sampling) so that ranks split every global batch and a
paused trial resumes on exactly the records it would have seen. The user's
arguments take effect as in torch, or are refused when they cannot:

- batch_size: for training it must be the trial's per-slot batch size (or
  left out); for validation it is the per-rank evaluation batch size.
- shuffle: training records are drawn in a seeded permutation per epoch when
  true and in dataset order when false (torch's default); validation records
  likewise, seeded by the trial.
- drop_last: validation drops each rank's last partial batch when true;
  training always trains whole global batches, so an explicit false is refused.
- sampler, batch_sampler and generator are refused: they would choose the
  records themselves.
- the loading options (num_workers, collate_fn, pin_memory, timeout,
  worker_init_fn, multiprocessing_context, prefetch_factor,
  persistent_workers) are passed to torch's DataLoader.

Records are collated by the collate_fn (torch's default_collate unless given:
tensors, numpy arrays and numbers are stacked into tensors inside any nesting
of tuples, lists and dicts) and the batch is then moved to the trial's device.
"""

from typing import Any, Dict, Iterable, Iterator, List, Sequence, Union

import torch
import torch.utils.data

TorchData = Union[Dict[str, torch.Tensor], Sequence[torch.Tensor], torch.Tensor]


class DataLoader:
    """A map-style dataset plus torch DataLoader loading options; Volador does the sampling."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=None, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=2, persistent_workers=False):
        if isinstance(dataset, torch.utils.data.IterableDataset) or not hasattr(dataset, "__len__"):
            raise TypeError(
                "Volador's DataLoader needs a map-style dataset (with __len__ and __getitem__); "
                f"got {type(dataset).__name__}")
        _refuse_record_choosers(sampler=sampler, batch_sampler=batch_sampler, generator=generator)
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size < 1):
            raise ValueError(f"DataLoader(batch_size={batch_size!r}): expected a positive integer")
        self.dataset = dataset
        self.batch_size = batch_size  # None: the trial's per-slot batch size
        self.shuffle = bool(shuffle)
        self.drop_last = drop_last  # None: not given
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
            self._options["persistent_workers"] = persistent_workers

    def check_training(self, per_slot_batch_size: int, builder: str) -> None:
        """Raises ValueError, naming `builder`, for arguments a training loader cannot honour."""
        if self.batch_size is not None and self.batch_size != per_slot_batch_size:
            raise ValueError(
                f"{builder}: DataLoader(batch_size={self.batch_size}) but this trial trains "
                f"{per_slot_batch_size} records per rank in each batch (hyperparameter global_batch_size "
                "divided by the ranks); pass batch_size=self.context.get_per_slot_batch_size() or leave it out")
        if self.drop_last is False:
            raise ValueError(
                f"{builder}: DataLoader(drop_last=False) cannot be honoured: training runs whole global "
                "batches and an epoch's last partial batch is dropped; leave drop_last out or pass True")

    def records(self) -> int:
        """The number of records in the dataset."""
        return len(self.dataset)

    def load(self, index_batches: Iterable[List[int]], generator: torch.Generator) -> Iterator[Any]:
        """Yields the collated batch of each index list in order; `generator` seeds the loader's workers."""
        loader = torch.utils.data.DataLoader(
            self.dataset, batch_sampler=index_batches, generator=generator, **self._options)
        return iter(loader)


def _refuse_record_choosers(**arguments: Any) -> None:
    for name, value in arguments.items():
        if value is not None:
            raise ValueError(
                f"DataLoader({name}=...) is not supported: Volador chooses each batch's records so that "
                "ranks split every global batch and a paused trial resumes exactly; remove it "
                "(pass shuffle=True for a seeded shuffle per epoch)")


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
