"""PyTorchCallback: user hooks whose state is kept in checkpoints."""

from typing import Any, Dict


class PyTorchCallback:
    """Base class of the callbacks a trial returns from build_callbacks(); override what you need."""

    def on_training_epoch_start(self, epoch_idx: int) -> None:
        """Called before the first batch of each epoch is trained."""

    def on_validation_end(self, metrics: Dict[str, float]) -> None:
        """Called on every rank with the validation metrics (already averaged over ranks)."""

    def state_dict(self) -> Dict[str, Any]:
        """The callback's state, saved in checkpoints under `callbacks`."""
        return {}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Restores the state returned by state_dict()."""
