#!/usr/bin/env python3
"""Times a GEMM whole against the same GEMM cut along m into the pieces of the decomposed
schedules (docs/model.md §7.1), run back to back on one stream of one GPU with no collective,
so that what the pieces cost beyond the whole is measured alone (docs/accuracy.md, "What a
GEMM's pieces cost"):

    PYTHONPATH=python python3 scripts/gpu-jobs/torch_pieces.py \\
      --gemms-from data/measurements/dependent-s22201-n40-h200x2-2026-11-28.json --out pieces.json

The GEMMs are those of a measurement file (torch_rest.py's choice: successful bf16 GEMM records
with no CUs removed and a median of at least --min-s, --count of them spread evenly over their
times; m a multiple of 64, n and k of 8). Each runs row-major, as a dependent pair's GEMM does
(C[m x n] = A[m x k] · B[k x n], torch.matmul with out=); a piece is the same call on a block of
A's rows into the same rows of C. The cuts (--cuts), at 2 ranks:
  whole       one GEMM (the serial schedule's)
  local+S     m/2 rows, then S pieces of m/(2S): collective_feeds_gemm's chunked:2S (S = 1, 2, 4)
  even:S      S pieces of m/S rows: gemm_feeds_collective's steps of chunked:2S (S = 2, 4)
Per GEMM, per round (--rounds) and per pacing, each cut after --soak-s of the whole GEMM back to
back: --runs iterations, the first --skip dropped, each timed by CUDA events around the whole
cut and between its pieces. `queued`: every iteration queued without a host synchronization (the
device paces them; the launches hide behind the pieces); `paced`: a synchronization after each
iteration (the host issues the pieces while the first runs: Python's launch cost, more than the
runner's C++ one, shows on short pieces). A cut's total_s is the median over iterations, its
pieces_s each piece's median, extra_s = total_s - the whole's total_s of the same round and
pacing. Each cut's result is checked once against the whole's (max |diff| / max |C| <= 2^-6,
bf16). Set C3_GIT_SHA for the provenance. The file is rewritten after every GEMM."""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_collectives import provenance, write_atomically  # noqa: E402
from torch_rest import gemms_from  # noqa: E402

TOLERANCE = 2.0 ** -6


M_MULTIPLE = 64  # every GEMM's m: a cut of S pieces of 64 rows' multiples needs S to divide 64


