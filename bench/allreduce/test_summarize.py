"""summarize.py on hand-made RESULT lines: the NCCL rows (volador-nccl against
nccl-direct) and their 5 % target. Run: python3 -m unittest -v test_summarize"""
import contextlib
import io
import json
import os
import tempfile
import unittest
from unittest import mock

import summarize


def result(impl, nbytes, time_us, ranks=1):
    return "RESULT " + json.dumps({"impl": impl, "ranks": ranks, "bytes": nbytes, "iters": 10, "time_us": time_us,
                                   "algbw_gbps": nbytes / time_us / 1e3, "busbw_gbps": 0.0})


def summary(rounds):
    """summarize.py's output for `rounds`, each a list of (impl, bytes, time_us)."""
    lines = []
    for number, rows in enumerate(rounds, 1):
        lines.append(f"ROUND {number}")
        lines += [result(*row) for row in rows]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), mock.patch("sys.argv", ["summarize.py", f.name]):
            summarize.main()
        return out.getvalue()
    finally:
        os.unlink(f.name)


def size_line(text, size):
    """The NCCL target's row for `size`, split into its fields."""
    rows = [line.split() for line in text.splitlines() if line.split()[:1] == [size] and len(line.split()) == 3]
    assert len(rows) == 1, text
    return rows[0]


class NcclTarget(unittest.TestCase):
    def test_ratio_of_the_medians_per_size_and_the_sizes_over_5_percent(self):
        text = summary([
            [("volador-nccl", 8, 10.0), ("nccl-direct", 8, 9.0), ("volador-nccl", 1 << 20, 20.0),
             ("nccl-direct", 1 << 20, 20.0)],
            [("nccl-direct", 8, 10.0), ("volador-nccl", 8, 10.4), ("nccl-direct", 1 << 20, 21.0),
             ("volador-nccl", 1 << 20, 20.0)],
            [("volador-nccl", 8, 50.0), ("nccl-direct", 8, 9.5), ("volador-nccl", 1 << 20, 20.0),
             ("nccl-direct", 1 << 20, 20.5)],
        ])
        # medians: 8 B 10.4 / 9.5; 1 MiB 20.0 / 20.5
        self.assertIn("[NOT MET] volador-nccl time per call within 5% of nccl-direct at every size, 1 ranks: "
                      "worst 1.095x at 8; over at 8", text)
        self.assertEqual(size_line(text, "8"), ["8", "1.095", "no"])
        self.assertEqual(size_line(text, "1M"), ["1M", "0.976", "yes"])

    def test_met_when_every_size_is_within_5_percent(self):
        text = summary([[("volador-nccl", 8, 10.5), ("nccl-direct", 8, 10.0), ("volador-nccl", 64, 10.0),
                         ("nccl-direct", 64, 11.0)]])
        self.assertIn("[MET] volador-nccl time per call within 5% of nccl-direct at every size, 1 ranks: "
                      "worst 1.050x at 8", text)

    def test_one_rank_table_shows_the_speed_ratio_although_busbw_is_zero(self):
        text = summary([[("volador-nccl", 8, 10.0), ("nccl-direct", 8, 12.5)]])
        row = next(line.split() for line in text.splitlines() if line.split()[:1] == ["8"] and len(line.split()) == 6)
        self.assertEqual(row[-1], "1.25")

    def test_no_nccl_target_without_nccl_rows(self):
        text = summary([[("volador-shm", 8, 1.0), ("openmpi-vader", 8, 1.0)]])
        self.assertNotIn("nccl", text)


if __name__ == "__main__":
    unittest.main()
