"""Which records each rank sees, and how batches are collated and moved."""

import collections
import unittest

import numpy
import torch

from trial_fixtures import IndexDataset, IndexTrial
from volador.pytorch import DataLoader, PyTorchTrialContext, TrialController, to_device
from volador.pytorch._sampling import TrainingSchedule, epoch_order, validation_batches


class TrainingScheduleTest(unittest.TestCase):
    def test_epoch_order_is_the_documented_numpy_permutation(self):
        expected = numpy.random.default_rng((7, 3)).permutation(50)
        numpy.testing.assert_array_equal(epoch_order(7, 3, 50), expected)
        self.assertFalse(numpy.array_equal(epoch_order(7, 3, 50), epoch_order(7, 4, 50)))

    def test_ranks_take_contiguous_sub_slices_of_each_global_batch(self):
        records, global_batch, size = 23, 6, 3
        schedules = [TrainingSchedule(records, global_batch, 5, rank, size) for rank in range(size)]
        self.assertEqual(schedules[0].batches_per_epoch, 3)  # 23 // 6, the partial batch is dropped
        for batch in range(7):
            epoch, i = batch // 3, batch % 3
            order = epoch_order(5, epoch, records)
            self.assertEqual(sum((s.rank_indices(batch) for s in schedules), []),
                             order[i * global_batch:(i + 1) * global_batch].tolist())
            for rank, schedule in enumerate(schedules):
                start = i * global_batch + rank * 2
                self.assertEqual(schedule.rank_indices(batch), order[start:start + 2].tolist())

    def test_epoch_boundaries(self):
        schedule = TrainingSchedule(10, 4, 0, 0, 1)
        self.assertEqual([schedule.epoch_of(b) for b in range(5)], [0, 0, 1, 1, 2])
        self.assertEqual([schedule.ends_epoch(b) for b in range(4)], [False, True, False, True])

    def test_a_training_set_smaller_than_one_global_batch_is_refused(self):
        with self.assertRaisesRegex(ValueError, "fewer than one global batch"):
            TrainingSchedule(3, 4, 0, 0, 1)

    def test_validation_shares_are_contiguous_and_cover_every_record_once(self):
        for records, per_slot, size in [(10, 4, 1), (10, 2, 3), (7, 3, 2), (3, 5, 3)]:
            shares = [validation_batches(records, per_slot, rank, size) for rank in range(size)]
            flat = [index for share in shares for batch in share for index in batch]
            self.assertEqual(flat, list(range(records)))
            self.assertTrue(all(len(batch) <= per_slot for share in shares for batch in share))
        self.assertEqual(validation_batches(10, 4, 0, 1), [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]])


def index_controller(size=1, rank=0, **hparams) -> TrialController:
    """An IndexTrial controller over 10 training and 5 validation records, global batch 4."""
    context = PyTorchTrialContext({"global_batch_size": 4, "train_records": 10, "validation_records": 5, **hparams},
                                  trial_seed=3)
    return TrialController(IndexTrial, context)


