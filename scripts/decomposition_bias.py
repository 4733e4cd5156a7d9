#!/usr/bin/env python3
"""The decomposed schedules' bias against serial on dependent train pairs, and what two
candidate terms would have done (docs/accuracy.md, "Eleventh test round", "Looked for and not
adopted"). Reads the JSON of `c3advisor validate --json` over dependent pairs:

    scripts/decomposition_bias.py VALIDATE.json... [--raw RAW.json ...] [--deltas 0,0.01,0.02]

1. The ratio error (predicted / predicted serial) / (measured / measured serial) - 1 of each
   schedule without a partition, for G-long pairs (predicted GEMM longer than the collective)
   whose collective is under a fifth of their predicted serial time: median, share below 0.
2. The advisor's hedged rule (advisor.cpp: the simplest within 1% of the fastest, serial
   hedged against the profile's chunked error, --hedge) replayed with delta x t_gemm added to
   every decomposed schedule: right decisions, picks more than 1% slower than serial.
3. With --raw (the same pairs' raw files, for the kernels cuBLASLt recorded): the extra share
   of GEMM time that wave quantization per piece would predict (each piece's tiles on 132
   SMs, the whole GEMM's tile), against the measured ratio error.
Standard library only."""
import argparse
import json
import math
import statistics


def load(paths):
    out = []
    for p in paths:
        with open(p) as f:
            out += json.load(f)["scenarios"]
    return out


def feeds_gemm(s):
    return not ("_rs_" in s["name"] or "combine" in s["name"])  # the generator's names


def ratio_errors(scenarios):
    rows = []
    for s in scenarios:
        by = {x["name"]: x for x in s["strategies"] if x.get("predicted_s")}
        ser = by["serial"]
        pi = s["predicted_isolated"]
        share = pi["collective_s"] / (pi["gemm_s"] + pi["collective_s"])
        for n, x in by.items():
            if n == "serial" or n.count(":") != 2:
                continue
            r = (x["predicted_s"] / ser["predicted_s"]) / (x["measured_s"] / ser["measured_s"]) - 1
            rows.append((s, n, r, pi["gemm_s"] > pi["collective_s"] and share < 0.2))
    return rows


def pick(pred, errors, margin=0.01):
    def rec(t):
        fastest = min(t.values())
        close = [n for n in t if t[n] <= fastest * (1 + margin)]
        return "serial" if "serial" in close else min(close, key=lambda n: t[n])
    p = rec(pred)
    others = [n for n in pred if n != p]
    if not others:
        return p
    r = min(others, key=lambda n: pred[n])
    if pred[r] / pred[p] - 1 < max(errors[p], errors[r]):
        return rec({n: pred[n] * (1 + errors[n]) for n in pred})
    return p


def replay(scenarios, delta, hedge):
    right = slower = 0
    for s in scenarios:
        by = {x["name"]: x for x in s["strategies"] if x.get("predicted_s")}
        tg = s["predicted_isolated"]["gemm_s"]
        pred = {n: x["predicted_s"] + (delta * tg if n != "serial" and n.count(":") == 2 else 0) for n, x in by.items()}
        errors = {n: 0.0 if n == "serial" else hedge for n in by}
        p = pick(pred, errors)
        meas = {n: x["measured_s"] for n, x in by.items()}
        right += meas[p] <= min(meas.values()) * 1.02
        slower += meas[p] > meas["serial"] * 1.01
    return right, slower


def quantization(scenarios, raws, sms=132):
    kernels = {}
    for p in raws:
        with open(p) as f:
            for r in json.load(f)["records"]:
                k = r.get("gemm_kernel")
                if r.get("what") == "gemm" and k and k.get("tile_m"):
                    kernels[(r["m"], r["n"], r["k"])] = (k["tile_m"], k["tile_n"], k.get("split_k", 1))
    def q(rows, n, tm, tn, sk):
        tiles = [math.ceil(r / tm) * math.ceil(n / tn) * sk for r in rows]
        return sum(math.ceil(t / sms) * sms for t in tiles) / sum(tiles)
    out = []
    for s, n, r, glong in ratio_errors(scenarios):
        g = s["gemm"]
        key = (g["m"], g["n"], g["k"])
        if not glong or key not in kernels:
            continue
        tm, tn, sk = kernels[key]
        chunks, m, ranks = int(n.split(":")[1]), g["m"], s["collective"]["ranks"]
        rows = ([m // ranks] + [m // chunks * (ranks - 1)] * (chunks // ranks)) if feeds_gemm(s) else [m // (chunks // ranks)] * (chunks // ranks)
        pi = s["predicted_isolated"]
        extra = (q(rows, g["n"], tm, tn, sk) / q([m], g["n"], tm, tn, sk) - 1) * pi["gemm_s"] / (pi["gemm_s"] + pi["collective_s"])
        out.append((extra, r))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("validate", nargs="+")
    ap.add_argument("--raw", action="append", default=[])
    ap.add_argument("--deltas", default="0,0.01,0.02,0.03,0.04")
    ap.add_argument("--hedge", type=float, default=0.0327, help="the profile's prediction_error.chunked")
    a = ap.parse_args()
    scenarios = load(a.validate)
    rows = ratio_errors(scenarios)
    for dep in (True, False):
        v = [r for s, n, r, g in rows if g and feeds_gemm(s) == dep]
        if v:
            print("%s, G-long, collective < 1/5 of serial: %d schedules, ratio error median %+.3f, below 0: %.0f%%" % (
                "collective_feeds_gemm" if dep else "gemm_feeds_collective", len(v), statistics.median(v),
                100 * sum(x < 0 for x in v) / len(v)))
    for d in (float(x) for x in a.deltas.split(",")):
        right, slower = replay(scenarios, d, a.hedge)
        print("delta %.3f x t_gemm: %d of %d right, %d picks more than 1%% slower than serial" % (d, right, len(scenarios), slower))
    if a.raw:
        q = quantization(scenarios, a.raw)
        if q:
            big = [(e, r) for e, r in q if e > 0.05]
            print("wave quantization: %d G-long schedules; %d predicted more than 5%% extra (up to %.0f%%), "
                  "their measured ratio error median %+.3f" % (len(q), len(big), 100 * max(e for e, r in q),
                                                               statistics.median([r for e, r in big]) if big else float("nan")))


if __name__ == "__main__":
    main()
