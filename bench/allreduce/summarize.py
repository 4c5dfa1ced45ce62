#!/usr/bin/env python3
"""Summarises run.sh's output: medians over rounds of every RESULT and LIMIT
line, nccl-tests-style tables with our ratios to each peer, and the targets
of bench/allreduce/README.md checked one by one.

    summarize.py RESULTS_FILE
"""
import json
import statistics
import sys
from collections import defaultdict

PEERS = {"volador-shm": ["openmpi-vader"], "volador-tcp": ["openmpi-tcp", "gloo-tcp"],
         "volador-tcp-xns": ["openmpi-tcp-xns"], "volador-nccl": ["nccl-direct"]}
# The NCCL target: volador-nccl's time per call at most this multiple of nccl-direct's, at every size.
NCCL_TOLERANCE = 1.05
# Our TCP rows and the TCP ring limits of the same path: (impl, LIMIT prefix, path).
TCP_PATHS = [("volador-tcp", "tcp_loopback_ring", "loopback TCP"),
             ("volador-tcp-xns", "tcp_xns_ring", "TCP across namespaces (veth)")]


def load(path):
    """RESULT rows by (impl, ranks, bytes), LIMIT values by name, the round count and
    the lines saying what was skipped or failed."""
    results, limits, rounds, notes = defaultdict(list), defaultdict(list), 0, []
    with open(path) as f:
        lines = f.readlines()
    for line in lines:
        if line.startswith("SKIP ") or (line.startswith("# ") and "FAILED" in line):
            notes.append(line.strip())
        elif line.startswith("RESULT "):
            r = json.loads(line[7:])
            results[(r["impl"], r["ranks"], r["bytes"])].append(r)
        elif line.startswith("LIMIT "):
            r = json.loads(line[6:])
            limits[r["name"]].append(r["gbps"])
        elif line.startswith("ROUND "):
            rounds += 1
    return results, limits, rounds, notes


def median(rows, key):
    return statistics.median(r[key] for r in rows) if rows else None


def size_text(b):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift}{unit}"
    return str(b)


def table(results, ours, ranks):
    peers = PEERS[ours]
    sizes = sorted({b for (impl, n, b) in results if impl == ours and n == ranks})
    if not sizes:
        return
    impls = [ours] + peers
    print(f"\n## {ours} vs {', '.join(peers)}, {ranks} ranks (medians; busbw GB/s, time us)")
    head = f"{'size':>6} " + " ".join(f"{i + ' us':>19} {'busbw':>7}" for i in impls)
    head += " " + " ".join(f"{'x ' + p:>20}" for p in peers)
    print(head)
    for b in sizes:
        cells, ours_t = [], None
        for impl in impls:
            rows = results.get((impl, ranks, b), [])
            t, bus = median(rows, "time_us"), median(rows, "busbw_gbps")
            cells.append(f"{t:>19.2f} {bus:>7.3f}" if rows else f"{'-':>19} {'-':>7}")
            if impl == ours:
                ours_t = t
        ratios = []
        for p in peers:
            rows = results.get((p, ranks, b), [])
            if rows and ours_t:  # time per call: busbw is 0 for one rank
                ratios.append(f"{median(rows, 'time_us') / ours_t:>20.2f}")
            else:
                ratios.append(f"{'-':>20}")
        print(f"{size_text(b):>6} " + " ".join(cells) + " " + " ".join(ratios))


def check(label, ok, detail):
    print(f"  [{'MET' if ok else 'NOT MET'}] {label}: {detail}")


