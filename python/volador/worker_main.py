"""One rank of a Python trial on the cluster: `python3 -m volador.worker_main`.

The agent starts it in the trial's working folder (the unpacked model
definition plus the trial file) with the environment volador-worker gets and
PYTHONPATH reaching this package and the native module. It joins the trial
(reports in to the master and connects the data plane), builds the
entrypoint's PyTorchTrial with a context whose communicator is the session,
resumes from the checkpoint when the trial file names one, and answers
workloads until the trial is done with this rank. The process keeps the
memory its training frees for the next batch (volador._allocator).

Exit status: 0 when the trial released this rank; 1 when the trial cannot be
built (e.g. model_def.py raises on import) or the master went away, with the
reason (and a traceback) on stderr, which the agent ships to the trial log.
Trial-code errors during a workload are reported in the workload's result.
"""

import os
import sys
import time
import traceback
from typing import Any, Dict, Optional

from volador._allocator import keep_freed_memory


def main() -> int:
    keep_freed_memory()  # before the trial allocates anything
    try:
        import _volador_native
    except ImportError as error:
        return _fail(f"cannot import the native module _volador_native ({error}); "
                     f"PYTHONPATH={os.environ.get('PYTHONPATH', '')!r}")
    try:
        session = _volador_native.join()
    except RuntimeError as error:
        return _fail(f"cannot join the trial: {error}")
    try:
        return _run(session)
    finally:
        session.close()


def _run(session: Any) -> int:
    from volador.entrypoint import TrialLoadError, load_trial_class

    print(f"volador: rank {session.rank} of {session.size} (local {session.local_rank} of {session.local_size}), "
          f"trial {session.trial_id}, entrypoint {session.entrypoint}", flush=True)
    try:
        trial_class = load_trial_class(_python_entrypoint(session.entrypoint), os.getcwd())
        controller = _build_controller(session, trial_class)
    except TrialLoadError as error:
        return _fail(str(error))
    except Exception:
        return _fail(f"building the trial failed:\n{traceback.format_exc()}")
    if session.restore_path:
        try:
            controller.load(session.restore_path)
        except Exception:
            return _fail(f"cannot resume from checkpoint {session.restore_path}:\n{traceback.format_exc()}")
        print(f"volador: resumed from checkpoint {session.restore_path} "
              f"after {controller.batches_trained} batches", flush=True)

    from volador.worker import serve

    try:
        serve(_LoggingSession(session), controller)
    except RuntimeError as error:  # the session's own errors: the master went away
        return _fail(str(error))
    return 0


def _python_entrypoint(entrypoint: str) -> str:
    """`model_def.py:MyTrial` names the same class as `model_def:MyTrial`."""
    module, _, class_name = entrypoint.strip().partition(":")
    return f"{module[:-3] if module.endswith('.py') else module}:{class_name}"


def _build_controller(session: Any, trial_class: type):
    import torch

    from volador.pytorch import PyTorchTrialContext, TrialController

    if session.local_size > 1 and "OMP_NUM_THREADS" not in os.environ:
        # Ranks on one host share its cores rather than each taking all of them.
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // session.local_size))
    hparams = dict(session.hparams)
    hparams.setdefault("global_batch_size", session.global_batch_size)
    context = PyTorchTrialContext(hparams, communicator=session, trial_seed=session.seed,
                                  data_config=session.data or {}, experiment_id=session.experiment_id,
                                  trial_id=session.trial_id)
    return TrialController(trial_class, context)


class _LoggingSession:
    """Passes workloads through, printing one line per workload to the trial log (rank 0 only)."""

    def __init__(self, session: Any):
        self._session = session
        self._workload: Optional[Dict[str, Any]] = None
        self._started = 0.0

    def next_workload(self) -> Optional[Dict[str, Any]]:
        self._workload = self._session.next_workload()
        self._started = time.monotonic()
        return self._workload

    def complete(self, result: Dict[str, Any]) -> None:
        if self._session.rank == 0 and self._workload is not None and not result.get("error"):
            print(_describe(self._workload, result, time.monotonic() - self._started), flush=True)
        self._session.complete(result)


def _describe(workload: Dict[str, Any], result: Dict[str, Any], seconds: float) -> str:
    metrics = " ".join(f"{name}={value:.6g}" for name, value in sorted(result["metrics"].items()))
    start, batches = workload["start_batch"], workload["batches"]
    if workload["kind"] == "train":
        return f"volador: trained batches {start}-{start + batches - 1} in {seconds:.2f} s: {metrics}"
    if workload["kind"] == "validate":
        return f"volador: validated after {start} batches in {seconds:.2f} s: {metrics}"
    return f"volador: checkpoint saved after {start} batches to {workload['path']}"


def _fail(message: str) -> int:
    print(f"volador worker: {message}", file=sys.stderr, flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
