#!/usr/bin/env python3
"""Times GEMM + collective pairs with the shipped copy-engine collectives
(c3advisor.torch's torch_symm_pull) in PyTorch, one process per GPU, and writes
c3advisor's measurement JSON (docs/formats.md, the `measure` file), so that the copy
engines' interference with GEMMs and their host launch cost are measured on what is
shipped, not on the measuring backend's own variant (`calibrate --dma-pairs`,
docs/calibration.md):

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
      PYTHONPATH=python torchrun --nproc-per-node 2 scripts/gpu-jobs/torch_pairs.py \\
      --pairs-from data/measurements/generated-s1101-n160-h200x2-2026-11-23.json \\
      --out torch-pairs.json

The pairs are those of a measurement file (`--pairs-from`: every pair with a `dma`
record, of the kinds in --kinds), so a train file's pairs stay train pairs. Per pair,
each timed from a barrier-aligned start to the last rank's end (CUDA events; the max
over ranks), warm-up runs then timed runs, median:

  gemm                 torch.matmul(a, b.t()) alone (a: m x k, b: n x k, bf16: the
                       runner's "TN" GEMM)
  collective, dma      torch_symm_pull alone; `host_launch_s` is the median host time
                       of its launch call (barrier, pulls, barrier enqueued)
  collective, cu       NCCL (dist.all_gather_into_tensor / all_to_all_single) alone
  concurrent serial    the NCCL collective, then the GEMM, on one stream
  concurrent sp        the NCCL collective launched first on its stream (NCCL's default
                       CTAs), the GEMM on another: PyTorch's overlapped default
  concurrent dma       torch_symm_pull launched first on its stream, the GEMM on another
                       (c3advisor.torch's Executor.run_pair for a `dma` advice);
                       `host_launch_s` is the median host time from the start of the
                       collective's launch call to the start of the GEMM's (docs/model.md
                       §4.4: the GEMM waits for it)

Every output is compared with a reference computed apart (the GEMM's with the same
inputs alone, the collective's with NCCL's); a record whose output differs says so.
Sizes follow nccl-tests (all_gather: the gathered buffer; all_to_all: the send buffer
per rank). Set C3_GIT_SHA for the provenance. The file is rewritten after every pair."""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_collectives import check_multicast_off, elements_per_rank, provenance, write_atomically  # noqa: E402

KINDS = ("all_gather", "all_to_all")


def pairs_from(path, kinds, limit):
    """(m, n, k, kind, size_bytes, ranks) of every pair with a successful dma record."""
    with open(path) as f:
        doc = json.load(f)
    seen, out = set(), []
    for r in doc.get("records", []):
        if r.get("what") != "concurrent" or r.get("strategy") != "dma" or not r.get("ok"):
            continue
        if r.get("dtype") != "bf16" or r.get("kind") not in kinds:
            continue
        key = (r["m"], r["n"], r["k"], r["kind"], r["size_bytes"], r["ranks"])
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out[:limit] if limit > 0 else out


