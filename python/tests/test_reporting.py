"""volador.reporting: hyperparameters from the environment or a file, and report lines on stdout."""

import contextlib
import fractions
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

PYTHON_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, PYTHON_ROOT)

from volador import reporting  # noqa: E402

VOLADOR_VARIABLES = (reporting.HPARAMS_ENV, reporting.HPARAMS_FILE_ENV, reporting.DATA_ENV, reporting.DATA_FILE_ENV,
                     reporting.CHECKPOINT_DIR_ENV, reporting.LATEST_CHECKPOINT_ENV)


def script_environment():
    """This process's environment without Volador's variables, with PYTHONPATH reaching volador."""
    env = {k: v for k, v in os.environ.items() if k not in VOLADOR_VARIABLES}
    env["PYTHONPATH"] = PYTHON_ROOT
    return env


def run_script(code):
    """Runs `code` in a fresh interpreter outside Volador; returns its stdout."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=script_environment(),
                          capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def captured_report(call, *args, **kwargs):
    """What call(*args, **kwargs) writes to stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        call(*args, **kwargs)
    return out.getvalue()


class ReportLinesTest(unittest.TestCase):
    def test_a_script_writes_one_prefixed_json_line_per_report(self):
        stdout = run_script("""
            from volador.reporting import *
            print("epoch 1: loss=0.5")
            report_intermediate_result(0.91, step=3)
            report_loss(0.25)
            report_metrics({"loss": 0.25, "acc": 1}, step=0)
            report_final_result(0.93)
        """)
        self.assertEqual(stdout.splitlines(), [
            "epoch 1: loss=0.5",
            '[volador-report] {"kind": "intermediate", "value": 0.91, "step": 3}',
            '[volador-report] {"kind": "loss", "value": 0.25}',
            '[volador-report] {"kind": "metrics", "metrics": {"loss": 0.25, "acc": 1.0}, "step": 0}',
            '[volador-report] {"kind": "final", "value": 0.93}',
        ])

    def test_each_report_is_flushed_at_once(self):
        # The child blocks before exiting; the parent must already see the line.
        code = textwrap.dedent("""
            import sys
            from volador.reporting import report_loss
            report_loss(1.5)
            sys.stdin.readline()
        """)
        with subprocess.Popen([sys.executable, "-c", code], env=script_environment(), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) as child:
            try:
                self.assertEqual(child.stdout.readline(), '[volador-report] {"kind": "loss", "value": 1.5}\n')
            finally:
                child.stdin.close()

    def test_values_are_written_as_floats_in_shortest_form(self):
        self.assertEqual(captured_report(reporting.report_loss, 3),
                         '[volador-report] {"kind": "loss", "value": 3.0}\n')
        self.assertEqual(captured_report(reporting.report_loss, fractions.Fraction(1, 10)),
                         '[volador-report] {"kind": "loss", "value": 0.1}\n')
        self.assertEqual(captured_report(reporting.report_intermediate_result, -1e-300, step=0),
                         '[volador-report] {"kind": "intermediate", "value": -1e-300, "step": 0}\n')

    def test_values_that_are_not_real_numbers_raise_type_error(self):
        for bad in ("0.5", None, True, [1.0], complex(1, 0)):
            with self.subTest(value=bad), self.assertRaisesRegex(TypeError, "must be a real number"):
                reporting.report_intermediate_result(bad)

    def test_values_that_are_not_finite_raise_value_error(self):
        for bad in (float("nan"), float("inf"), -float("inf")):
            with self.subTest(value=bad), self.assertRaisesRegex(ValueError, "must be finite"):
                reporting.report_final_result(bad)
        with self.assertRaisesRegex(ValueError, "too large for a float"):
            reporting.report_loss(10 ** 400)

    def test_steps_are_non_negative_ints(self):
        with self.assertRaisesRegex(TypeError, "step must be a non-negative int"):
            reporting.report_loss(1.0, step=2.0)
        with self.assertRaisesRegex(TypeError, "step must be a non-negative int"):
            reporting.report_loss(1.0, step=True)
        with self.assertRaisesRegex(ValueError, "step must be a non-negative int"):
            reporting.report_loss(1.0, step=-1)

    def test_numpy_scalars_are_accepted(self):
        try:
            import numpy
        except ImportError:
            self.skipTest("numpy is not installed")
        self.assertEqual(captured_report(reporting.report_loss, numpy.float64(0.5), step=numpy.int64(2)),
                         '[volador-report] {"kind": "loss", "value": 0.5, "step": 2}\n')

    def test_bad_metrics_raise_before_anything_is_written(self):
        cases = [({}, TypeError), ([("a", 1)], TypeError), ({1: 1.0}, TypeError), ({"": 1.0}, ValueError),
                 ({"a": 1.0, "b": float("nan")}, ValueError), ({"a": "x"}, TypeError)]
        for metrics, error in cases:
            out = io.StringIO()
            with self.subTest(metrics=metrics), contextlib.redirect_stdout(out), self.assertRaises(error):
                reporting.report_metrics(metrics)
            self.assertEqual(out.getvalue(), "")


