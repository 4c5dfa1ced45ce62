"""The API surface: volador.pytorch, the determined shim, and the manual's MNIST model_def (examples/mnist_pytorch)."""

import os
import subprocess
import sys
import unittest

import determined as det
import determined.pytorch
import volador.pytorch
from volador import local
from volador.entrypoint import load_trial_class
from volador.pytorch import PyTorchTrialContext

PYTHON_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# examples/mnist_pytorch: the manual's MNIST tutorial trial, unchanged but for
# its data source (scikit-learn's digits upsampled to 28x28 instead of a download).
EXAMPLE_MNIST = os.path.join(os.path.dirname(PYTHON_ROOT), "examples", "mnist_pytorch")
MNIST_HPARAMS = {"learning_rate": 1.0, "global_batch_size": 32, "n_filters1": 4, "n_filters2": 8,
                 "dropout1": 0.25, "dropout2": 0.5}


class ManualMnistTest(unittest.TestCase):
    def test_the_manuals_mnist_trial_trains_unchanged(self):
        trial_class = load_trial_class("model_def:MNistTrial", EXAMPLE_MNIST)
        lines = []
        metrics = local.run(trial_class, MNIST_HPARAMS, batches=40, scheduling_unit=20, report=lines.append)
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith("batches 0-19: loss="), lines[0])
        self.assertGreater(metrics["accuracy"], 0.4)  # chance is 0.1; 0.79 when written


class ImportSurfaceTest(unittest.TestCase):
    def test_determined_names_are_voladors(self):
        from determined.pytorch import DataLoader, LRScheduler, PyTorchTrial, PyTorchTrialContext

        self.assertIs(PyTorchTrial, volador.pytorch.PyTorchTrial)
        self.assertIs(PyTorchTrialContext, volador.pytorch.PyTorchTrialContext)
        self.assertIs(DataLoader, volador.pytorch.DataLoader)
        self.assertIs(LRScheduler, volador.pytorch.LRScheduler)
        self.assertIs(det.pytorch.PyTorchTrial, volador.pytorch.PyTorchTrial)
        self.assertIs(det.pytorch, determined.pytorch)
        self.assertEqual({mode.name for mode in LRScheduler.StepMode},
                         {"STEP_EVERY_EPOCH", "STEP_EVERY_BATCH", "MANUAL_STEP", "STEP_EVERY_OPTIMIZER_STEP"})

    def test_keras_and_deepspeed_say_they_are_not_available_and_what_to_use(self):
        with self.assertRaisesRegex(ImportError, "determined.keras .*not available in Volador yet.*PyTorchTrial"):
            from determined.keras import TFKerasTrial  # noqa: F401
        with self.assertRaisesRegex(ImportError, "deepspeed .*not available in Volador yet.*PyTorchTrial"):
            det.pytorch.deepspeed  # noqa: B018

    def test_importing_the_packages_does_not_import_torch(self):
        code = ("import sys, volador, determined, volador.entrypoint, volador.worker, volador.local; "
                "sys.exit('torch' in sys.modules)")
        environment = {**os.environ, "PYTHONPATH": PYTHON_ROOT}
        self.assertEqual(subprocess.run([sys.executable, "-c", code], env=environment).returncode, 0)


class ContextTest(unittest.TestCase):
    def test_getters(self):
        context = PyTorchTrialContext({"global_batch_size": 12, "lr": 0.1, "net": {"width": 3}},
                                      trial_seed=4, data_config={"url": "u"}, experiment_id=7, trial_id=31)
        self.assertEqual(context.get_hparam("lr"), 0.1)
        self.assertEqual(context.get_hparam("net"), {"width": 3})
        self.assertEqual(context.get_hparams()["global_batch_size"], 12)
        self.assertEqual((context.get_global_batch_size(), context.get_per_slot_batch_size()), (12, 12))
        self.assertEqual(context.get_data_config(), {"url": "u"})
        self.assertEqual((context.get_experiment_id(), context.get_trial_id(), context.get_trial_seed()), (7, 31, 4))
        distributed = context.distributed
        self.assertEqual((distributed.get_rank(), distributed.get_size(), distributed.get_local_rank(),
                          distributed.get_local_size()), (0, 1, 0, 1))

    def test_per_slot_batch_size_divides_the_global_one(self):
        class ThreeRanks:
            rank, size, local_rank, local_size = 2, 3, 0, 1

        context = PyTorchTrialContext({"global_batch_size": 12}, communicator=ThreeRanks())
        self.assertEqual(context.get_per_slot_batch_size(), 4)
        self.assertEqual(context.distributed.get_rank(), 2)
        with self.assertRaisesRegex(ValueError, "global_batch_size 10 must be positive and divisible by the 3"):
            PyTorchTrialContext({"global_batch_size": 10}, communicator=ThreeRanks())

    def test_missing_hyperparameters_are_named(self):
        with self.assertRaisesRegex(KeyError, "must include global_batch_size"):
            PyTorchTrialContext({"lr": 0.1})
        with self.assertRaisesRegex(KeyError, "'momentum' is not defined; defined: global_batch_size, lr"):
            PyTorchTrialContext({"global_batch_size": 2, "lr": 0.1}).get_hparam("momentum")


if __name__ == "__main__":
    unittest.main()
