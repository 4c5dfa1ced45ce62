"""Metric averaging over batches (training) and over records (validation)."""

import unittest

import torch

from trial_fixtures import IndexDataset, IndexTrial
from volador.pytorch import DataLoader, PyTorchTrial, PyTorchTrialContext, TrialController
from volador.pytorch._metrics import MetricAccumulator


class AlternatingTrial(PyTorchTrial):
    """Reports metric b only on odd batches; `bad_metric` hparam selects an invalid return value."""

    def build_training_data_loader(self):
        return DataLoader(IndexDataset(8))

    def build_validation_data_loader(self):
        return DataLoader(IndexDataset(3))

    def train_batch(self, batch, epoch_idx, batch_idx):
        bad = self.context.get_hparams().get("bad_metric")
        if bad is not None:
            return bad
        return {"a": torch.tensor(1.0)} if batch_idx % 2 == 0 else {"a": 3, "b": 5.0}

    def evaluate_batch(self, batch):
        return {"a": 1.0}


def controller(trial_class, **hparams):
    return TrialController(trial_class, PyTorchTrialContext({"global_batch_size": 4, **hparams}))


class TrainingMetricsTest(unittest.TestCase):
    def test_metrics_are_averaged_over_the_batches_of_a_workload(self):
        trial = controller(IndexTrial, train_records=12, validation_records=1)
        metrics = trial.train(2, 4)
        batch_means = [sum(indices) / 4 for indices in trial.trial.seen_training]
        self.assertAlmostEqual(metrics["mean_index"], sum(batch_means) / 4)
        self.assertEqual(metrics["batch_idx"], (2 + 3 + 4 + 5) / 4)

    def test_a_metric_is_averaged_over_the_batches_that_report_it(self):
        metrics = controller(AlternatingTrial).train(0, 4)
        self.assertEqual(metrics, {"a": 2.0, "b": 5.0})

    def test_invalid_metrics_are_errors_naming_the_metric(self):
        with self.assertRaisesRegex(ValueError, "metric 'v' is a tensor of shape \\(2,\\)"):
            controller(AlternatingTrial, bad_metric={"v": torch.ones(2)}).train(0, 1)
        with self.assertRaisesRegex(ValueError, "metric 'v' is 'x', not a number"):
            controller(AlternatingTrial, bad_metric={"v": "x"}).train(0, 1)
        with self.assertRaisesRegex(TypeError, "train_batch must return a dict"):
            controller(AlternatingTrial, bad_metric=[1.0]).train(0, 1)


class ValidationMetricsTest(unittest.TestCase):
    def test_metrics_are_weighted_by_the_records_in_each_batch(self):
        trial = controller(IndexTrial, train_records=4, validation_records=10)
        metrics = trial.validate()
        self.assertEqual(trial.trial.seen_validation, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]])
        self.assertEqual(metrics, {"mean_index": 4.5})  # the mean over records, not over batch means (5.17)

    def test_validation_runs_without_gradients_in_eval_mode(self):
        trial = controller(IndexTrial, train_records=4, validation_records=2)
        observed = []
        trial.trial.evaluate_batch = lambda batch: observed.append(
            (torch.is_grad_enabled(), trial.trial.model.training)) or {}
        trial.validate()
        self.assertEqual(observed, [(False, False)])
        trial.train(0, 1)
        self.assertTrue(trial.trial.model.training)


class AccumulatorTest(unittest.TestCase):
    def test_weighted_sums_and_means(self):
        accumulator = MetricAccumulator("evaluate_batch")
        accumulator.add({"x": torch.tensor([2.0])}, weight=3)
        accumulator.add({"x": 4.0}, weight=1)
        self.assertEqual(accumulator.totals(), ({"x": 10.0}, {"x": 4.0}))
        self.assertEqual(accumulator.means(), {"x": 2.5})

    def test_tensors_of_many_batches_sum_exactly_across_folds_and_types(self):
        accumulator = MetricAccumulator("evaluate_batch")
        batches = 2 * MetricAccumulator.FOLD_EVERY + 17
        expected = 0.0
        for b in range(batches):
            value = [torch.tensor(b / 8, dtype=torch.float32), torch.tensor(b, dtype=torch.int64), b / 4][b % 3]
            accumulator.add({"x": value}, weight=1 + b % 5)
            expected += float(value) * (1 + b % 5)
        sums, weights = accumulator.totals()
        self.assertEqual(sums, {"x": expected})
        self.assertEqual(weights, {"x": float(sum(1 + b % 5 for b in range(batches)))})
        self.assertEqual(accumulator.totals(), (sums, weights))  # totals() twice: nothing is counted again


if __name__ == "__main__":
    unittest.main()
