"""determined.pytorch.deepspeed is not available in Volador yet."""

raise ImportError(
    "determined.pytorch.deepspeed (DeepSpeedTrial) is not available in Volador yet. "
    "Use determined.pytorch.PyTorchTrial (with context.configure_apex_amp for mixed precision), "
    "or run your DeepSpeed script as a command entrypoint (entrypoint: deepspeed train.py ... "
    "or python3 train.py), which gets the torch.distributed environment on every slot.")
