#!/usr/bin/env python3
"""Times GEMMs alone (a burst: each run from an idle, barrier-aligned GPU, as the
calibration times them) and sustained (the same GEMM back to back for a second first, as
in a training step's chain), one process per GPU, and writes c3advisor's sustained-GEMM
file (docs/formats.md, "Sustained GEMMs"), which `calibrate --sustained` fits into the
profile's `sustained_gemm_slowdown` (docs/model.md §4.7):

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
      PYTHONPATH=python torchrun --nproc-per-node 2 scripts/gpu-jobs/torch_sustained.py \\
      --gemms-from data/measurements/generated-s1101-n160-h200x2-2026-11-23.json \\
      --out sustained.json

Why: under a chain of GEMMs a GPU reaches its power limit and lowers its clocks (H200 at
700 W: 1395-1500 MHz instead of 1980 MHz, nvidia-smi's clocks_event_reasons 0x4, SW power
cap), which a GEMM timed alone does not show. The GEMMs are those of a measurement file
(`--gemms-from`: every successful bf16 GEMM record with no CUs removed and a median of at
least --min-s), so a train file's shapes stay train shapes. Every rank runs the same GEMM
at the same time (both GPUs draw power as in a step). Per GEMM, on each rank:

  burst       --warmup then --runs single GEMMs, each after a synchronize and a barrier
              (CUDA events; the max over ranks of each run); after --rest-s of idle
  sustained   the GEMM issued back to back for --soak-s, then --windows windows of at
              least --window-s each, timed with CUDA events; per GEMM: the window's time /
              its GEMMs (the max over ranks); the record's sustained_s is their median

`sustained_s / burst_s` is the slowdown. torch.matmul(a, b.t()) (a: m x k, b: n x k,
bf16: the runner's "TN" GEMM). The output is checked against the first run's. Set
C3_GIT_SHA for the provenance. The file is rewritten after every GEMM."""
import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_collectives import check_multicast_off, provenance, write_atomically  # noqa: E402

# Host launches per soak are capped: below ~10 us a GEMM the chain is the host's, not the GPU's.
MAX_LAUNCHES = 20000


def gemm_records(path, min_s):
    """(m, n, k, median_s) of every successful bf16 GEMM record with no CUs removed and a median
    of at least min_s, each shape once (its first record), in the file's order."""
    with open(path) as f:
        doc = json.load(f)
    seen, out = set(), []
    for r in doc.get("records", []):
        if r.get("what") != "gemm" or not r.get("ok") or r.get("dtype") != "bf16":
            continue
        if r.get("cus_removed", 0) != 0 or r.get("median_s", 0.0) < min_s:
            continue
        key = (r["m"], r["n"], r["k"])
        if key not in seen:
            seen.add(key)
            out.append(key + (r["median_s"],))
    return out


def gemms_from(path, min_s, limit):
    """(m, n, k) of every successful bf16 GEMM record with no CUs removed, at least min_s."""
    out = [g[:3] for g in gemm_records(path, min_s)]
    out.sort(key=lambda s: s[0] * s[1] * s[2])
    return out[:limit] if limit > 0 else out


def record(m, n, k, ok, error, burst, windows, soak_launches, window_launches, verified):
    return {"m": m, "n": n, "k": k, "dtype": "bf16", "ok": ok, "error": error,
            "burst_s": statistics.median(burst) if ok else 0.0, "burst_runs_s": list(burst) if ok else [],
            "sustained_s": statistics.median(windows) if ok else 0.0, "sustained_windows_s": list(windows) if ok else [],
            "soak_launches": soak_launches, "window_launches": window_launches, "verified": bool(ok and verified)}


def document(provenance, records):
    """The file calibrate --sustained reads (docs/formats.md, "Sustained GEMMs")."""
    return {"schema_version": 1, "type": "sustained_gemms", "provenance": provenance, "records": records}


