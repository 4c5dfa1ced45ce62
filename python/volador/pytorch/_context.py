"""PyTorchTrialContext: what a trial knows about its run and how it trains (the manual's API)."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import torch

from volador._comm import Communicator, SingleRank
from volador.pytorch import _amp
from volador.pytorch._collectives import (OverlappedAverage, average_gradients, broadcast_module_state,
                                         bucket_bytes_setting, gradients_device)
from volador.pytorch._data import to_device
from volador.pytorch._lr_scheduler import LRScheduler

_APEX_OPT_LEVELS = ("O0", "O1", "O2", "O3")


class DistributedContext:
    """This rank's place in the trial (context.distributed in the manual)."""

    def __init__(self, communicator: Communicator):
        self.communicator = communicator

    def get_rank(self) -> int:
        """This rank, 0 .. get_size() - 1."""
        return self.communicator.rank

    def get_size(self) -> int:
        """The number of ranks (slots) of the trial."""
        return self.communicator.size

    def get_local_rank(self) -> int:
        """This rank's index among the ranks on its host."""
        return self.communicator.local_rank

    def get_local_size(self) -> int:
        """The number of the trial's ranks on this host."""
        return self.communicator.local_size


class PyTorchTrialContext:
    """Hyperparameters, data config and identity of a trial, plus the wrapping and stepping API.

    hparams must hold global_batch_size, divisible by the number of ranks.
    bucket_bytes (default $VOLADOR_BUCKET_BYTES, else 4 MiB) sizes the fused
    gradient allreduces. device defaults to cuda:<local rank mod visible
    GPUs> when CUDA is available, else cpu.

    With several ranks, a communicator that has allreduce_async_ and one
    wrapped optimizer, backward() starts each gradient bucket's allreduce as
    soon as its gradients (and those of the buckets before it) are final, and
    step_optimizer() waits for them: same buckets, order and arithmetic as
    averaging after backward, provided gradients are not changed in between.
    A step with several backward() calls (gradient accumulation) averages
    after the last one, and later steps then average in step_optimizer().
    Gradients on a GPU are averaged in its memory through NCCL where every
    rank's communicator can (see gradients_device), else through host memory.
    """

    def __init__(self, hparams: Dict[str, Any], *, communicator: Optional[Communicator] = None,
                 trial_seed: int = 0, data_config: Optional[Dict[str, Any]] = None,
                 experiment_id: int = 0, trial_id: int = 0, bucket_bytes: Optional[int] = None,
                 device: Union[str, torch.device, None] = None):
        self.distributed = DistributedContext(communicator or SingleRank())
        self._hparams = dict(hparams)
        self._global_batch_size = _global_batch_size(self._hparams, self.distributed.get_size())
        self._trial_seed = _checked_seed(trial_seed)
        self._data_config = dict(data_config or {})
        self._experiment_id = experiment_id
        self._trial_id = trial_id
        self._bucket_bytes = bucket_bytes_setting(bucket_bytes)
        self.device = torch.device(device) if device is not None else _default_device(self.distributed)
        self.models: List[torch.nn.Module] = []
        self.optimizers: List[torch.optim.Optimizer] = []
        self.lr_schedulers: List[LRScheduler] = []
        self.grad_scaler = _amp.grad_scaler(self.device, enabled=False)
        self._amp_configured = False
        self._scaler_stepped = False
        self._overlap: Optional[OverlappedAverage] = None
        self._backwards_this_step = 0
        self._accumulating = False
        self._gradients_device: Optional[Tuple[torch.device]] = None  # decided at the first averaging

    def get_hparam(self, name: str) -> Any:
        """The value of hyperparameter `name` (a nested hyperparameter is a dict)."""
        if name not in self._hparams:
            raise KeyError(f"hyperparameter {name!r} is not defined; defined: {', '.join(sorted(self._hparams))}")
        return self._hparams[name]

    def get_hparams(self) -> Dict[str, Any]:
        """All hyperparameters by name."""
        return self._hparams

    def get_global_batch_size(self) -> int:
        """The number of records per optimisation step over all ranks."""
        return self._global_batch_size

    def get_per_slot_batch_size(self) -> int:
        """The number of records per batch on this rank: global batch size / ranks."""
        return self._global_batch_size // self.distributed.get_size()

    def get_data_config(self) -> Dict[str, Any]:
        """The experiment config's free-form `data` section."""
        return self._data_config

    def get_experiment_id(self) -> int:
        """The id of the trial's experiment."""
        return self._experiment_id

    def get_trial_id(self) -> int:
        """The id of this trial."""
        return self._trial_id

    def get_trial_seed(self) -> int:
        """The trial's random seed (Volador seeds python, numpy and torch with it)."""
        return self._trial_seed

    def to_device(self, data: Any) -> Any:
        """`data` with every tensor in its nesting moved to this rank's device."""
        return to_device(data, self.device)

    def wrap_model(self, model: torch.nn.Module) -> torch.nn.Module:
        """Moves `model` to the device, copies rank 0's parameters and buffers into it, and registers it."""
        model = model.to(self.device)
        broadcast_module_state(model, self.distributed.communicator, self._bucket_bytes)
        self.models.append(model)
        return model

    def wrap_optimizer(self, optimizer: torch.optim.Optimizer) -> torch.optim.Optimizer:
        """Registers `optimizer` for checkpoints; returns it."""
        self.optimizers.append(optimizer)
        return optimizer

    def wrap_lr_scheduler(self, lr_scheduler: Any, step_mode: LRScheduler.StepMode, frequency: int = 1) -> Any:
        """Registers a torch LR scheduler that Volador steps per `step_mode`; returns it."""
        self.lr_schedulers.append(LRScheduler(lr_scheduler, step_mode, frequency))
        return lr_scheduler

    def configure_apex_amp(self, models, optimizers, enabled: bool = True, opt_level: str = "O1",
                           loss_scale: Union[float, str, None] = None, num_losses: int = 1, **apex_options):
        """Turns on mixed precision (see volador.pytorch._amp); returns (models, optimizers) as given.

        opt_level O0 or enabled=False leaves precision alone; O1-O3 all mean
        autocast. Apex's other options (cast_model_type, keep_batchnorm_fp32,
        master_weights, min/max_loss_scale, verbosity, ...) and num_losses are
        accepted and have no effect.
        """
        if opt_level not in _APEX_OPT_LEVELS:
            raise ValueError(f"opt_level must be one of {', '.join(_APEX_OPT_LEVELS)}, not {opt_level!r}")
        if self._amp_configured:
            raise RuntimeError("configure_apex_amp may be called only once per trial")
        self._amp_configured = True
        if enabled and opt_level != "O0":
            self.grad_scaler = _amp.grad_scaler(self.device, enabled=True, loss_scale=loss_scale)
            for model in (models if isinstance(models, (list, tuple)) else [models]):
                _amp.autocast_forward(model, self.device)
        return models, optimizers

    def backward(self, loss: torch.Tensor, gradient: Optional[torch.Tensor] = None,
                 retain_graph: Optional[bool] = None, create_graph: bool = False) -> None:
        """Back-propagates `loss` (scaled when mixed precision scales losses)."""
        overlap = self._begin_overlap()
        try:
            self.grad_scaler.scale(loss).backward(gradient=gradient, retain_graph=retain_graph,
                                                  create_graph=create_graph)
        except BaseException:
            if overlap is not None:
                overlap.abandon()
                self._overlap = None
            raise
        if overlap is not None:
            overlap.backward_done()

    def _begin_overlap(self) -> Optional[OverlappedAverage]:
        """An OverlappedAverage hooked for this backward, or None where gradients are averaged at the step."""
        self._backwards_this_step += 1
        if self._overlap is not None:  # a second backward before the step: what was started is stale
            self._overlap.abandon()
            self._overlap = None
        communicator = self.distributed.communicator
        if (communicator.size == 1 or not hasattr(communicator, "allreduce_async_") or len(self.optimizers) != 1
                or self._accumulating or self._backwards_this_step > 1):
            return None
        parameters = _trainable_parameters(self.optimizers[0])
        self._overlap = OverlappedAverage(parameters, communicator, self._bucket_bytes,
                                          self._device_for_gradients(parameters))
        self._overlap.attach()
        return self._overlap

    def _device_for_gradients(self, parameters: Sequence[torch.nn.Parameter]) -> Optional[torch.device]:
        """Where gradient buckets live (None: host memory), decided once, at the first averaging on every rank."""
        if self.distributed.get_size() == 1:
            return None
        if self._gradients_device is None:
            self._gradients_device = (gradients_device(parameters, self.distributed.communicator),)
        return self._gradients_device[0]

    def step_optimizer(self, optimizer: torch.optim.Optimizer,
                       clip_grads: Optional[Callable[[Sequence[torch.nn.Parameter]], Any]] = None,
                       auto_zero_grads: bool = True) -> None:
        """Averages `optimizer`'s gradients over ranks, applies clip_grads(parameters), steps, zeroes gradients."""
        parameters = _trainable_parameters(optimizer)
        overlap, self._overlap = self._overlap, None
        self._accumulating = self._accumulating or self._backwards_this_step > 1
        self._backwards_this_step = 0
        if overlap is not None and overlap.covers(parameters):
            overlap.finish()
        else:
            if overlap is not None:
                overlap.abandon()
            average_gradients(parameters, self.distributed.communicator, self._bucket_bytes,
                              self._device_for_gradients(parameters))
        if clip_grads is not None:
            self.grad_scaler.unscale_(optimizer)
            clip_grads(parameters)
        self.grad_scaler.step(optimizer)
        self._scaler_stepped = True
        if auto_zero_grads:
            optimizer.zero_grad()
        for scheduler in self.lr_schedulers:
            scheduler.after_optimizer_step(optimizer)

    def _after_train_batch(self, batch_idx: int, epoch_idx: int, epoch_ended: bool) -> None:
        """Updates the loss scale and steps the batch- and epoch-driven LR schedulers (the controller calls this)."""
        if self._scaler_stepped:
            self.grad_scaler.update()
            self._scaler_stepped = False
        for scheduler in self.lr_schedulers:
            scheduler.after_batch(batch_idx)
            if epoch_ended:
                scheduler.after_epoch(epoch_idx)


def _global_batch_size(hparams: Dict[str, Any], ranks: int) -> int:
    if "global_batch_size" not in hparams:
        raise KeyError("hyperparameters must include global_batch_size")
    size = int(hparams["global_batch_size"])
    if size <= 0 or size % ranks != 0:
        raise ValueError(f"global_batch_size {size} must be positive and divisible by the {ranks} ranks")
    return size


def _checked_seed(seed: int) -> int:
    if not 0 <= seed < 2**32:
        raise ValueError(f"the trial seed must be in [0, 2**32), not {seed}")
    return seed


def _default_device(distributed: DistributedContext) -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda", distributed.get_local_rank() % torch.cuda.device_count())
    return torch.device("cpu")


def _trainable_parameters(optimizer: torch.optim.Optimizer) -> List[torch.nn.Parameter]:
    """The optimizer's parameters that require gradients, each once, in param_groups order."""
    seen, parameters = set(), []
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            if parameter.requires_grad and id(parameter) not in seen:
                seen.add(id(parameter))
                parameters.append(parameter)
    return parameters