class CheckpointTest(unittest.TestCase):
    def setUp(self):
        self.folders = tempfile.TemporaryDirectory()
        self.addCleanup(self.folders.cleanup)
        self.current = os.path.join(self.folders.name, "current")
        os.makedirs(os.path.join(self.current, "model"))
        with open(os.path.join(self.current, "model", "weights.bin"), "wb") as file:
            file.write(b"\x00\x01before")

    def test_checkpoint_reports_a_snapshot_of_the_folder_that_later_writes_do_not_change(self):
        with mock.patch.dict(os.environ, {reporting.CHECKPOINT_DIR_ENV: self.current}):
            self.assertEqual(reporting.checkpoint_dir(), self.current)
            line = captured_report(reporting.checkpoint)
        self.assertTrue(line.startswith(reporting.REPORT_PREFIX) and line.endswith("\n"), line)
        record = json.loads(line[len(reporting.REPORT_PREFIX):])
        self.assertEqual(record["kind"], "checkpoint")
        snapshot = os.path.join(self.folders.name, "snapshots", record["folder"])
        with open(os.path.join(self.current, "model", "weights.bin"), "wb") as file:
            file.write(b"after")
        with open(os.path.join(snapshot, "model", "weights.bin"), "rb") as file:
            self.assertEqual(file.read(), b"\x00\x01before")

    def test_latest_checkpoint_is_the_restored_folder_or_none(self):
        with mock.patch.dict(os.environ, {reporting.LATEST_CHECKPOINT_ENV: self.current}):
            self.assertEqual(reporting.latest_checkpoint(), self.current)
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertIsNone(reporting.latest_checkpoint())

    def test_outside_volador_checkpoint_warns_and_writes_nothing(self):
        done = subprocess.run(
            [sys.executable, "-c", "from volador.reporting import checkpoint\ncheckpoint()\n"],
            env=script_environment(), capture_output=True, text=True, timeout=60, check=True)
        self.assertEqual(done.stdout, "")
        self.assertIn("<string>:2", done.stderr)
        self.assertIn("checkpoint() saves nothing", done.stderr)


