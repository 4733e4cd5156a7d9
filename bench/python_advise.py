#!/usr/bin/env python3
"""Per-call cost of c3advisor.Advisor.advise from Python (the C API through ctypes).

Advises the paper's 30 scenarios (bf16 GEMMs; all_gather and all_to_all) on an embedded
profile, many times, and prints the median and spread of the per-call time over several
repeats, for .advise() alone (the typed result) and with .json read as well. A
benchmark, not a test: nothing is asserted (docs/python.md records what was measured).

    PYTHONPATH=build/python python3 bench/python_advise.py [--profile h200x2] [--calls 20000]
        [--gemm-tile 256x128[:S]]   (each call with the GEMM's own kernel: the C API then
                                     advises on a copy of the profile with that kernel)
        [--chained]                 (each pair in a prefetch chain, C API version 3)
"""
import argparse
import statistics
import time

import c3advisor

# The paper's GEMMs (data/scenarios/paper.yaml) and collective sizes.
GEMMS = {"cb1": (8192, 8192, 8192), "cb2": (16384, 8192, 16384), "cb3": (16384, 16384, 8192),
         "cb4": (18432, 8192, 16384), "cb5": (106496, 8192, 16384), "mb1": (8192, 57344, 8192),
         "mb2": (16384, 106496, 8192)}
PAIRS = [("mb1", "896MiB"), ("mb2", "3.25GiB"), ("mb1", "4GiB"), ("mb1", "6GiB"), ("cb3", "512MiB"),
         ("cb4", "512MiB"), ("cb5", "1.63GiB"), ("cb4", "1GiB"), ("mb1", "13GiB"), ("cb2", "3.25GiB"),
         ("cb4", "2.5GiB"), ("cb1", "896MiB"), ("cb5", "20GiB"), ("mb2", "26.5GiB"), ("cb5", "13GiB")]


def per_call_us(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="h200x2")
    parser.add_argument("--calls", type=int, default=20000, help="calls per repeat")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--gemm-tile", default="", help="TMxTN[:S]: every call names the GEMM's kernel")
    parser.add_argument("--chained", action="store_true", help="every pair in a prefetch chain (docs/model.md §4.6)")
    args = parser.parse_args()
    tile = {"chained": True} if args.chained else {}
    if args.gemm_tile:
        dims = args.gemm_tile.replace(":", "x").split("x")
        tile["gemm_tile"] = tuple(int(d) for d in dims)

    advisor = c3advisor.Advisor(args.profile)
    ranks = advisor.profile.gpu_count
    queries = [dict(gemm=GEMMS[g], dtype="bf16", collective=c, size=c3advisor.parse_size(s), ranks=ranks, **tile)
               for g, s in PAIRS for c in ("all_gather", "all_to_all")]
    n = len(queries)
    state = {"i": 0}

    def advise():
        q = queries[state["i"] % n]
        state["i"] += 1
        return advisor.advise(**q)

    def advise_json():
        return advise().json

    for name, fn, calls in (("advise", advise, args.calls), ("advise + .json", advise_json, args.calls // 4)):
        per_call_us(fn, min(calls, 1000))  # warm-up
        times = [per_call_us(fn, calls) for _ in range(args.repeats)]
        print("%-15s %s%s, %d scenarios, %d calls x %d repeats: median %.1f us per call (min %.1f, max %.1f)"
              % (name, args.profile, (" --gemm-tile " + args.gemm_tile if args.gemm_tile else "") +
                 (" --chained" if args.chained else ""), n, calls, args.repeats,
                 statistics.median(times), min(times), max(times)))


if __name__ == "__main__":
    main()
