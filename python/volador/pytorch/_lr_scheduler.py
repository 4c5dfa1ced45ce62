"""LRScheduler: a torch learning-rate scheduler and when Volador steps it."""

import enum
from typing import Any, Dict


class LRScheduler:
    """Wraps a torch.optim.lr_scheduler object with the step mode Volador applies to it."""

    class StepMode(enum.Enum):
        """When Volador calls the scheduler's step()."""

        STEP_EVERY_EPOCH = enum.auto()  # after the last batch of every `frequency`-th epoch
        STEP_EVERY_BATCH = enum.auto()  # after every `frequency`-th train_batch
        MANUAL_STEP = enum.auto()  # never: the trial calls step() itself
        STEP_EVERY_OPTIMIZER_STEP = enum.auto()  # after each step_optimizer() of its optimizer

    def __init__(self, scheduler: Any, step_mode: "LRScheduler.StepMode", frequency: int = 1):
        if not isinstance(step_mode, LRScheduler.StepMode):
            raise TypeError(f"step_mode must be an LRScheduler.StepMode, not {step_mode!r}")
        if frequency < 1:
            raise ValueError(f"the LR scheduler frequency must be at least 1, not {frequency}")
        self.scheduler = scheduler
        self.step_mode = step_mode
        self.frequency = frequency

    def step(self) -> None:
        """Steps the wrapped scheduler."""
        self.scheduler.step()

    def get_last_lr(self) -> list:
        """The wrapped scheduler's last learning rates."""
        return self.scheduler.get_last_lr()

    def state_dict(self) -> Dict[str, Any]:
        """The wrapped scheduler's state."""
        return self.scheduler.state_dict()

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Restores the wrapped scheduler's state."""
        self.scheduler.load_state_dict(state)

    def after_batch(self, batch_idx: int) -> None:
        """Steps a STEP_EVERY_BATCH scheduler when global batch `batch_idx` completes its period."""
        if self.step_mode is LRScheduler.StepMode.STEP_EVERY_BATCH and (batch_idx + 1) % self.frequency == 0:
            self.step()

    def after_epoch(self, epoch_idx: int) -> None:
        """Steps a STEP_EVERY_EPOCH scheduler when epoch `epoch_idx` completes its period."""
        if self.step_mode is LRScheduler.StepMode.STEP_EVERY_EPOCH and (epoch_idx + 1) % self.frequency == 0:
            self.step()

    def after_optimizer_step(self, optimizer: Any) -> None:
        """Steps a STEP_EVERY_OPTIMIZER_STEP scheduler of `optimizer`."""
        if (self.step_mode is LRScheduler.StepMode.STEP_EVERY_OPTIMIZER_STEP
                and self.scheduler.optimizer is optimizer):
            self.step()
