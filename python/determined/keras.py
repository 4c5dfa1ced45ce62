"""determined.keras is not available in Volador yet."""

raise ImportError(
    "determined.keras (TFKerasTrial, TFKerasTrialContext) is not available in Volador yet: "
    "Volador's Trial API supports PyTorch only. Port the model to determined.pytorch.PyTorchTrial, "
    "or run your Keras script as a command entrypoint (entrypoint: python3 train.py) and report "
    "metrics as 'name=value' lines on stdout or through volador.reporting.")
