#!/usr/bin/env python3
"""Where a strategy's time relative to serial moves: between the rounds of one process, or
between processes (docs/accuracy.md, "Where a strategy's time moves between processes").

    scripts/round_spread.py --rounds R RAW.json [RAW.json ...] [--ratio-min-us 300] [--json OUT.json]

RAW files: raw measurement files (docs/formats.md) of the same scenarios, each from its own
process. A record's runs (`runs_s`, in the order they ran) are cut into R consecutive groups:
with `measure --rounds R` each group is one round (its own set-up, buffers and checks, a round
through every strategy of the pair between two groups); with the blocked protocol (--rounds 1 in
measure) the groups are thirds of one measurement's back-to-back runs, the noise of the runs
themselves. For every strategy other than serial of the pairs whose serial took at least
--ratio-min-us (its median, in the first file), each group's log(median / serial's median of
the same group):
  - within each file: their standard deviation over the R groups (median and p90 over the
    strategies);
  - across the files (two or more): the standard deviation over the files of log(median /
    serial's median) of whole records; and that deviation cut in two, a part common to every
    strategy of the pair in one file (the mean over the pair's strategies: what moves serial
    against all of them) and the rest (each strategy's own).
Records with fewer runs than R, or whose runs do not divide into R groups, are left out of
the within-file numbers. Standard library only."""
import argparse
import json
import math
import re
import statistics
import sys


def load(path):
    """{pair key: {strategy: runs_s}} of one raw file's ok concurrent records."""
    with open(path) as f:
        doc = json.load(f)
    pairs = {}
    for r in doc.get("records", []):
        if r.get("what") != "concurrent" or not r.get("ok") or not r.get("runs_s"):
            continue
        key = re.sub(r" strategy=\S+", "", r["key"])
        pairs.setdefault(key, {})[r["strategy"]] = list(r["runs_s"])
    return pairs


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def groups(runs, rounds):
    if len(runs) < rounds or len(runs) % rounds:
        return None
    n = len(runs) // rounds
    return [statistics.median(runs[i * n:(i + 1) * n]) for i in range(rounds)]


def within(pairs, keep, rounds):
    """Standard deviation over the groups of log(strategy / serial), one per strategy."""
    sds = []
    for key in keep:
        strategies = pairs.get(key, {})
        serial = groups(strategies.get("serial", []), rounds)
        if serial is None:
            continue
        for name, runs in strategies.items():
            mine = groups(runs, rounds)
            if name == "serial" or mine is None:
                continue
            sds.append(statistics.pstdev([math.log(a / b) for a, b in zip(mine, serial)]))
    return sds


def across(files, keep):
    """Over the files: the standard deviation of each strategy's log(median / serial's median),
    and the deviations from the files' mean cut into the pair's common part and the rest."""
    sds, common, own = [], [], []
    for key in keep:
        everywhere = set.intersection(*(set(f.get(key, {})) for f in files))  # measured in every file
        names = everywhere - {"serial"}
        if "serial" not in everywhere or not names:
            continue
        lr = {n: [math.log(statistics.median(f[key][n]) / statistics.median(f[key]["serial"])) for f in files]
              for n in sorted(names)}
        for values in lr.values():
            sds.append(statistics.pstdev(values))
        mean = {n: statistics.mean(v) for n, v in lr.items()}
        for i in range(len(files)):
            dev = {n: lr[n][i] - mean[n] for n in lr}
            c = statistics.mean(dev.values())
            common.append(c)
            own.extend(d - c for d in dev.values())
    return sds, common, own


def summary(values):
    return {"n": len(values), "median": statistics.median(values), "p90": pct(values, 0.9)} if values else {"n": 0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--rounds", type=int, required=True, help="groups per record (measure --rounds, or 3 for thirds)")
    ap.add_argument("--ratio-min-us", type=float, default=300.0)
    ap.add_argument("--json", help="write the numbers here")
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("round_spread.py: --rounds must be at least 1")
    files = [load(p) for p in a.raw]
    first = files[0]
    keep = [k for k, s in first.items() if "serial" in s and statistics.median(s["serial"]) >= a.ratio_min_us * 1e-6]
    if not keep:
        sys.exit("round_spread.py: no pair of %s has serial measured at %g us or more" % (a.raw[0], a.ratio_min_us))
    out = {"rounds": a.rounds, "ratio_min_us": a.ratio_min_us, "pairs": len(keep), "within": {}}
    print("%d pairs whose serial took %g us or more in %s; log(time / serial), standard deviations:" %
          (len(keep), a.ratio_min_us, a.raw[0]))
    for path, f in zip(a.raw, files):
        s = summary(within(f, keep, a.rounds))
        out["within"][path] = s
        if s["n"]:
            print("  between the %d groups of one record, %s: median %.2f%%, p90 %.2f%% (%d strategy times)" %
                  (a.rounds, path, 100 * s["median"], 100 * s["p90"], s["n"]))
        else:
            print("  between the %d groups of one record, %s: no record divides into %d groups" % (a.rounds, path, a.rounds))
    if len(files) >= 2:
        sds, common, own = across(files, keep)
        out["across"] = summary(sds)
        out["common_abs"] = summary([abs(x) for x in common])
        out["own_abs"] = summary([abs(x) for x in own])
        if sds:
            print("  between the %d files (whole records): median %.2f%%, p90 %.2f%% (%d strategy times)" %
                  (len(files), 100 * out["across"]["median"], 100 * out["across"]["p90"], len(sds)))
            print("  a file's deviation, |common to the pair's strategies| median %.2f%%, |each strategy's own| median %.2f%%" %
                  (100 * out["common_abs"]["median"], 100 * out["own_abs"]["median"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
