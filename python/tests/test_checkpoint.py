"""The checkpoint format and bit-exact continuation after a restore."""

import os
import random
import tempfile
import unittest

import numpy
import torch

from trial_fixtures import RegressionTrial
from volador.pytorch import PyTorchTrialContext, TrialController

HPARAMS = {"global_batch_size": 8, "lr": 0.01, "optimizer": "adam", "dropout": 0.2, "clip_norm": 5.0,
           "lr_step_mode": "STEP_EVERY_EPOCH", "train_records": 50}


def fresh_controller():
    return TrialController(RegressionTrial, PyTorchTrialContext(HPARAMS, trial_seed=11))


def scramble_global_rngs():
    random.seed(99)
    numpy.random.seed(99)
    torch.manual_seed(99)


class CheckpointTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def test_restored_training_continues_bit_for_bit(self):
        # 50 records / 8: 6 batches per epoch, so batches 20..39 cross epochs and step the scheduler.
        uninterrupted = fresh_controller()
        uninterrupted.train(0, 20)
        expected = uninterrupted.train(20, 20)
        expected_validation = uninterrupted.validate()

        first = fresh_controller()
        first.train(0, 20)
        first.save(self.folder.name)
        scramble_global_rngs()
        resumed = fresh_controller()
        scramble_global_rngs()
        resumed.load(self.folder.name)
        self.assertEqual(resumed.batches_trained, 20)
        self.assertEqual(resumed.train(20, 20), expected)
        self.assertEqual(resumed.validate(), expected_validation)
        for mine, theirs in zip(resumed.trial.model.state_dict().values(),
                                uninterrupted.trial.model.state_dict().values()):
            self.assertTrue(torch.equal(mine, theirs))
        self.assertEqual(resumed.trial.epoch_counter.state_dict(), uninterrupted.trial.epoch_counter.state_dict())

    def test_the_file_holds_the_manuals_keys_plus_rng_and_data_position(self):
        controller = fresh_controller()
        controller.train(0, 3)
        controller.validate()
        controller.save(self.folder.name)
        self.assertEqual(os.listdir(self.folder.name), ["state_dict.pth"])
        state = torch.load(os.path.join(self.folder.name, "state_dict.pth"))
        self.assertEqual(set(state), {"models_state_dict", "optimizers_state_dict", "lr_schedulers_state_dict",
                                      "callbacks", "grad_scaler_state_dict", "rng_state", "batches_trained"})
        self.assertEqual(len(state["models_state_dict"]), 1)
        self.assertEqual(len(state["optimizers_state_dict"]), 1)
        self.assertEqual(len(state["lr_schedulers_state_dict"]), 1)
        self.assertEqual(state["callbacks"], {"epoch_counter": {"epochs_started": 1, "validations": 1}})
        self.assertEqual(set(state["rng_state"]), {"python", "numpy", "torch", "cuda"})
        self.assertEqual(state["batches_trained"], 3)

    def test_a_checkpoint_of_a_differently_built_trial_is_refused(self):
        controller = fresh_controller()
        controller.save(self.folder.name)
        other = fresh_controller()
        other.context.optimizers.append(other.context.optimizers[0])
        with self.assertRaisesRegex(ValueError, "holds 1 optimizers but the trial wrapped 2"):
            other.load(self.folder.name)


if __name__ == "__main__":
    unittest.main()
