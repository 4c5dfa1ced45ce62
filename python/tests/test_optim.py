"""Context stepping: LR scheduler modes, gradient clipping, mixed precision, fused gradient averaging."""

import os
import unittest
from unittest import mock

import numpy
import torch
from torch import nn

from trial_fixtures import RegressionTrial
from volador.pytorch import LRScheduler, PyTorchTrialContext, TrialController
from volador.pytorch._collectives import DEFAULT_BUCKET_BYTES, average_gradients


class PeerDouble:
    """Rank 0 of two whose peer always holds `factor` times this rank's values; records each call."""

    rank, size, local_rank, local_size = 0, 2, 0, 2

    def __init__(self, factor=1.0):
        self.factor = factor
        self.allreduce_sizes = []
        self.broadcasts = 0

    def allreduce_(self, array, op):
        assert array.dtype == numpy.float32 and array.flags.c_contiguous and op == "avg"
        self.allreduce_sizes.append(array.nbytes)
        array *= (1 + self.factor) / 2

    def broadcast_(self, array, root):
        self.broadcasts += 1

    def barrier(self):
        pass


def trained_lr(step_mode, batches=10):
    context = PyTorchTrialContext({"global_batch_size": 8, "lr": 0.05, "lr_step_mode": step_mode,
                                   "train_records": 32})
    controller = TrialController(RegressionTrial, context)
    controller.train(0, batches)
    return controller.trial.scheduler.get_last_lr()[0]


class LRSchedulerTest(unittest.TestCase):
    def test_step_modes(self):
        # 32 records / 8 per batch: 4 batches per epoch, so 10 batches end 2 epochs.
        self.assertAlmostEqual(trained_lr("STEP_EVERY_EPOCH"), 0.05 * 0.9 ** 2)
        self.assertAlmostEqual(trained_lr("STEP_EVERY_BATCH"), 0.05 * 0.9 ** 10)
        self.assertAlmostEqual(trained_lr("STEP_EVERY_OPTIMIZER_STEP"), 0.05 * 0.9 ** 10)
        self.assertAlmostEqual(trained_lr("MANUAL_STEP"), 0.05)

    def test_the_learning_rate_a_batch_sees_was_set_before_it(self):
        context = PyTorchTrialContext({"global_batch_size": 8, "lr": 0.05, "train_records": 32})
        controller = TrialController(RegressionTrial, context)
        self.assertAlmostEqual(controller.train(0, 4)["lr"], 0.05)
        self.assertAlmostEqual(controller.train(4, 4)["lr"], 0.045)

    def test_frequency(self):
        scheduler = mock.Mock()
        wrapped = LRScheduler(scheduler, LRScheduler.StepMode.STEP_EVERY_BATCH, frequency=3)
        for batch in range(10):
            wrapped.after_batch(batch)
            wrapped.after_epoch(batch)
        self.assertEqual(scheduler.step.call_count, 3)

    def test_a_step_mode_must_be_a_step_mode(self):
        with self.assertRaisesRegex(TypeError, "StepMode"):
            LRScheduler(mock.Mock(), "STEP_EVERY_BATCH")


class StepOptimizerTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.context = PyTorchTrialContext({"global_batch_size": 4})
        self.model = self.context.wrap_model(nn.Linear(3, 2))
        self.optimizer = self.context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=1.0))

    def backward(self, scale=100.0):
        self.context.backward(self.model(torch.ones(4, 3)).sum() * scale)

    def test_clip_grads_gets_the_optimizers_parameters_after_backward(self):
        before = [p.detach().clone() for p in self.model.parameters()]
        self.backward()
        seen = []

        def clip(params):
            seen.extend(params)
            nn.utils.clip_grad_norm_(params, 0.0001)

        self.context.step_optimizer(self.optimizer, clip_grads=clip)
        self.assertEqual([id(p) for p in seen], [id(p) for p in self.model.parameters()])
        change = torch.cat([(p.detach() - b).flatten() for p, b in zip(self.model.parameters(), before)])
        self.assertLessEqual(change.norm().item(), 0.0001 * 1.001)  # lr 1: the step is the clipped gradient
        self.assertGreater(change.norm().item(), 0.00009)

    def test_gradients_are_zeroed_after_the_step_unless_asked_not_to(self):
        self.backward()
        self.context.step_optimizer(self.optimizer)
        self.assertTrue(all(p.grad is None or not p.grad.any() for p in self.model.parameters()))
        self.backward()
        self.context.step_optimizer(self.optimizer, auto_zero_grads=False)
        self.assertTrue(all(p.grad.any() for p in self.model.parameters()))


