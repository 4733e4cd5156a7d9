#!/usr/bin/env python3
"""Times the shipped copy-engine collectives (c3advisor.torch's torch_symm_pull) and
NCCL's, one process per GPU, and writes c3advisor's bench-collective JSON
(docs/formats.md), so that a profile can be calibrated against what is shipped:

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
      PYTHONPATH=python torchrun --nproc-per-node 2 scripts/gpu-jobs/torch_collectives.py \\
      --out collectives-torch.json
    c3advisor bench-collective --from collectives-torch.json        # nccl-tests' table

Per kind (all_gather, all_to_all), size (64 KiB to 1 GiB, doubling; nccl-tests sizes:
all_gather the gathered buffer, all_to_all the send buffer per rank) and transport
(`nccl`: dist.all_gather_into_tensor / all_to_all_single on the default group;
`torch_symm_pull`): warm-up runs, then timed runs, each from a barrier-aligned start to
the last rank's end (CUDA events; the max over ranks), random bf16 data, every output
compared with NCCL's. Set C3_GIT_SHA for the provenance."""
import argparse
import datetime
import json
import os
import statistics
import sys

KIND_NAMES = ("all_gather", "all_to_all")
NCCL = "nccl"


def sizes_bytes(lo: int, hi: int):
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def record(kind, transport, ranks, size_bytes, runs_s, warmup, verified, error=""):
    """One record of the bench-collective format (io/bench_file.cpp)."""
    ok = not error and bool(runs_s)
    median = statistics.median(runs_s) if ok else 0.0
    algbw = size_bytes / median if ok and median > 0 else 0.0
    return {"kind": kind, "transport": transport, "ranks": ranks, "size_bytes": size_bytes,
            "count": size_bytes // 2, "ok": ok, "error": error,
            "time_s": median, "min_s": min(runs_s) if ok else 0.0, "max_s": max(runs_s) if ok else 0.0,
            "runs_s": list(runs_s) if ok else [], "warmup_runs": warmup, "verified": bool(verified and ok),
            "algbw_bytes_per_s": algbw, "busbw_bytes_per_s": algbw * (ranks - 1) / ranks}


def document(provenance, records):
    return {"schema_version": 1, "type": "collective_bench", "provenance": provenance, "records": records}


