"""keep_freed_memory(): memory freed by one step is reused by the next without page faults."""

import subprocess
import sys
import textwrap
import unittest

# One "training step": an 8 MiB block (it raises glibc's default mmap threshold to 8 MiB, so its trim
# threshold to 16 MiB), then four 6 MiB blocks together, all freed. By default the freed 24 MiB heap top
# is trimmed after each step and faulted in again by the next (~2,000 faults here); kept, it is not.
STEPS = textwrap.dedent("""
    import resource, sys
    import numpy
    from volador._allocator import keep_freed_memory
    if sys.argv[1] == "keep" and not keep_freed_memory():
        sys.exit(77)

    def step():
        big = numpy.ones(1 << 20)
        del big
        parts = [numpy.ones(6 << 17) for _ in range(4)]
        del parts

    step()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(3):
        step()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")
PAGES_TOUCHED_PER_STEP = (8 + 4 * 6) << 20 >> 12


def page_faults_of_three_steps(mode: str) -> int:
    run = subprocess.run([sys.executable, "-c", STEPS, mode], capture_output=True, text=True, timeout=60)
    if run.returncode == 77:
        raise unittest.SkipTest("this C library has no mallopt")
    if run.returncode != 0:
        raise AssertionError(run.stderr)
    return int(run.stdout)


class KeepFreedMemoryTest(unittest.TestCase):
    def test_repeated_steps_reuse_the_memory_without_page_faults(self):
        self.assertLess(page_faults_of_three_steps("keep"), PAGES_TOUCHED_PER_STEP // 20)


if __name__ == "__main__":
    unittest.main()