def targets(results, limits):
    print("\n## Targets (medians; 'x' = our speed / peer's speed)")
    def bus(impl, n, b):
        return median(results.get((impl, n, b), []), "busbw_gbps")
    def t(impl, n, b):
        return median(results.get((impl, n, b), []), "time_us")
    ranks = sorted({n for (_, n, _) in results})
    big = sorted({b for (_, _, b) in results if b >= 16 << 20})
    for n in ranks:
        pairs = [(b, bus("volador-shm", n, b), bus("openmpi-vader", n, b)) for b in big]
        pairs = [(b, o, p) for b, o, p in pairs if o and p]
        if pairs:
            worst = min(o / p for _, o, p in pairs)
            detail = "worst " + f"{worst:.2f}x; " + ", ".join(f"{size_text(b)} {o / p:.2f}x" for b, o, p in pairs)
            copy = limits.get("memcpy_16MiB_each_of_2procs")
            if copy:
                b, _, p = pairs[0]
                detail += (f"; 2x at {size_text(b)} means {2 * p:.2f} GB/s busbw, while each of 2 processes"
                           f" copies a 16 MiB buffer at {statistics.median(copy):.2f} GB/s")
            check(f"shm busbw >= 2x OpenMPI vader at >= 16 MiB, {n} ranks", worst >= 2.0, detail)
        o, p = bus("volador-shm", n, 1 << 20), bus("openmpi-vader", n, 1 << 20)
        if o and p:
            check(f"shm busbw >= 1x OpenMPI vader at 1 MiB, {n} ranks", o >= p, f"{o:.3f} vs {p:.3f} GB/s = {o / p:.2f}x")
        o, p = t("volador-shm", n, 8), t("openmpi-vader", n, 8)
        if o and p:
            check(f"shm 8-byte latency <= 2x OpenMPI vader, {n} ranks", o <= 2 * p, f"{o:.2f} vs {p:.2f} us")
        o, p = t("volador-tcp", n, 8), t("openmpi-tcp", n, 8)
        if o and p:
            check(f"tcp 8-byte latency <= OpenMPI tcp, {n} ranks", o <= p, f"{o:.2f} vs {p:.2f} us")
        for impl, prefix, path in TCP_PATHS:
            tcp_vs_limit(results, limits, impl, n, big, f"{prefix}_{n}procs", path)
        nccl_vs_direct(results, n)


def nccl_vs_direct(results, n):
    """Checks volador-nccl's time per call against nccl-direct's (NCCL_TOLERANCE), size by size:
    the ratio of the medians over the rounds, and whether it is within the tolerance."""
    def t(impl, b):
        return median(results.get((impl, n, b), []), "time_us")
    sizes = sorted(b for (impl, m, b) in results if impl == "volador-nccl" and m == n and t("nccl-direct", b))
    if not sizes:
        return
    ratios = [(b, t("volador-nccl", b) / t("nccl-direct", b)) for b in sizes]
    worst_size, worst = max(ratios, key=lambda pair: pair[1])
    over = [size_text(b) for b, r in ratios if r > NCCL_TOLERANCE]
    check(f"volador-nccl time per call within {NCCL_TOLERANCE - 1:.0%} of nccl-direct at every size, {n} ranks",
          not over, f"worst {worst:.3f}x at {size_text(worst_size)}"
          + (f"; over at {', '.join(over)}" if over else ""))
    print(f"      {'size':>6} {'volador-nccl/nccl-direct':>25} {'within':>7}")
    for b, r in ratios:
        print(f"      {size_text(b):>6} {r:>25.3f} {'yes' if r <= NCCL_TOLERANCE else 'no':>7}")


def tcp_vs_limit(results, limits, impl, n, big, limit_name, path):
    """Checks impl's busbw at >= 16 MiB against 90% of the ring limit limit_name_{streamed,cached}."""
    sizes = [b for b in big if results.get((impl, n, b))]
    for kind in ("streamed", "cached"):
        values = limits.get(f"{limit_name}_{kind}")
        if not values or not sizes:
            continue
        limit = statistics.median(values)
        bus = [median(results[(impl, n, b)], "busbw_gbps") for b in sizes]
        check(f"{impl} busbw >= 90% of {path}, {n}-process ring, buffers {kind} ({limit:.3f} GB/s per rank)",
              max(bus) >= 0.9 * limit,
              f"best at >= 16 MiB {max(bus):.3f} GB/s = {max(bus) / limit:.0%}; "
              + ", ".join(f"{size_text(b)} {v / limit:.0%}" for b, v in zip(sizes, bus)))


def main():
    results, limits, rounds, notes = load(sys.argv[1])
    print(f"# {rounds} rounds; medians of each row over the rounds")
    for note in dict.fromkeys(notes):
        print(note)
    if limits:
        print("\n## Machine limits (GB/s, medians)")
    for name, values in sorted(limits.items()):
        print(f"  {name}: {statistics.median(values):.3f} (of {len(values)})")
    for ours in PEERS:
        for n in sorted({n for (impl, n, _) in results if impl == ours}):
            table(results, ours, n)
    targets(results, limits)


if __name__ == "__main__":
    main()
