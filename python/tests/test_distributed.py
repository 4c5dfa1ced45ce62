"""A 2-rank trial over a real torch.distributed (gloo) communicator gives the 1-rank metrics."""

import ctypes
import multiprocessing
import os
import queue
import tempfile
import traceback
import unittest

import numpy
import torch
import torch.distributed as dist

from trial_fixtures import IndexTrial, RegressionTrial
from volador._comm import SingleRank
from volador.pytorch import PyTorchTrialContext, TrialController
from volador.pytorch._collectives import BucketLauncher, OverlappedAverage, gradients_device

# Rank-dependent initial weights check that rank 0's are broadcast; 64-byte
# buckets make the gradient averaging take many fused allreduces.
REGRESSION = {"global_batch_size": 8, "lr": 0.05, "optimizer": "adam", "clip_norm": 1.0, "train_records": 50,
              "lr_step_mode": "STEP_EVERY_EPOCH", "rank_dependent_init": True}
INDEX = {"global_batch_size": 4, "train_records": 18, "validation_records": 11}
TIMEOUT_S = 60


class GlooCommunicator:
    """The communicator interface over torch.distributed with the gloo backend."""

    def __init__(self, rank, size, init_file):
        dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=size)
        self.rank, self.size, self.local_rank, self.local_size = rank, size, rank, size

    def allreduce_(self, array, op):
        tensor = torch.from_numpy(array)
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
        if op == "avg":
            tensor.div_(self.size)

    def broadcast_(self, array, root):
        dist.broadcast(torch.from_numpy(array.reshape(-1).view(numpy.uint8)), src=root)

    def barrier(self):
        dist.barrier()


class AsyncGlooCommunicator(GlooCommunicator):
    """GlooCommunicator plus allreduce_async_, so the context overlaps the gradient allreduces with backward."""

    def __init__(self, rank, size, init_file):
        super().__init__(rank, size, init_file)
        self.launches = []  # per allreduce_async_: the floats it carries

    def allreduce_async_(self, array, op):
        communicator = self

        class Handle:
            def __init__(self):
                self.tensor = torch.from_numpy(array)
                self.work = dist.all_reduce(self.tensor, op=dist.ReduceOp.SUM, async_op=True)
                self.waited = False

            def wait(self):
                if not self.waited:
                    self.work.wait()
                    if op == "avg":
                        self.tensor.div_(communicator.size)
                    self.waited = True

        self.launches.append(len(array))
        return Handle()


class _CudaBuffer:
    """`count` float32 at a CUDA address, as torch.as_tensor takes them (__cuda_array_interface__)."""

    def __init__(self, pointer, count):
        self.__cuda_array_interface__ = {"shape": (count,), "typestr": "<f4", "data": (pointer, False), "version": 2}


class TensorPathGlooCommunicator(AsyncGlooCommunicator):
    """AsyncGlooCommunicator that also offers the GPU-memory calls (use_device_memory, allreduce_device_async_),
    so the tensor-buffer path of the gradient buckets runs over gloo: on the memory of CPU tensors without a GPU,
    of CUDA tensors (gloo's CUDA allreduce, after a device synchronisation standing in for the event) with one."""

    def __init__(self, rank, size, init_file):
        super().__init__(rank, size, init_file)
        self.device_decisions = []  # the `wanted` of each use_device_memory call
        self.device_launches = []  # per allreduce_device_async_: the floats it carries

    def use_device_memory(self, wanted):
        self.device_decisions.append(wanted)
        return None  # formed: the buckets then live in tensors on the parameters' (CPU) device

    def allreduce_device_async_(self, pointer, count, op, ready_event):
        self.device_launches.append(count)
        if ready_event == 0:  # CPU tensors carry no CUDA event
            return self.allreduce_async_(numpy.ctypeslib.as_array((ctypes.c_float * count).from_address(pointer)), op)
        torch.cuda.synchronize()
        tensor = torch.as_tensor(_CudaBuffer(pointer, count), device="cuda")
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
        if op == "avg":
            tensor.div_(self.size)
        torch.cuda.synchronize()

        class Done:
            def wait(self):
                pass

        return Done()