class MixedPrecisionTest(unittest.TestCase):
    def make(self, **amp_options):
        context = PyTorchTrialContext({"global_batch_size": 4}, device="cpu")
        model = context.wrap_model(nn.Sequential(nn.Linear(3, 8), nn.Linear(8, 1)))
        optimizer = context.wrap_optimizer(torch.optim.SGD(model.parameters(), lr=0.1))
        returned = context.configure_apex_amp(models=model, optimizers=optimizer, **amp_options)
        self.assertEqual(returned, (model, optimizer))
        inner_types = []
        model[0].register_forward_hook(lambda module, args, output: inner_types.append(output.dtype))
        return context, model, optimizer, inner_types

    def test_cpu_forward_runs_in_bfloat16_and_returns_float32(self):
        context, model, optimizer, inner_types = self.make(opt_level="O1")
        output = model(torch.ones(4, 3))
        self.assertEqual(inner_types, [torch.bfloat16])
        self.assertEqual(output.dtype, torch.float32)
        self.assertFalse(context.grad_scaler.is_enabled())  # no loss scaling on CPU
        before = model[1].weight.detach().clone()
        context.backward(output.sum())
        context.step_optimizer(optimizer)
        context._after_train_batch(0, 0, False)
        self.assertFalse(torch.equal(before, model[1].weight))
        self.assertEqual(model[1].weight.dtype, torch.float32)

    def test_o0_leaves_precision_alone(self):
        _, model, _, inner_types = self.make(opt_level="O0")
        model(torch.ones(4, 3))
        self.assertEqual(inner_types, [torch.float32])

    def test_bad_or_repeated_configuration_is_refused(self):
        context = PyTorchTrialContext({"global_batch_size": 4})
        with self.assertRaisesRegex(ValueError, "opt_level"):
            context.configure_apex_amp([], [], opt_level="O4")
        context.configure_apex_amp([], [])
        with self.assertRaisesRegex(RuntimeError, "only once"):
            context.configure_apex_amp([], [])


class FusedGradientAveragingTest(unittest.TestCase):
    def parameters_with_gradients(self, sizes):
        parameters = [nn.Parameter(torch.zeros(size)) for size in sizes]
        for parameter in parameters:
            parameter.grad = torch.arange(float(parameter.numel()))
        return parameters

    def test_many_small_gradients_share_one_allreduce(self):
        peer = PeerDouble(factor=3.0)
        parameters = self.parameters_with_gradients([10] * 50)
        average_gradients(parameters, peer, DEFAULT_BUCKET_BYTES)
        self.assertEqual(peer.allreduce_sizes, [(500 + 50) * 4])  # gradients + presence flags
        for parameter in parameters:
            self.assertTrue(torch.equal(parameter.grad, 2 * torch.arange(10.0)))  # (g + 3g) / 2

    def test_buckets_respect_the_size_and_a_large_tensor_travels_alone(self):
        peer = PeerDouble()
        average_gradients(self.parameters_with_gradients([4, 4, 100, 4]), peer, bucket_bytes=40)
        # Last parameter first, the 4 presence flags at the end.
        self.assertEqual(peer.allreduce_sizes, [4 * 4, 100 * 4, (4 + 4) * 4, 4 * 4])

    def test_a_missing_gradient_counts_as_zeros_and_stays_none_when_missing_everywhere(self):
        parameters = self.parameters_with_gradients([3, 3])
        parameters[1].grad = None
        average_gradients(parameters, PeerDouble(factor=1.0), DEFAULT_BUCKET_BYTES)
        self.assertIsNone(parameters[1].grad)
        self.assertTrue(torch.equal(parameters[0].grad, torch.arange(3.0)))

    def test_bucket_size_comes_from_the_environment_or_the_context(self):
        peer = PeerDouble()
        with mock.patch.dict(os.environ, {"VOLADOR_BUCKET_BYTES": "16"}):
            context = PyTorchTrialContext({"global_batch_size": 4}, communicator=peer)
        model = context.wrap_model(nn.Linear(3, 1))  # weight 12 bytes, bias 4: each padded to 16
        self.assertEqual(peer.broadcasts, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        context.backward(model(torch.ones(2, 3)).sum())
        context.step_optimizer(optimizer)
        self.assertEqual(peer.allreduce_sizes, [4 + 12, 8])  # bias, weight; the presence flags alone: 16 + 8 > 16
        context = PyTorchTrialContext({"global_batch_size": 4}, communicator=peer, bucket_bytes=1 << 20)
        context.wrap_model(nn.Linear(3, 1))
        self.assertEqual(peer.broadcasts, 3)

    def test_one_rank_communicates_nothing(self):
        context = PyTorchTrialContext({"global_batch_size": 4})
        self.assertEqual(context.distributed.get_size(), 1)
        with mock.patch("volador._comm.SingleRank.allreduce_") as allreduce:
            model = context.wrap_model(nn.Linear(3, 1))
            context.backward(model(torch.ones(2, 3)).sum())
            context.step_optimizer(torch.optim.SGD(model.parameters(), lr=0.1))
        allreduce.assert_not_called()


if __name__ == "__main__":
    unittest.main()
