"""load_trial_class: the trial class named by `file:Class`, or an error that says what is wrong."""

import os
import tempfile
import textwrap
import unittest

from volador.entrypoint import TrialLoadError, load_trial_class
from volador.pytorch import PyTorchTrial

GOOD_TRIAL = """
    from determined.pytorch import PyTorchTrial

    class NotATrial:
        pass

    class MyTrial(PyTorchTrial):
        pass
"""


class LoadTrialClassTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def write(self, module, source):
        with open(os.path.join(self.folder.name, f"{module}.py"), "w") as file:
            file.write(textwrap.dedent(source))

    def load(self, entrypoint):
        return load_trial_class(entrypoint, self.folder.name)

    def test_loads_the_class_from_the_folder(self):
        self.write("good_def", GOOD_TRIAL)
        trial_class = self.load("good_def:MyTrial")
        self.assertTrue(issubclass(trial_class, PyTorchTrial))
        self.assertEqual(trial_class.__name__, "MyTrial")

    def test_the_module_can_import_its_siblings(self):
        self.write("sibling_helper", "VALUE = 3\n")
        self.write("sibling_def", "import sibling_helper\n" + textwrap.dedent(GOOD_TRIAL))
        self.assertEqual(self.load("sibling_def:MyTrial").__name__, "MyTrial")

    def test_a_malformed_entrypoint(self):
        for entrypoint in ("model_def", "model_def:", ":MyTrial"):
            with self.assertRaisesRegex(TrialLoadError, "not of the form file:Class"):
                self.load(entrypoint)

    def test_a_missing_file(self):
        with self.assertRaisesRegex(TrialLoadError, "absent_def.py not found in"):
            self.load("absent_def:MyTrial")

    def test_an_import_that_raises_gives_the_traceback(self):
        self.write("raising_def", "import os\n\nraise RuntimeError('no data here')\n")
        with self.assertRaises(TrialLoadError) as caught:
            self.load("raising_def:MyTrial")
        message = str(caught.exception)
        self.assertIn("importing raising_def.py raised:", message)
        self.assertIn("Traceback", message)
        self.assertIn('raising_def.py", line 3', message)
        self.assertIn("RuntimeError: no data here", message)

    def test_a_missing_module_imported_by_the_file_is_an_import_failure_not_a_missing_file(self):
        self.write("needs_def", "import no_such_module_anywhere\n")
        with self.assertRaisesRegex(TrialLoadError, "(?s)importing needs_def.py raised:.*no_such_module_anywhere"):
            self.load("needs_def:MyTrial")

    def test_a_missing_class_lists_the_classes_defined(self):
        self.write("other_def", GOOD_TRIAL)
        with self.assertRaisesRegex(TrialLoadError, "other_def.py has no class 'MNistTrial'.*MyTrial, NotATrial"):
            self.load("other_def:MNistTrial")

    def test_a_class_that_is_not_a_trial(self):
        self.write("plain_def", GOOD_TRIAL)
        with self.assertRaisesRegex(TrialLoadError, "plain_def:NotATrial is not a PyTorchTrial subclass"):
            self.load("plain_def:NotATrial")


if __name__ == "__main__":
    unittest.main()