def run_scenarios(communicator):
    """What the test compares between the 1-rank and the 2-rank runs."""
    regression = TrialController(
        RegressionTrial, PyTorchTrialContext(REGRESSION, communicator=communicator, trial_seed=5, bucket_bytes=64))
    results = {
        "train": [regression.train(0, 7), regression.train(7, 9)],
        "validate": regression.validate(),
        "parameters": {name: value.cpu().numpy().copy() for name, value in regression.trial.model.state_dict().items()},
    }
    index = TrialController(IndexTrial, PyTorchTrialContext(INDEX, communicator=communicator, trial_seed=2))
    results["index_train"] = index.train(0, 9)
    results["index_validate"] = index.validate()
    results["seen_training"] = index.trial.seen_training
    results["seen_validation"] = index.trial.seen_validation
    return results


def mismatched_metric_names(communicator):
    """The error each rank raises when the ranks report different metric names."""
    index = TrialController(IndexTrial, PyTorchTrialContext(INDEX, communicator=communicator))
    index.trial.train_batch = lambda batch, epoch_idx, batch_idx: {f"metric_of_rank_{communicator.rank}": 1.0}
    try:
        index.train(0, 1)
    except ValueError as error:
        return str(error)
    return None


def rank_main(rank, size, init_file, results):
    try:
        torch.set_num_threads(1)
        communicator = GlooCommunicator(rank, size, init_file)
        outcome = run_scenarios(communicator)
        outcome["mismatch"] = mismatched_metric_names(communicator)
        overlapped = AsyncGlooCommunicator.__new__(AsyncGlooCommunicator)  # the same process group
        overlapped.rank, overlapped.size, overlapped.local_rank, overlapped.local_size = rank, size, rank, size
        overlapped.launches = []
        outcome["overlapped"] = run_scenarios(overlapped)
        outcome["overlapped_launches"] = overlapped.launches
        tensor_path = TensorPathGlooCommunicator.__new__(TensorPathGlooCommunicator)  # the same process group
        tensor_path.rank, tensor_path.size, tensor_path.local_rank, tensor_path.local_size = rank, size, rank, size
        tensor_path.launches, tensor_path.device_decisions, tensor_path.device_launches = [], [], []
        outcome["tensor_path"] = run_scenarios(tensor_path)
        outcome["tensor_path_launches"] = tensor_path.device_launches
        outcome["tensor_path_decisions"] = tensor_path.device_decisions
        communicator.barrier()
        dist.destroy_process_group()
    except Exception:
        outcome = {"error": traceback.format_exc()}
    results.put((rank, outcome))


def run_two_ranks():
    # A fork server imports torch once for both ranks and shares no thread state with this process.
    processes_context = multiprocessing.get_context("forkserver")
    processes_context.set_forkserver_preload(["test_distributed"])
    results = processes_context.Queue()
    with tempfile.TemporaryDirectory() as folder:
        processes = [processes_context.Process(target=rank_main, args=(rank, 2, os.path.join(folder, "init"), results))
                     for rank in range(2)]
        for process in processes:
            process.start()
        try:
            outcomes = dict(results.get(timeout=TIMEOUT_S) for _ in processes)
        except queue.Empty:
            outcomes = {}
        finally:
            for process in processes:
                process.join(timeout=5)
                if process.is_alive():
                    process.kill()
    return outcomes


class TwoRanksTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.single = run_scenarios(SingleRank())
        cls.ranks = run_two_ranks()

    def rank(self, rank):
        self.assertIn(rank, self.ranks, "a rank process did not report within the timeout")
        self.assertNotIn("error", self.ranks[rank], self.ranks[rank].get("error"))
        return self.ranks[rank]

    def assert_metrics_close(self, actual, expected):
        self.assertEqual(set(actual), set(expected))
        for name in expected:
            self.assertAlmostEqual(actual[name], expected[name], delta=1e-5 * max(1.0, abs(expected[name])),
                                   msg=name)

    def test_training_and_validation_metrics_match_one_rank(self):
        for rank in range(2):
            for actual, expected in zip(self.rank(rank)["train"], self.single["train"]):
                self.assert_metrics_close(actual, expected)
            self.assert_metrics_close(self.rank(rank)["validate"], self.single["validate"])

    def test_parameters_match_one_rank(self):
        for rank in range(2):
            for name, expected in self.single["parameters"].items():
                numpy.testing.assert_allclose(self.rank(rank)["parameters"][name], expected, atol=1e-5, err_msg=name)

    def test_ranks_split_each_global_batch_and_the_validation_set(self):
        rank0, rank1 = self.rank(0), self.rank(1)
        for both, single in zip(zip(rank0["seen_training"], rank1["seen_training"]), self.single["seen_training"]):
            self.assertEqual(both[0] + both[1], single)
        self.assertEqual(rank0["seen_validation"], [[0, 1], [2, 3], [4]])
        self.assertEqual(rank1["seen_validation"], [[5, 6], [7, 8], [9, 10]])
        self.assert_metrics_close(rank0["index_train"], self.single["index_train"])
        self.assertEqual(rank0["index_validate"], {"mean_index": 5.0})
        self.assertEqual(self.single["index_validate"], {"mean_index": 5.0})

    def test_overlapped_averaging_matches_the_synchronous_one_bit_for_bit(self):
        for rank in range(2):
            outcome = self.rank(rank)
            self.assertGreater(len(outcome["overlapped_launches"]), 0)
            self.assertEqual(outcome["overlapped"]["train"], outcome["train"])
            self.assertEqual(outcome["overlapped"]["validate"], outcome["validate"])
            for name, expected in outcome["parameters"].items():
                numpy.testing.assert_array_equal(outcome["overlapped"]["parameters"][name], expected, err_msg=name)
        self.assertEqual(self.rank(0)["overlapped_launches"], self.rank(1)["overlapped_launches"])

    def test_buckets_in_tensors_give_the_host_buffers_results_bit_for_bit(self):
        for rank in range(2):
            outcome = self.rank(rank)
            self.assertEqual(outcome["tensor_path_launches"], outcome["overlapped_launches"])
            # Once, at the regression trial's first averaging; its parameters are on a GPU where there is one.
            self.assertEqual(outcome["tensor_path_decisions"], [torch.cuda.is_available()])
            self.assertEqual(outcome["tensor_path"]["train"], outcome["train"])
            self.assertEqual(outcome["tensor_path"]["validate"], outcome["validate"])
            for name, expected in outcome["parameters"].items():
                numpy.testing.assert_array_equal(outcome["tensor_path"]["parameters"][name], expected, err_msg=name)

    def test_different_metric_names_fail_on_every_rank(self):
        for rank in range(2):
            self.assertIn("the ranks report different metric names", self.rank(rank)["mismatch"])


class GradientsDeviceTest(unittest.TestCase):
    """Where the buckets live: decided by the communicator's answer, host memory where it has none."""

    class Peer:
        rank, size, local_rank, local_size = 0, 2, 0, 2

        def __init__(self, answer):
            self.answer, self.asked = answer, []

        def use_device_memory(self, wanted):
            self.asked.append(wanted)
            return self.answer

    def test_a_refusal_keeps_host_memory_and_cpu_parameters_do_not_ask_for_gpu_memory(self):
        parameters = list(torch.nn.Linear(3, 2).parameters())
        peer = self.Peer("GPU collectives are off for this trial: rank(s) 0, 1 cannot use them")
        self.assertIsNone(gradients_device(parameters, peer))
        self.assertEqual(peer.asked, [False])

    def test_a_communicator_without_gpu_calls_or_a_group_of_one_is_not_asked(self):
        parameters = list(torch.nn.Linear(3, 2).parameters())
        self.assertIsNone(gradients_device(parameters, SingleRank()))
        peer = self.Peer(None)
        peer.size = 1
        self.assertIsNone(gradients_device(parameters, peer))
        self.assertEqual(peer.asked, [])