class GetParameterTest(unittest.TestCase):
    HPARAMS = {"lr": 0.01, "optimizer": {"momentum": 0.9}, "optimizer.name": "sgd"}

    def setUp(self):
        patcher = mock.patch.dict(os.environ)  # restores the environment afterwards
        patcher.start()
        self.addCleanup(patcher.stop)

    def environment(self, **variables):
        """Sets exactly `variables` of Volador's variables."""
        for name in VOLADOR_VARIABLES:
            os.environ.pop(name, None)
        os.environ.update(variables)

    def hparams_file(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
            file.write(text)
        self.addCleanup(os.unlink, file.name)
        return file.name

    def test_all_hyperparameters_come_from_the_environment_variable(self):
        self.environment(VOLADOR_HPARAMS=json.dumps(self.HPARAMS))
        self.assertEqual(reporting.get_parameter(), self.HPARAMS)

    def test_the_file_is_read_when_the_variable_is_absent(self):
        self.environment(VOLADOR_HPARAMS_FILE=self.hparams_file(json.dumps(self.HPARAMS)))
        self.assertEqual(reporting.get_parameter(), self.HPARAMS)

    def test_the_variable_wins_over_the_file(self):
        self.environment(VOLADOR_HPARAMS='{"lr": 1}', VOLADOR_HPARAMS_FILE=self.hparams_file('{"lr": 2}'))
        self.assertEqual(reporting.get_parameter("lr"), 1)

    def test_one_parameter_by_name_or_dotted_path_with_an_optional_default(self):
        self.environment(VOLADOR_HPARAMS=json.dumps(self.HPARAMS))
        self.assertEqual(reporting.get_parameter("lr"), 0.01)
        self.assertEqual(reporting.get_parameter("optimizer.momentum"), 0.9)
        self.assertEqual(reporting.get_parameter("optimizer.name"), "sgd")
        self.assertEqual(reporting.get_parameter("batch_size", 32), 32)
        self.assertIsNone(reporting.get_parameter("lr.x", None))
        with self.assertRaisesRegex(KeyError, "no hyperparameter named 'epochs' .known: lr, optimizer, optimizer.name"):
            reporting.get_parameter("epochs")

    def test_each_call_returns_a_new_dict(self):
        self.environment(VOLADOR_HPARAMS='{"lr": 1}')
        reporting.get_parameter()["lr"] = 5
        self.assertEqual(reporting.get_parameter(), {"lr": 1})

    def test_bad_hyperparameters_raise_naming_their_source(self):
        self.environment(VOLADOR_HPARAMS="{lr: 1}")
        with self.assertRaisesRegex(ValueError, "environment variable VOLADOR_HPARAMS are not valid JSON"):
            reporting.get_parameter()
        self.environment(VOLADOR_HPARAMS_FILE=self.hparams_file("[1, 2]"))
        with self.assertRaisesRegex(ValueError, "named by VOLADOR_HPARAMS_FILE are not a JSON object"):
            reporting.get_parameter()
        self.environment(VOLADOR_HPARAMS_FILE="/nonexistent/hparams.json")
        with self.assertRaises(FileNotFoundError):
            reporting.get_parameter()

    def test_the_data_section_comes_from_its_variable_else_its_file(self):
        data = {"url": "https://example.com/mnist", "shards": {"train": 4}}
        self.environment(VOLADOR_DATA=json.dumps(data), VOLADOR_HPARAMS='{"url": "not data"}')
        self.assertEqual(reporting.get_data(), data)
        self.assertEqual(reporting.get_data("shards.train"), 4)
        self.assertEqual(reporting.get_data("cache", "/tmp"), "/tmp")
        with self.assertRaisesRegex(KeyError, "no data field named 'cache' .known: shards, url"):
            reporting.get_data("cache")
        self.environment(VOLADOR_DATA_FILE=self.hparams_file(json.dumps(data)))
        self.assertEqual(reporting.get_data("url"), "https://example.com/mnist")
        self.environment(VOLADOR_DATA="[1]")
        with self.assertRaisesRegex(ValueError, "the data in the environment variable VOLADOR_DATA are not a JSON object"):
            reporting.get_data()

    def test_outside_volador_there_are_no_hyperparameters_and_one_warning(self):
        stderr = subprocess.run(
            [sys.executable, "-c", textwrap.dedent("""
                from volador.reporting import get_data, get_parameter
                assert get_parameter() == {}
                assert get_parameter("lr", 0.1) == 0.1
                try:
                    get_parameter("lr")
                except KeyError as error:
                    assert "known: none" in str(error)
                else:
                    raise AssertionError("no KeyError")
                assert get_data() == {} and get_data("url", None) is None
            """)],
            env=script_environment(), capture_output=True, text=True, timeout=60, check=True).stderr
        self.assertEqual(stderr.count("RuntimeWarning: not run by Volador"), 1, stderr)
        self.assertIn("<string>:3", stderr)  # the warning points at the caller's line

    def test_the_module_imports_only_the_standard_library(self):
        stdout = run_script("""
            import sys
            before = set(sys.modules)
            import volador.reporting
            top_level = {m.split(".")[0] for m in set(sys.modules) - before}
            print(sorted(top_level - {"volador"} - sys.stdlib_module_names))
        """)
        self.assertEqual(stdout.strip(), "[]")


if __name__ == "__main__":
    unittest.main()
