#!/usr/bin/python3
"""Compares two outputs of the control-plane benchmark, row by row.

  compare.py BEFORE.txt AFTER.txt

Reads the `RESULT {json}` lines of each (run.sh's --out file, or its printed
output) and prints, for each row present in both, the row's headline figure
before and after and their ratio (after / before): trials/s and CPU ms per
trial, points/s, median and p95 ms; rows of different sizes (trials, points)
are flagged. Rows found in one file only are listed.
"""
import json
import sys

# Per section: the fields naming a row, and the figures compared.
ROW_KEYS = {"throughput": ("condition", "system", "slots"), "ingestion": ("condition", "system", "trials"),
            "queries": ("condition", "query")}
SIZES = ("trials", "points", "points_per_trial")  # a row's workload: comparing different ones is flagged
FIGURES = {"throughput": ("trials_per_s", "cpu_ms_per_trial"), "ingestion": ("points_per_s", "lost"),
           "queries": ("median_ms", "p95_ms")}


def read_rows(path):
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("RESULT "):
                row = json.loads(line[len("RESULT "):])
                section = row.get("section")
                if section in ROW_KEYS:
                    rows[(section,) + tuple(row.get(k) for k in ROW_KEYS[section])] = row
    return rows


def figure_text(before, after):
    if before is None or after is None:
        return f"{before} -> {after}"
    ratio = f"{after / before:.2f}x" if before else "-"
    return f"{before} -> {after} ({ratio})"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare.py BEFORE.txt AFTER.txt")
    before, after = read_rows(sys.argv[1]), read_rows(sys.argv[2])
    for key in sorted(set(before) | set(after), key=str):
        label = " / ".join(str(k) for k in key if k is not None)
        if key not in before or key not in after:
            print(f"{label}: only in {'AFTER' if key in after else 'BEFORE'}")
            continue
        figures = "; ".join(f"{name} {figure_text(before[key].get(name), after[key].get(name))}"
                            for name in FIGURES[key[0]])
        sizes = [f"{name} {before[key].get(name)} -> {after[key].get(name)}" for name in SIZES
                 if before[key].get(name) != after[key].get(name)]
        print(f"{label}: {figures}" + (f"  (NOT COMPARABLE: {', '.join(sizes)})" if sizes else ""))


if __name__ == "__main__":
    main()
