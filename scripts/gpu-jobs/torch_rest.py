#!/usr/bin/env python3
"""Times a GEMM right after a rest of its own stream (a device-to-device copy, as a copy-engine
collective, or an idle wait) against the same GEMM back to back, on one GPU, to see whether a
GEMM that follows a phase of low compute power runs faster (docs/accuracy.md, "Serial's GEMM
runs faster after its collective"):

    PYTHONPATH=python python3 scripts/gpu-jobs/torch_rest.py \\
      --gemms-from data/measurements/dependent-s15201-n40-h200x2-2026-11-26.json --out rest.json

The GEMMs are those of a measurement file (every successful bf16 GEMM record with no CUs
removed and a median of at least --min-s; --count of them spread evenly over their times), so
a train file's shapes stay train shapes; m, n and k multiples of 8 (for another shape PyTorch's
kernel is not the runner's). t_g: the median of 9 runs back to back, before the sweep.
Per GEMM, for every rest ratio r of --ratios and each rest (copy: device-to-device copies of r x
t_g worth of bytes at the copy's measured bandwidth, in pieces of at most 2 GiB; idle:
torch.cuda._sleep of r x t_g worth of cycles at the sleep's measured clock; r = 0: no rest, the
GEMMs back to back), after
--soak-s of the GEMM back to back (the GPU at its steady power state), --runs iterations of
[rest; GEMM] queued on one stream without a host synchronization, each GEMM timed with CUDA
events; the point's gemm_s is the median over the iterations after --skip, its rest_s the
rest's own median (its rest_ratio: rest_s / t_g, what the rest took, which the sleep's clock can
move), vs_back_to_back: gemm_s / the median of the ratio-0 points. The whole sweep runs --rounds times (the ratios in order, the two
rests alternating), so a drift shows as a difference between rounds.
torch.matmul(a, b.t()) (a: m x k, b: n x k, bf16: the runner's "TN" GEMM). Set C3_GIT_SHA for
the provenance. The file is rewritten after every GEMM."""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_collectives import provenance, write_atomically  # noqa: E402
from torch_sustained import gemm_records  # noqa: E402


def gemms_from(path, min_s, count, m_multiple=8):
    """(m, n, k, median_s) of `count` successful bf16 GEMM records with no CUs removed, a median
    of at least min_s, m a multiple of m_multiple (itself a multiple of 8) and n, k of 8, spread
    evenly over their medians (each shape once; count 0: all)."""
    # PyTorch runs another kernel than the runner's for other shapes (8192x25129x12288: 47 ms, not 6)
    found = [g for g in gemm_records(path, min_s) if not (g[0] % m_multiple or g[1] % 8 or g[2] % 8)]
    found.sort(key=lambda g: g[3])
    if count <= 0 or len(found) <= count:
        return found
    return [found[round(i * (len(found) - 1) / (count - 1))] for i in range(count)] if count > 1 else found[:1]