def base_record(what, ok, times, warmup, verified, error, **fields):
    rec = {"key": "", "what": what}
    rec.update(fields)
    rec.update({"ok": ok, "error": error,
                "median_s": statistics.median(times) if ok else 0.0,
                "min_s": min(times) if ok else 0.0, "max_s": max(times) if ok else 0.0,
                "runs_s": list(times) if ok else [], "warmup_runs": warmup, "verified": bool(ok and verified)})
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs-from", required=True, help="a measurement file whose dma pairs are timed again")
    ap.add_argument("--out", required=True)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--limit", type=int, default=0, help="at most this many pairs (0: all)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=3)
    a = ap.parse_args()
    check_multicast_off()
    kinds = [k for k in a.kinds.split(",") if k]
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        sys.exit("torch_pairs: --kinds: %s (copy engines run %s)" % (",".join(bad), ", ".join(KINDS)))
    pairs = pairs_from(a.pairs_from, kinds, a.limit)
    if not pairs:
        sys.exit("torch_pairs: %s has no successful bf16 dma pair of %s" % (a.pairs_from, ",".join(kinds)))

    import torch
    import torch.distributed as dist
    from c3advisor.torch import COPY_ENGINE_IMPLEMENTATION, CopyEngineCollectives

    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    ce = CopyEngineCollectives()
    main_stream = torch.cuda.current_stream()
    coll_stream, gemm_stream = torch.cuda.Stream(), torch.cuda.Stream()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    notes = ["pairs: those of %s with a dma record, kinds %s, timed again in PyTorch" % (a.pairs_from, ",".join(kinds)),
             "gemm: torch.matmul(a, b.t()), a m x k, b n x k, bf16; collective dma = %s, cu = NCCL through "
             "torch.distributed (default group); serial = NCCL collective then GEMM on one stream; sp = the "
             "NCCL collective first on its stream, the GEMM on another; dma = %s launched first on its own "
             "stream, the GEMM on another" % (COPY_ENGINE_IMPLEMENTATION, COPY_ENGINE_IMPLEMENTATION),
             "time = max over ranks of CUDA-event time from a barrier-aligned start; host_launch_s (rank 0, "
             "median): collective dma = the copy-engine launch call, concurrent dma = from the start of that "
             "call to the start of the GEMM's launch"]
    records = []
    done = set()  # keys of the records written (a measurement file holds each key once)

    # One symmetric buffer for every pair's input (a collective allocation: allocated once,
    # each pair uses its first elements), as a framework's sharded parameters would live there.
    sym = ce.buffer(max(elements_per_rank(p[3], p[4], world) for p in pairs), torch.bfloat16)

    def timed(fn):
        """warm-up + timed runs of fn; returns (times max over ranks, host launch medians)."""
        times, hosts = [], []
        for i in range(a.warmup + a.runs):
            torch.cuda.synchronize()
            dist.barrier()
            start.record()
            host = fn()
            end.record()
            end.synchronize()
            if i >= a.warmup:
                times.append(start.elapsed_time(end) / 1e3)
                if host is not None:
                    hosts.append(host)
        t = torch.tensor(times, dtype=torch.float64, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.tolist(), (statistics.median(hosts) if hosts else None)

    def agree(flag):
        ok = torch.tensor([1 if flag else 0], device="cuda")
        dist.all_reduce(ok, op=dist.ReduceOp.MIN)
        return bool(ok.item())

    for index, (m, n, k, kind, size, ranks) in enumerate(pairs):
        if ranks != world:
            continue
        gemm_fields = {"m": m, "n": n, "k": k, "dtype": "bf16"}
        coll_fields = {"kind": kind, "size_bytes": size, "ranks": world}
        per_rank = elements_per_rank(kind, size, world)
        gen = torch.Generator(device="cuda").manual_seed(7000 + 31 * index + rank)
        try:
            a_mat = torch.randn(m, k, dtype=torch.bfloat16, device="cuda", generator=gen)
            b_mat = torch.randn(n, k, dtype=torch.bfloat16, device="cuda", generator=gen)
            c_mat, c_ref = (torch.empty(m, n, dtype=torch.bfloat16, device="cuda") for _ in range(2))
            inp = sym.tensor.narrow(0, 0, per_rank)
            inp.copy_(torch.randn(per_rank, dtype=torch.bfloat16, device="cuda", generator=gen))
            out_len = per_rank * world if kind == "all_gather" else per_rank
            out, ref = (torch.empty(out_len, dtype=torch.bfloat16, device="cuda") for _ in range(2))
        except RuntimeError as e:  # out of memory: the pair is recorded as failed, the run goes on
            err = str(e).splitlines()[0]
            for what, fields in (("gemm", dict(gemm_fields, cus_removed=0)),
                                 ("collective", dict(coll_fields, transport="dma", cus=0))):
                rec = base_record(what, False, [], a.warmup, False, err, **fields)
                rec["key"] = key_of(rec)
                records.append(rec)
            continue

        def nccl():
            if kind == "all_gather":
                dist.all_gather_into_tensor(ref, inp)
            else:
                dist.all_to_all_single(ref, inp)

        def launch_copy_engines():
            if kind == "all_gather":
                ce.all_gather_into_tensor(out, inp)
            else:
                ce.all_to_all_single(out, inp)

        def copy_engines():
            t0 = time.perf_counter()
            launch_copy_engines()
            return time.perf_counter() - t0

        def gemm_alone():
            torch.matmul(a_mat, b_mat.t(), out=c_mat)

        def serial():
            nccl()
            torch.matmul(a_mat, b_mat.t(), out=c_mat)

        def concurrent_dma():
            coll_stream.wait_stream(main_stream)
            gemm_stream.wait_stream(main_stream)
            t0 = time.perf_counter()
            with torch.cuda.stream(coll_stream):
                launch_copy_engines()
            with torch.cuda.stream(gemm_stream):
                t1 = time.perf_counter()
                torch.matmul(a_mat, b_mat.t(), out=c_mat)
            main_stream.wait_stream(coll_stream)
            main_stream.wait_stream(gemm_stream)
            return t1 - t0

        def concurrent_sp():
            coll_stream.wait_stream(main_stream)
            gemm_stream.wait_stream(main_stream)
            with torch.cuda.stream(coll_stream):
                nccl()
            with torch.cuda.stream(gemm_stream):
                torch.matmul(a_mat, b_mat.t(), out=c_mat)
            main_stream.wait_stream(coll_stream)
            main_stream.wait_stream(gemm_stream)

        torch.matmul(a_mat, b_mat.t(), out=c_ref)
        nccl()
        torch.cuda.synchronize()

        def gemm_ok():  # the same cuBLAS call on the same inputs; NaN (never written) fails
            return bool(torch.allclose(c_mat, c_ref, rtol=1e-2, atol=1e-2))

        def coll_ok():
            return torch.equal(out, ref)

        runs = [("gemm", gemm_fields, gemm_alone, (gemm_ok,), {"cus_removed": 0}),
                ("collective", coll_fields, copy_engines, (coll_ok,), {"transport": "dma", "cus": 0}),
                ("collective", coll_fields, nccl, (), {"transport": "cu", "cus": 0}),
                ("concurrent", dict(gemm_fields, **coll_fields), serial, (gemm_ok,), {"strategy": "serial"}),
                ("concurrent", dict(gemm_fields, **coll_fields), concurrent_sp, (gemm_ok,), {"strategy": "sp"}),
                ("concurrent", dict(gemm_fields, **coll_fields), concurrent_dma, (gemm_ok, coll_ok),
                 {"strategy": "dma"})]
        for what, fields, fn, checks, extra in runs:
            key = key_of(dict(fields, what=what, **extra))
            if key in done:  # a GEMM or collective shared with an earlier pair: timed once
                continue
            done.add(key)
            error, times, host, verified = "", [], None, False
            try:
                c_mat.fill_(float("nan"))
                out.fill_(float("nan"))
                times, host = timed(fn)
                verified = agree(all(check() for check in checks))
                if not verified:
                    error = "output differs from the reference on some rank"
            except RuntimeError as e:
                error = str(e).splitlines()[0]
            rec = base_record(what, not error, times, a.warmup, verified, error, **dict(fields, **extra))
            if host is not None:
                rec["host_launch_s"] = host
            rec["key"] = key_of(rec)
            records.append(rec)
            if rank == 0:
                print("%3d/%d %-10s %-12s %6dx%6dx%6d %11d B  %-10s %10.1f us  %s" % (
                    index + 1, len(pairs), what, kind, m, n, k, size, extra.get("strategy", extra.get("transport", "")),
                    rec["median_s"] * 1e6, "ok" if rec["verified"] else "FAILED " + rec["error"]), flush=True)
        if rank == 0:
            write_atomically(a.out, {"schema_version": 1, "provenance": provenance(torch, world, notes),
                                     "records": records})
        del a_mat, b_mat, c_mat, c_ref, out, ref, inp
        torch.cuda.empty_cache()
    dist.barrier()
    dist.destroy_process_group()


def key_of(rec):
    """The record's key as io/raw_measurements writes it (measurement_key)."""
    if rec["what"] == "gemm":
        return "gemm %dx%dx%d:%s cus_removed=%d" % (rec["m"], rec["n"], rec["k"], rec["dtype"], rec["cus_removed"])
    if rec["what"] == "collective":
        return "collective %s size_bytes=%d ranks=%d transport=%s cus=%d" % (
            rec["kind"], rec["size_bytes"], rec["ranks"], rec["transport"], rec["cus"])
    return "concurrent %dx%dx%d:%s %s size_bytes=%d ranks=%d strategy=%s" % (
        rec["m"], rec["n"], rec["k"], rec["dtype"], rec["kind"], rec["size_bytes"], rec["ranks"], rec["strategy"])


if __name__ == "__main__":
    main()
