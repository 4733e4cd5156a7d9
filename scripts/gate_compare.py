#!/usr/bin/env python3
"""Gated against ungated measurements of the same pairs (the cuda option gate=1, docs/device.md;
scripts/gpu-jobs/gate-ab.sh): how much of each strategy's time the host's launch pacing was, and
whether the fastest strategy stays the fastest.

    scripts/gate_compare.py --ungated U1.json [U2.json ...] --gated G1.json [G2.json ...] [--tolerance 0.02]

Reads raw measurement files (`c3advisor measure`). A pair is one GEMM shape with one collective
(kind and size); its strategies are its `concurrent` records that are ok. For each protocol a
strategy's time is its median over that protocol's files. Prints, per strategy family (the
label up to the first ':'), the median of gated / ungated time; how often each family is the
fastest under each protocol; and in how many pairs the ungated fastest strategy is within the
tolerance of the gated fastest (and the other way round). With two or more files of a
protocol, also its repeatability per family: the p90 of a strategy's spread between the files
(max / min of its medians - 1) and how many moved by more than 5% (scripts/repeat_spread.py has
the rest). Exit 2 when a file cannot be read or the two protocols share no pair.
"""
import argparse
import collections
import json
import statistics
import sys


def pairs_of(path):
    """{pair key: {strategy: median_s}} of one raw file."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit("gate_compare: %s: %s" % (path, e))
    out = collections.defaultdict(dict)
    for r in doc.get("records", []):
        if r.get("what") != "concurrent" or not r.get("ok") or not r.get("median_s"):
            continue
        key = (r["m"], r["n"], r["k"], r.get("dtype", ""), r["kind"], r["size_bytes"], r.get("ranks", 0))
        out[key][r["strategy"]] = r["median_s"]
    return out


def spreads(files):
    """{family: [max/min - 1 of each strategy's medians over the files]}, pairs in every file
    (files: pairs_of of each)."""
    out = collections.defaultdict(list)
    for key in set.intersection(*(set(f) for f in files)):
        for s in set.intersection(*(set(f[key]) for f in files)):
            t = [f[key][s] for f in files]
            out[family(s)].append(max(t) / min(t) - 1)
    return out


def p90(values):
    v = sorted(values)
    return v[int(0.9 * (len(v) - 1))]


def merged(files):
    """{pair: {strategy: median over the files}}, strategies present in every file (files:
    pairs_of of each)."""
    out = {}
    for key in set.intersection(*(set(f) for f in files)):
        names = set.intersection(*(set(f[key]) for f in files))
        if names:
            out[key] = {s: statistics.median(f[key][s] for f in files) for s in names}
    return out


def family(strategy):
    return strategy.split(":")[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ungated", nargs="+", required=True)
    ap.add_argument("--gated", nargs="+", required=True)
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--json", help="write the numbers here")
    a = ap.parse_args(argv)
    read = {"ungated": [pairs_of(p) for p in a.ungated], "gated": [pairs_of(p) for p in a.gated]}
    u, g = merged(read["ungated"]), merged(read["gated"])
    keys = sorted(set(u) & set(g))
    if not keys:
        print("gate_compare: the two protocols share no pair", file=sys.stderr)
        return 2
    ratios = collections.defaultdict(list)
    fastest = {"ungated": collections.Counter(), "gated": collections.Counter()}
    kept = back = 0
    for key in keys:
        names = set(u[key]) & set(g[key])
        for s in names:
            ratios[family(s)].append(g[key][s] / u[key][s])
        bu = min(names, key=lambda s: u[key][s])
        bg = min(names, key=lambda s: g[key][s])
        fastest["ungated"][family(bu)] += 1
        fastest["gated"][family(bg)] += 1
        kept += g[key][bu] <= (1 + a.tolerance) * g[key][bg]
        back += u[key][bg] <= (1 + a.tolerance) * u[key][bu]
    fams = sorted(ratios, key=lambda f: (f != "serial", f))
    print("%d pairs; %d ungated file(s), %d gated" % (len(keys), len(a.ungated), len(a.gated)))
    print("%-8s %7s %18s %9s %9s" % ("family", "times", "gated / ungated", "fastest u", "fastest g"))
    for f in fams:
        print("%-8s %7d %18.3f %9d %9d" % (f, len(ratios[f]), statistics.median(ratios[f]), fastest["ungated"][f],
                                          fastest["gated"][f]))
    print("the ungated fastest within %.0f%% of the gated fastest: %d of %d (%.1f%%); the gated fastest "
          "within it ungated: %d (%.1f%%)" % (100 * a.tolerance, kept, len(keys), 100 * kept / len(keys), back,
                                             100 * back / len(keys)))
    moved = {}
    for name, files in read.items():
        if len(files) < 2:
            continue
        sp = spreads(files)
        moved[name] = {f: {"p90": p90(v), "over_5pct": sum(x > 0.05 for x in v), "times": len(v)} for f, v in sp.items()}
        print("%s, between its %d files: %s" % (name, len(files), "; ".join(
            "%s p90 %.1f%%, %d of %d over 5%%" % (f, 100 * m["p90"], m["over_5pct"], m["times"])
            for f, m in sorted(moved[name].items(), key=lambda kv: (kv[0] != "serial", kv[0])))))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"pairs": len(keys), "ratio_median": {k: statistics.median(v) for k, v in ratios.items()},
                       "fastest": {k: dict(v) for k, v in fastest.items()},
                       "ungated_fastest_kept": kept, "gated_fastest_kept_ungated": back, "moved": moved}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