def write_atomically(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def elements_per_rank(kind, size_bytes, world):
    """bf16 elements of one rank's input in nccl-tests' size convention (all_gather: the
    gathered buffer; all_to_all: the send buffer per rank, cut in `world` equal chunks)."""
    per_rank = size_bytes // 2 // world if kind == "all_gather" else size_bytes // 2
    return per_rank - per_rank % world if kind == "all_to_all" else per_rank


def provenance(torch, world, notes, launcher="torchrun"):
    """The provenance of a torch job's file; `launcher` starts its command (torchrun, python3)."""
    from c3advisor._machine import driver_version  # PYTHONPATH=python, as every torch job here runs
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    nccl = ".".join(str(v) for v in torch.cuda.nccl.version())
    return {"backend": "torch", "device": "%s x%d" % (props.name, world), "gpus": world,
            "compute_units": props.multi_processor_count,
            "versions": {"torch": torch.__version__, "cuda": str(torch.version.cuda), "nccl": nccl,
                         "driver": driver_version()},
            "notes": notes, "git_sha": os.environ.get("C3_GIT_SHA", "unknown"),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": " ".join([launcher] + sys.argv), "c3advisor_version": "0.1.0"}


def check_multicast_off():
    """Exits unless NVLink multicast is off for NCCL, symmetric memory and NVSHMEM."""
    for var in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
        if os.environ.get(var) != ("0" if var == "NCCL_NVLS_ENABLE" else "1"):
            sys.exit("set NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 "
                     "(NVLink multicast stays off)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("-b", "--min-bytes", type=int, default=64 << 10)
    ap.add_argument("-e", "--max-bytes", type=int, default=1 << 30)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--warmup", type=int, default=6)
    ap.add_argument("--kinds", default=",".join(KIND_NAMES))
    a = ap.parse_args()
    check_multicast_off()

    import torch
    import torch.distributed as dist
    from c3advisor.torch import COPY_ENGINE_IMPLEMENTATION, CopyEngineCollectives

    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    ce = CopyEngineCollectives()
    kinds = [k for k in a.kinds.split(",") if k]
    records = []
    notes = ["transports: nccl = torch.distributed on the default NCCL group; %s = c3advisor.torch's "
             "copy-engine collectives over PyTorch symmetric memory (barrier, peer pulls with "
             "cudaMemcpyAsync, barrier)" % COPY_ENGINE_IMPLEMENTATION,
             "time = max over ranks of CUDA-event time from a barrier-aligned start"]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    # The copy engines pull from symmetric memory: inputs live there, as a framework's
    # sharded parameters would. One buffer for every size (views of its first elements):
    # with a new buffer per size (until 2026-11-26), all_to_all after the all_gather sizes
    # ran 50-60 us slower on the copy engines and 10 us on NCCL than in a fresh process
    # (data/measurements/collectives-torch-a2a-only-h200x2-2026-11-26.json).
    largest = max(elements_per_rank(k, s, world) for k in kinds for s in sizes_bytes(a.min_bytes, a.max_bytes))
    sym = ce.buffer(largest, torch.bfloat16)

    for kind in kinds:
        for size in sizes_bytes(a.min_bytes, a.max_bytes):
            per_rank = elements_per_rank(kind, size, world)
            if per_rank <= 0:
                continue
            g = torch.Generator(device="cuda").manual_seed(1000 + rank)
            inp = torch.randn(per_rank, dtype=torch.bfloat16, device="cuda", generator=g)
            out_len = per_rank * world if kind == "all_gather" else per_rank
            ref, out = (torch.empty(out_len, dtype=torch.bfloat16, device="cuda") for _ in range(2))
            source = sym.tensor.narrow(0, 0, per_rank)
            source.copy_(inp)

            def run_nccl():
                if kind == "all_gather":
                    dist.all_gather_into_tensor(ref, inp)
                else:
                    dist.all_to_all_single(ref, inp)

            def run_ce():
                if kind == "all_gather":
                    ce.all_gather_into_tensor(out, source)
                else:
                    ce.all_to_all_single(out, source)

            run_nccl()
            for transport, fn, dst in ((NCCL, run_nccl, ref), (COPY_ENGINE_IMPLEMENTATION, run_ce, out)):
                error, times = "", []
                try:
                    dst.zero_()
                    for i in range(a.warmup + a.runs):
                        torch.cuda.synchronize()
                        dist.barrier()
                        start.record()
                        fn()
                        end.record()
                        end.synchronize()
                        if i >= a.warmup:
                            times.append(start.elapsed_time(end) / 1e3)
                    verified = bool(torch.equal(dst, ref))
                    t = torch.tensor(times, dtype=torch.float64, device="cuda")
                    dist.all_reduce(t, op=dist.ReduceOp.MAX)
                    times = t.tolist()
                    ok = torch.tensor([1 if verified else 0], device="cuda")
                    dist.all_reduce(ok, op=dist.ReduceOp.MIN)
                    verified = bool(ok.item())
                    if not verified:
                        error = "output differs from NCCL's on some rank"
                except RuntimeError as e:  # a failed size is recorded, the run goes on
                    error, verified = str(e).splitlines()[0], False
                records.append(record(kind, transport, world, size, times, a.warmup, verified, error))
                if rank == 0:
                    r = records[-1]
                    print("%-10s %-16s %11d B  %9.1f us  busbw %6.1f GB/s  %s" %
                          (kind, transport, size, r["time_s"] * 1e6, r["busbw_bytes_per_s"] / 1e9,
                           "ok" if r["verified"] else "FAILED " + r["error"]), flush=True)
                    write_atomically(a.out, document(provenance(torch, world, notes), records))
            del source
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
