"""serve(): workloads in, results out; trial errors become results, never hangs."""

import contextlib
import io
import os
import tempfile
import unittest

from trial_fixtures import RegressionTrial
from volador.pytorch import PyTorchTrialContext, TrialController
from volador.worker import serve


class ScriptedSession:
    """Hands out `workloads` in order, then None; keeps the results."""

    def __init__(self, workloads):
        self.workloads = list(workloads)
        self.results = []

    def next_workload(self):
        return self.workloads.pop(0) if self.workloads else None

    def complete(self, result):
        self.results.append(result)


def controller():
    context = PyTorchTrialContext({"global_batch_size": 8, "lr": 0.01, "train_records": 32})
    return TrialController(RegressionTrial, context)


class ServeTest(unittest.TestCase):
    def test_each_kind_of_workload_is_answered(self):
        with tempfile.TemporaryDirectory() as folder:
            session = ScriptedSession([
                {"kind": "train", "start_batch": 0, "batches": 5, "path": ""},
                {"kind": "validate", "start_batch": 5, "batches": 0, "path": ""},
                {"kind": "checkpoint", "start_batch": 5, "batches": 0, "path": folder},
            ])
            serve(session, controller())
            self.assertEqual(os.listdir(folder), ["state_dict.pth"])
        train, validate, checkpoint = session.results
        self.assertEqual(set(train["metrics"]), {"loss", "lr"})
        self.assertEqual((train["batches_trained"], train["error"]), (5, ""))
        self.assertEqual(set(validate["metrics"]), {"loss", "mae"})
        self.assertEqual(checkpoint, {"metrics": {}, "batches_trained": 5, "error": ""})

    def test_a_failing_workload_reports_its_traceback_and_serving_goes_on(self):
        trial_controller = controller()

        def broken_train_batch(batch, epoch_idx, batch_idx):
            raise ZeroDivisionError("bad batch")

        trial_controller.trial.train_batch = broken_train_batch
        session = ScriptedSession([
            {"kind": "train", "start_batch": 0, "batches": 2, "path": ""},
            {"kind": "explode", "start_batch": 0, "batches": 0, "path": ""},
            {"kind": "validate", "start_batch": 0, "batches": 0, "path": ""},
        ])
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            serve(session, trial_controller)
        failed, unknown, validate = session.results
        self.assertIn("Traceback", failed["error"])
        self.assertIn("ZeroDivisionError: bad batch", failed["error"])
        self.assertEqual((failed["metrics"], failed["batches_trained"]), ({}, 0))
        self.assertIn("ZeroDivisionError: bad batch", stderr.getvalue())
        self.assertIn("unknown workload kind 'explode'", unknown["error"])
        self.assertEqual(validate["error"], "")


if __name__ == "__main__":
    unittest.main()