class ControllerSamplingTest(unittest.TestCase):
    def test_a_shuffling_loader_trains_on_the_seeded_schedule(self):
        controller = index_controller()
        metrics = controller.train(0, 5)
        schedule = TrainingSchedule(10, 4, 3, 0, 1)
        self.assertEqual(controller.trial.seen_training, [schedule.rank_indices(b) for b in range(5)])
        self.assertEqual(metrics["batch_idx"], 2.0)
        self.assertEqual(metrics["epoch_idx"], (0 + 0 + 1 + 1 + 2) / 5)
        controller.validate()
        self.assertEqual(controller.trial.seen_validation, [[0, 1, 2, 3], [4]])

    def test_a_loader_without_shuffle_trains_in_dataset_order_every_epoch(self):
        controller = index_controller(train_loader={"shuffle": False})
        controller.train(0, 4)
        self.assertEqual(controller.trial.seen_training, [[0, 1, 2, 3], [4, 5, 6, 7]] * 2)

    def test_the_training_batch_size_must_be_the_per_slot_batch_size(self):
        index_controller(train_loader={"batch_size": 4, "drop_last": True})
        with self.assertRaisesRegex(ValueError, r"build_training_data_loader: DataLoader\(batch_size=7\).*"
                                                r"get_per_slot_batch_size"):
            index_controller(train_loader={"batch_size": 7})

    def test_training_refuses_to_keep_partial_batches(self):
        with self.assertRaisesRegex(ValueError, r"drop_last=False\) cannot be honoured"):
            index_controller(train_loader={"drop_last": False})

    def test_validation_honours_batch_size_shuffle_and_drop_last(self):
        controller = index_controller(validation_loader={"batch_size": 2})
        controller.validate()
        self.assertEqual(controller.trial.seen_validation, [[0, 1], [2, 3], [4]])
        controller = index_controller(validation_loader={"batch_size": 2, "drop_last": True})
        controller.validate()
        self.assertEqual(controller.trial.seen_validation, [[0, 1], [2, 3]])
        controller = index_controller(validation_loader={"shuffle": True})
        controller.validate()
        order = epoch_order(3, 0, 5).tolist()
        self.assertEqual(controller.trial.seen_validation, [order[:4], order[4:]])

    def test_drop_last_that_leaves_nothing_to_evaluate_is_refused(self):
        with self.assertRaisesRegex(ValueError, "drop_last=True\\) leaves a rank nothing to evaluate"):
            index_controller(validation_loader={"batch_size": 8, "drop_last": True})

    def test_arguments_that_choose_records_are_refused_naming_the_argument(self):
        for argument, value in [("sampler", [0, 1]), ("batch_sampler", [[0, 1]]), ("generator", torch.Generator())]:
            with self.assertRaisesRegex(ValueError, f"DataLoader\\({argument}=...\\) is not supported.*shuffle=True"):
                DataLoader(IndexDataset(4), **{argument: value})


class CollationTest(unittest.TestCase):
    def test_nested_records_are_collated_the_torch_way(self):
        loader = DataLoader(IndexDataset(10), batch_size=3, shuffle=True)
        batch = next(loader.load([[3, 1, 4]], torch.Generator()))
        self.assertEqual(batch["index"].tolist(), [3, 1, 4])
        arrays, tensors = batch["pair"]
        self.assertEqual(arrays.tolist(), [[3, -3], [1, -1], [4, -4]])
        self.assertEqual(tensors.tolist(), [3.0, 1.0, 4.0])

    def test_a_users_collate_fn_is_used(self):
        loader = DataLoader(IndexDataset(10), collate_fn=lambda records: [r["index"] for r in records])
        self.assertEqual(next(loader.load([[2, 5]], torch.Generator())), [2, 5])

    def test_iterable_datasets_are_refused(self):
        class Stream(torch.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

        with self.assertRaisesRegex(TypeError, "map-style"):
            DataLoader(Stream())

    def test_to_device_moves_every_tensor_of_any_nesting(self):
        Point = collections.namedtuple("Point", "x y")
        data = {"a": [torch.ones(2), (torch.zeros(1), "label")], "p": Point(torch.ones(1), 3),
                "d": collections.OrderedDict(t=torch.ones(1)), "n": numpy.ones(2)}
        moved = to_device(data, torch.device("meta"))
        self.assertEqual(moved["a"][0].device.type, "meta")
        self.assertEqual(moved["a"][1][0].device.type, "meta")
        self.assertEqual(moved["a"][1][1], "label")
        self.assertIsInstance(moved["p"], Point)
        self.assertEqual(moved["p"].x.device.type, "meta")
        self.assertIsInstance(moved["d"], collections.OrderedDict)
        self.assertIsInstance(moved["n"], numpy.ndarray)


if __name__ == "__main__":
    unittest.main()
