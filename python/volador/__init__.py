"""Volador's Python side.

Submodules (import the one you need; this package imports nothing heavy, so
the stdlib-only ``volador.reporting`` works without torch):

- ``volador.pytorch``: the manual's PyTorchTrial API and the TrialController
  that runs workloads against a trial.
- ``volador.local``: train a trial in this process, without a cluster.
- ``volador.entrypoint``: load ``model_def:MyTrial`` from a project folder.
- ``volador.worker``: the workload loop of a Python rank worker.
"""