class BucketLauncherTest(unittest.TestCase):
    """Buckets start strictly in order, each once it and every bucket before it is final."""

    def test_buckets_start_in_order_once_their_prefix_is_ready(self):
        launcher = BucketLauncher([[0, 1], [2], [3, 4]])
        self.assertEqual(launcher.mark_ready(4), [])
        self.assertEqual(launcher.mark_ready(3), [])  # bucket 2 is complete, but 0 and 1 are not
        self.assertEqual(launcher.mark_ready(2), [])
        self.assertEqual(launcher.mark_ready(0), [])
        self.assertEqual(launcher.mark_ready(1), [0, 1, 2])
        self.assertEqual(launcher.finish(), [])

    def test_a_ready_prefix_starts_before_backward_ends(self):
        launcher = BucketLauncher([[0], [1], [2]])
        self.assertEqual(launcher.mark_ready(0), [0])
        self.assertEqual(launcher.mark_ready(0), [])  # a repeated hook changes nothing
        self.assertEqual(launcher.mark_ready(2), [])
        self.assertEqual(launcher.mark_ready(1), [1, 2])

    def test_the_flags_bucket_starts_right_after_the_last_gradients(self):
        launcher = BucketLauncher([[1], [0], []])
        self.assertEqual(launcher.mark_ready(1), [0])
        self.assertEqual(launcher.mark_ready(0), [1, 2])

    def test_finish_starts_the_rest_in_order(self):
        launcher = BucketLauncher([[2], [1, 0], []])
        self.assertEqual(launcher.mark_ready(1), [])
        self.assertEqual(launcher.finish(), [0, 1, 2])
        self.assertEqual(launcher.finish(), [])


class RecordingAsyncPeer:
    """Rank 0 of two whose peer holds the same values; records, per allreduce_async_, the floats it carries and
    how many of `parameters` had a gradient when it started."""

    rank, size, local_rank, local_size = 0, 2, 0, 2

    def __init__(self, parameters):
        self.parameters = parameters
        self.launches = []

    def allreduce_async_(self, array, op):
        self.launches.append((len(array), sum(p.grad is not None for p in self.parameters)))

        class Done:
            def wait(self):
                pass

        return Done()


class ReverseOrderOverlapTest(unittest.TestCase):
    """Buckets follow reverse parameter order, so the last layer's start while backward computes the first's."""

    def test_the_last_layers_bucket_starts_before_the_first_layers_gradients_exist(self):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Linear(5, 7), torch.nn.Linear(7, 2))
        parameters = list(model.parameters())  # sizes 15, 5, 35, 7, 14, 2
        peer = RecordingAsyncPeer(parameters)
        overlap = OverlappedAverage(parameters, peer, bucket_bytes=16 * 4)
        loss = model(torch.ones(4, 3)).sum()
        overlap.attach()  # after forward, as context.backward does: the graph keeps the hooked accumulators alive
        loss.backward()
        overlap.backward_done()
        # Buckets of at most 16 floats: (last bias 2 + last weight 14), 7, 35, 5, 15, then the 6 presence flags.
        self.assertEqual([floats for floats, _ in peer.launches], [16, 7, 35, 5, 15, 6])
        self.assertEqual(peer.launches[0][1], 2)  # only the last layer's gradients existed
        expected = [p.grad.clone() for p in parameters]
        overlap.finish()
        for parameter, gradient in zip(parameters, expected):
            self.assertTrue(torch.equal(parameter.grad, gradient))  # the mean of two equal ranks


if __name__ == "__main__":
    unittest.main()