def timed(torch, fn, runs):
    """Median of `runs` CUDA-event times of fn(), each after the previous one (queued)."""
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
    for e0, e1 in events:
        e0.record()
        fn()
        e1.record()
    torch.cuda.synchronize()
    return statistics.median(e0.elapsed_time(e1) * 1e-3 for e0, e1 in events)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gemms-from", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--min-s", type=float, default=1e-3)
    ap.add_argument("--count", type=int, default=5)
    ap.add_argument("--ratios", default="0,0.1,0.2,0.4,0.8")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--skip", type=int, default=10)
    ap.add_argument("--soak-s", type=float, default=0.5)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    ratios = [float(x) for x in a.ratios.split(",")]
    if not ratios or ratios[0] != 0 or any(r < 0 for r in ratios) or a.runs <= a.skip or a.rounds < 1:
        sys.exit("torch_rest.py: --ratios must start at 0 and be >= 0; --runs > --skip; --rounds >= 1")
    shapes = gemms_from(a.gemms_from, a.min_s, a.count)
    if not shapes:
        sys.exit("torch_rest.py: no bf16 GEMM of at least %g s in %s" % (a.min_s, a.gemms_from))

    import torch
    torch.manual_seed(0)
    doc = {"schema_version": 1,
           "provenance": provenance(torch, 1, ["GEMMs from " + a.gemms_from, "method: " + __doc__.split("\n\n")[1]],
                                    launcher="python3"),
           "gemms": []}

    # The copy's bandwidth and the sleep's clock, measured once.
    copy_bytes = 2 << 30
    src = torch.empty(copy_bytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    copy_bw = copy_bytes / timed(torch, lambda: dst.copy_(src), 5)
    torch.cuda._sleep(1000)
    sleep_cycles = 10_000_000
    cycles_per_s = sleep_cycles / timed(torch, lambda: torch.cuda._sleep(sleep_cycles), 5)
    doc["copy_bytes_per_s"] = copy_bw
    doc["sleep_cycles_per_s"] = cycles_per_s
    print("copy %.0f GB/s, sleep %.3g cycles/s" % (copy_bw / 1e9, cycles_per_s), flush=True)

    for m, n, k, recorded_s in shapes:
        A = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        B = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        C = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        gemm = lambda: torch.matmul(A, B.t(), out=C)  # noqa: E731
        gemm()
        torch.cuda.synchronize()
        t_g = timed(torch, gemm, 9)
        record = {"m": m, "n": n, "k": k, "dtype": "bf16", "recorded_s": recorded_s, "t_g_s": t_g, "points": []}
        for rnd in range(a.rounds):
            for ratio in ratios:
                for rest in (("none",) if ratio == 0 else ("copy", "idle")):
                    nbytes = int(ratio * t_g * copy_bw) // 4096 * 4096
                    pieces = [copy_bytes] * (nbytes // copy_bytes) + ([nbytes % copy_bytes] if nbytes % copy_bytes else [])
                    cycles = int(ratio * t_g * cycles_per_s)

                    def copy_rest():
                        for piece in pieces:
                            dst[:piece].copy_(src[:piece])
                    rest_op = {"none": lambda: None, "copy": copy_rest,
                               "idle": lambda: torch.cuda._sleep(cycles)}[rest]
                    soak_end = time.time() + a.soak_s
                    while time.time() < soak_end:
                        for _ in range(8):
                            gemm()
                        torch.cuda.synchronize()
                    rests = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                             for _ in range(a.runs)]
                    gemms = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                             for _ in range(a.runs)]
                    for (r0, r1), (g0, g1) in zip(rests, gemms):
                        r0.record()
                        rest_op()
                        r1.record()
                        g0.record()
                        gemm()
                        g1.record()
                    torch.cuda.synchronize()
                    gemm_runs = [g0.elapsed_time(g1) * 1e-3 for g0, g1 in gemms][a.skip:]
                    rest_runs = [r0.elapsed_time(r1) * 1e-3 for r0, r1 in rests][a.skip:]
                    record["points"].append({"round": rnd + 1, "rest": rest, "ratio": ratio,
                                             "rest_s": statistics.median(rest_runs),
                                             "rest_ratio": statistics.median(rest_runs) / t_g,
                                             "gemm_s": statistics.median(gemm_runs), "gemm_runs_s": gemm_runs})
        base = statistics.median(p["gemm_s"] for p in record["points"] if p["rest"] == "none")
        record["back_to_back_s"] = base
        for p in record["points"]:
            p["vs_back_to_back"] = p["gemm_s"] / base
        doc["gemms"].append(record)
        write_atomically(a.out, doc)
        line = "  ".join("%s %.1f (%.2f): %.3f" % (p["rest"], p["ratio"], p["rest_ratio"], p["vs_back_to_back"])
                         for p in record["points"] if p["round"] == 1 and p["rest"] != "none")
        print("%dx%dx%d  back to back %.3f ms  %s" % (m, n, k, base * 1e3, line), flush=True)
        del A, B, C
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