def launches(seconds, per_gemm_s, floor):
    return int(min(MAX_LAUNCHES, max(floor, math.ceil(seconds / max(per_gemm_s, 1e-7)))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gemms-from", required=True, help="a measurement file whose GEMMs are timed")
    ap.add_argument("--out", required=True)
    ap.add_argument("--min-s", type=float, default=100e-6,
                    help="GEMMs whose recorded median is at least this (s; default 100 us: shorter ones "
                         "are host-bound in a Python chain)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many GEMMs (0: all)")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--warmup", type=int, default=6)
    ap.add_argument("--rest-s", type=float, default=0.3, help="idle before each GEMM's burst runs")
    ap.add_argument("--soak-s", type=float, default=1.0)
    ap.add_argument("--window-s", type=float, default=0.1)
    ap.add_argument("--windows", type=int, default=3)
    a = ap.parse_args()
    if min(a.runs, a.windows) < 1 or a.warmup < 0 or min(a.soak_s, a.window_s, a.rest_s) < 0:
        ap.error("--runs and --windows must be >= 1; --warmup, --soak-s, --window-s, --rest-s >= 0")
    check_multicast_off()
    shapes = gemms_from(a.gemms_from, a.min_s, a.limit)
    if not shapes:
        sys.exit("torch_sustained: %s has no successful bf16 GEMM of at least %g s" % (a.gemms_from, a.min_s))

    import torch
    import torch.distributed as dist

    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    notes = ["gemms: those of %s (bf16, no CUs removed, median >= %g s), timed again in PyTorch" % (a.gemms_from, a.min_s),
             "gemm: torch.matmul(a, b.t()), a m x k, b n x k, bf16, on every rank at once",
             "burst: after %g s idle, %d warm-up then %d runs, each after synchronize + barrier (max over ranks)"
             % (a.rest_s, a.warmup, a.runs),
             "sustained: back to back for %g s, then %d windows of >= %g s each, per GEMM (max over ranks)"
             % (a.soak_s, a.windows, a.window_s)]

    def max_over_ranks(times):
        t = torch.tensor(times, dtype=torch.float64, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.tolist()

    records = []
    for index, (m, n, k) in enumerate(shapes):
        gen = torch.Generator(device="cuda").manual_seed(9100 + 31 * index + rank)
        burst, windows, soak_n, win_n, verified, error = [], [], 0, 0, False, ""
        try:
            a_mat = torch.randn(m, k, dtype=torch.bfloat16, device="cuda", generator=gen)
            b_mat = torch.randn(n, k, dtype=torch.bfloat16, device="cuda", generator=gen)
            c_mat, c_ref = (torch.empty(m, n, dtype=torch.bfloat16, device="cuda") for _ in range(2))
            torch.matmul(a_mat, b_mat.t(), out=c_ref)
            torch.cuda.synchronize()
            dist.barrier()
            time.sleep(a.rest_s)
            for i in range(a.warmup + a.runs):
                torch.cuda.synchronize()
                dist.barrier()
                start.record()
                torch.matmul(a_mat, b_mat.t(), out=c_mat)
                end.record()
                end.synchronize()
                if i >= a.warmup:
                    burst.append(start.elapsed_time(end) / 1e3)
            burst = max_over_ranks(burst)
            per = statistics.median(burst)
            soak_n, win_n = launches(a.soak_s, per, 1), launches(a.window_s, per, 3)
            torch.cuda.synchronize()
            dist.barrier()
            for _ in range(soak_n):
                torch.matmul(a_mat, b_mat.t(), out=c_mat)
            events = [torch.cuda.Event(enable_timing=True) for _ in range(a.windows + 1)]
            events[0].record()
            for w in range(a.windows):
                for _ in range(win_n):
                    torch.matmul(a_mat, b_mat.t(), out=c_mat)
                events[w + 1].record()
            torch.cuda.synchronize()
            windows = max_over_ranks([events[w].elapsed_time(events[w + 1]) / 1e3 / win_n for w in range(a.windows)])
            ok = torch.allclose(c_mat, c_ref, rtol=1e-2, atol=1e-2)
            t = torch.tensor([1 if ok else 0], device="cuda")
            dist.all_reduce(t, op=dist.ReduceOp.MIN)
            verified = bool(t.item())
            if not verified:
                error = "output differs from the first run's on some rank"
            del a_mat, b_mat, c_mat, c_ref
        except RuntimeError as e:  # out of memory: recorded as failed, the run goes on
            error = str(e).splitlines()[0]
        rec = record(m, n, k, not error, error, burst, windows, soak_n, win_n, verified)
        records.append(rec)
        torch.cuda.empty_cache()
        if rank == 0:
            ratio = rec["sustained_s"] / rec["burst_s"] if rec["ok"] and rec["burst_s"] > 0 else float("nan")
            print("%3d/%d %6dx%6dx%6d burst %10.1f us sustained %10.1f us  x%.3f  %s" % (
                index + 1, len(shapes), m, n, k, rec["burst_s"] * 1e6, rec["sustained_s"] * 1e6, ratio,
                "ok" if rec["verified"] else "FAILED " + rec["error"]), flush=True)
            write_atomically(a.out, document(provenance(torch, world, notes), records))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