def parse_cut(cut):
    """("whole", 1), ("local", S) or ("even", S) of a cut's name: whole, local+S, even:S, with S a
    power of two that cuts every m the job takes (local: 2 S pieces, even: S, of M_MULTIPLE)."""
    if cut == "whole":
        return "whole", 1
    for kind, sep, pieces in (("local", "+", 2), ("even", ":", 1)):
        head, found, tail = cut.partition(sep)
        if head == kind and found:
            if not tail.isdigit() or int(tail) < 1 or M_MULTIPLE % (pieces * int(tail)):
                raise ValueError("%s: S must be a power of two up to %d (m is a multiple of %d)" %
                                 (cut, M_MULTIPLE // pieces, M_MULTIPLE))
            return kind, int(tail)
    raise ValueError("%s: a cut is whole, local+S or even:S" % cut)


def cut_rows(m, cut):
    """[(first row, rows)] of the pieces of `cut` (whole, local+S, even:S) of m rows."""
    kind, s = parse_cut(cut)
    if kind == "whole":
        return [(0, m)]
    if kind == "local":
        if m % (2 * s):
            raise ValueError("%s: m = %d is not cut in 2 x %d pieces" % (cut, m, s))
        half = m // 2
        return [(0, half)] + [(half + i * (half // s), half // s) for i in range(s)]
    if m % s:
        raise ValueError("%s: m = %d is not cut in %d pieces" % (cut, m, s))
    return [(i * (m // s), m // s) for i in range(s)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gemms-from", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--min-s", type=float, default=20e-6)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--cuts", default="whole,local+1,local+2,local+4,even:4")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--skip", type=int, default=5)
    ap.add_argument("--soak-s", type=float, default=0.2)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    cuts = a.cuts.split(",")
    if cuts[0] != "whole" or a.runs <= a.skip or a.rounds < 1:
        sys.exit("torch_pieces.py: --cuts must start with whole; --runs > --skip; --rounds >= 1")
    try:
        for cut in cuts:
            parse_cut(cut)
    except ValueError as e:
        sys.exit("torch_pieces.py: --cuts: %s" % e)
    try:
        shapes = gemms_from(a.gemms_from, a.min_s, a.count, m_multiple=M_MULTIPLE)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("torch_pieces.py: --gemms-from %s: not a measurement file (%s)" % (a.gemms_from, e))
    if not shapes:
        sys.exit("torch_pieces.py: no bf16 GEMM of at least %g s with m a multiple of 64 in %s" %
                 (a.min_s, a.gemms_from))

    import torch
    torch.manual_seed(0)
    doc = {"schema_version": 1,
           "provenance": provenance(torch, 1, ["GEMMs from " + a.gemms_from, "method: " + __doc__.split("\n\n")[1]],
                                    launcher="python3"),
           "gemms": []}

    for m, n, k, recorded_s in shapes:
        A = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        B = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        C = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        pieces_of = {cut: cut_rows(m, cut) for cut in cuts}

        def run_cut(cut):
            for r0, rows in pieces_of[cut]:
                torch.matmul(A[r0:r0 + rows], B, out=C[r0:r0 + rows])

        run_cut("whole")
        torch.cuda.synchronize()
        reference = C.clone()
        scale = reference.abs().max().item() or 1.0
        record = {"m": m, "n": n, "k": k, "dtype": "bf16", "layout": "row_major", "recorded_s": recorded_s,
                  "cuts": {}, "points": []}
        for cut in cuts:
            C.zero_()
            run_cut(cut)
            torch.cuda.synchronize()
            error = (C.float() - reference.float()).abs().max().item() / scale
            record["cuts"][cut] = {"rows": [rows for _, rows in pieces_of[cut]], "max_rel_diff": error,
                                   "verified": error <= TOLERANCE}
        for rnd in range(a.rounds):
            for pacing in ("queued", "paced"):
                whole_s = None
                for cut in cuts:
                    soak_end = time.time() + a.soak_s
                    while time.time() < soak_end:
                        for _ in range(8):
                            run_cut("whole")
                        torch.cuda.synchronize()
                    marks = [[torch.cuda.Event(enable_timing=True) for _ in range(len(pieces_of[cut]) + 1)]
                             for _ in range(a.runs)]
                    for events in marks:
                        events[0].record()
                        for i, (r0, rows) in enumerate(pieces_of[cut]):
                            torch.matmul(A[r0:r0 + rows], B, out=C[r0:r0 + rows])
                            events[i + 1].record()
                        if pacing == "paced":
                            torch.cuda.synchronize()
                    torch.cuda.synchronize()
                    kept = marks[a.skip:]
                    total_runs = [e[0].elapsed_time(e[-1]) * 1e-3 for e in kept]
                    pieces_s = [statistics.median(e[i].elapsed_time(e[i + 1]) * 1e-3 for e in kept)
                                for i in range(len(pieces_of[cut]))]
                    total_s = statistics.median(total_runs)
                    if cut == "whole":
                        whole_s = total_s
                    record["points"].append({"round": rnd + 1, "pacing": pacing, "cut": cut, "total_s": total_s,
                                             "pieces_s": pieces_s, "extra_s": total_s - whole_s,
                                             "vs_whole": total_s / whole_s, "total_runs_s": total_runs})
        doc["gemms"].append(record)
        write_atomically(a.out, doc)
        line = "  ".join("%s %+.1f us" % (p["cut"], p["extra_s"] * 1e6) for p in record["points"]
                         if p["round"] == 1 and p["pacing"] == "queued" and p["cut"] != "whole")
        whole = [p["total_s"] for p in record["points"] if p["cut"] == "whole" and p["pacing"] == "queued"]
        print("%dx%dx%d  whole %.1f us (recorded %.1f)  %s%s" % (
            m, n, k, statistics.median(whole) * 1e6, recorded_s * 1e6, line,
            "" if all(c["verified"] for c in record["cuts"].values()) else "  NOT VERIFIED"), flush=True)
        del A, B, C, reference
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
