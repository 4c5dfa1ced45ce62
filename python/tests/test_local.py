"""volador.local: training a trial in this process from a config, without a cluster."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from volador import local

TESTS = os.path.dirname(os.path.abspath(__file__))
CONFIG = """
    name: local-check
    hyperparameters:
      global_batch_size: 8
      lr: {type: const, val: 0.01}
      train_records: 32
    records_per_epoch: 32
    scheduling_unit: 3
    searcher: {name: single, metric: loss, max_length: {epochs: 2}}
    entrypoint: model_def:MyTrial
"""


class CommandLineTest(unittest.TestCase):
    def test_trains_the_configured_length_and_prints_metrics(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "model_def.py"), "w") as file:
                file.write("from trial_fixtures import RegressionTrial as MyTrial\n")
            with open(os.path.join(folder, "distributed.yaml"), "w") as file:
                file.write(textwrap.dedent(CONFIG))
            environment = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(TESTS), TESTS])}
            completed = subprocess.run(
                [sys.executable, "-m", "volador.local", "model_def:MyTrial", "--config", "distributed.yaml"],
                cwd=folder, env=environment, capture_output=True, text=True, timeout=60)
        self.assertEqual(completed.returncode, 0, completed.stderr)
        lines = completed.stdout.splitlines()
        self.assertEqual([line.split(":")[0] for line in lines],
                         ["batches 0-2", "batches 3-5", "batches 6-7", "validation after 8 batches"])
        self.assertIn("loss=", lines[0])
        self.assertIn("mae=", lines[3])

    def test_bad_input_is_one_line_on_stderr_and_status_1(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "distributed.yaml")
            with open(path, "w") as file:
                file.write("hyperparameters: {global_batch_size: 8, lr: {type: double, minval: 0.1, maxval: 1}}\n")
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr):
                status = local.main(["model_def:MyTrial", "--config", path, "--batches", "3"])
        self.assertEqual(status, 1)
        self.assertIn("hyperparameters.lr is a double search range", stderr.getvalue())


class ConfigTest(unittest.TestCase):
    def test_constant_hyperparameters_including_nested_and_typed_constants(self):
        section = {"global_batch_size": 8, "opt": {"name": "sgd", "lr": {"type": "const", "val": 0.1}}}
        self.assertEqual(local.constant_hparams(section), {"global_batch_size": 8, "opt": {"name": "sgd", "lr": 0.1}})
        with self.assertRaisesRegex(local.ConfigError, "hyperparameters.opt.kind is a categorical search range"):
            local.constant_hparams({"opt": {"kind": {"type": "categorical", "vals": ["a"]}}})

    def test_training_length_in_batches_records_or_epochs(self):
        def config(length, **extra):
            return {"hyperparameters": {"global_batch_size": 8}, "searcher": {"max_length": length}, **extra}

        self.assertEqual(local.batches_to_train(config({"batches": 5})), 5)
        self.assertEqual(local.batches_to_train(config({"records": 100})), 12)
        self.assertEqual(local.batches_to_train(config({"epochs": 3}, records_per_epoch=20)), 7)
        with self.assertRaisesRegex(local.ConfigError, "records_per_epoch is required"):
            local.batches_to_train(config({"epochs": 3}))
        with self.assertRaisesRegex(local.ConfigError, "pass --batches"):
            local.batches_to_train(config({}))


if __name__ == "__main__":
    unittest.main()
