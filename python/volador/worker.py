"""The workload loop of a Python rank worker.

The session object connects the worker to its rank actor:
    session.next_workload() -> dict or None   # None: no more work
        {"kind": "train" | "validate" | "checkpoint",
         "start_batch": int, "batches": int, "path": str}
    session.complete(result: dict) -> None
        {"metrics": {name: float}, "batches_trained": int, "error": str}
The controller is a volador.pytorch.TrialController (or anything with its
train/validate/save methods and batches_trained attribute).
"""

import sys
import traceback
from typing import Any, Dict


def serve(session: Any, controller: Any) -> None:
    """Answers every workload of `session` with `controller` until next_workload() returns None."""
    while (workload := session.next_workload()) is not None:
        session.complete(run_workload(controller, workload))


def run_workload(controller: Any, workload: Dict[str, Any]) -> Dict[str, Any]:
    """Runs one workload; an exception becomes the result's "error" (the formatted traceback, also on stderr)."""
    try:
        metrics = _dispatch(controller, workload)
        return {"metrics": metrics, "batches_trained": controller.batches_trained, "error": ""}
    except Exception:
        error = traceback.format_exc()
        print(f"volador: {workload.get('kind')} workload failed:\n{error}", file=sys.stderr, flush=True)
        return {"metrics": {}, "batches_trained": controller.batches_trained, "error": error}


def _dispatch(controller: Any, workload: Dict[str, Any]) -> Dict[str, float]:
    kind = workload["kind"]
    if kind == "train":
        return controller.train(int(workload["start_batch"]), int(workload["batches"]))
    if kind == "validate":
        return controller.validate()
    if kind == "checkpoint":
        controller.save(workload["path"])
        return {}
    raise ValueError(f"unknown workload kind {kind!r} (expected train, validate or checkpoint)")
