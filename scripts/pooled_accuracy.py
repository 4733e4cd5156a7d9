#!/usr/bin/env python3
"""How sure a pooled decision accuracy is: the scenarios of several `c3advisor validate --json`
outputs pooled, their right picks counted, with two 95% intervals (docs/accuracy.md, "Summary"):

    scripts/pooled_accuracy.py [--json] [--reps N] [--seed S] VALIDATE.json [VALIDATE.json ...]

- Wilson's score interval, as `validate` prints per file: every pair an independent draw.
- A cluster bootstrap (N resamples, default 10000, of a fixed seed): the clusters drawn with
  replacement, the pooled share of each resample, its 2.5th and 97.5th percentiles. Clusters by
  file (a set measured in its processes shares their state) and by model (the catalog model of a
  generated pair, the second word of its name `pNN_MODEL_...`; else the pair itself), since one
  model's pairs share shapes. Wider than Wilson's where pairs of a cluster fail together; none
  ("-") with fewer than 5 clusters.

Per band of the pair's fastest measured time (all, at and above 100 us, under 100 us), and for
dependent pairs the picks more than 1% slower than serial. Standard library only."""
import argparse
import json
import math
import random
import re
import sys

Z95 = 1.959963984540054
SMALL_S = 100e-6
SLOWER = 0.01
BANDS = ("all", ">= 100 us", "< 100 us")
MIN_CLUSTERS = 5  # fewer clusters than this: no bootstrap interval (printed "-")


def wilson(right, n, z=Z95):
    """Wilson's score interval of right / n (evaluate/intervals.cpp's wilson_interval)."""
    if n == 0:
        return 0.0, 1.0
    p = right / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def model_of(name):
    m = re.match(r"p\d+_([^_]+)_", name)
    return m.group(1) if m else name


def load(paths):
    """[(file, model, band, right, slower or None)] of every scored scenario."""
    rows = []
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
            scenarios = doc["scenarios"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit("pooled_accuracy.py: %s: not a validate --json output (%s)" % (path, e))
        for s in scenarios:
            measured = {x["name"]: x["measured_s"] for x in s.get("strategies", []) if x.get("measured_s")}
            if not measured or "correct" not in s:
                continue
            band = ">= 100 us" if min(measured.values()) >= SMALL_S else "< 100 us"
            slower = slower_than_serial(s) if s.get("dependency") else None
            rows.append((path, model_of(s["name"]), band, bool(s["correct"]), slower))
    return rows


def slower_than_serial(scenario):
    """Whether validate's pick of one scored pair measured more than SLOWER slower than serial;
    None where serial or the pick was not measured."""
    measured = {x["name"]: x["measured_s"] for x in scenario.get("strategies", []) if x.get("measured_s")}
    if "serial" not in measured or scenario.get("pick") not in measured:
        return None
    return measured[scenario["pick"]] > measured["serial"] * (1 + SLOWER)


def bootstrap(rows, cluster, reps, seed):
    """The 2.5th and 97.5th percentiles of the pooled share over `reps` resamples of the clusters."""
    groups = {}
    for r in rows:
        g = groups.setdefault(cluster(r), [0, 0])
        g[0] += r[3]
        g[1] += 1
    sums = list(groups.values())
    if len(sums) < MIN_CLUSTERS:
        return None
    rng = random.Random(seed)
    shares = []
    for _ in range(reps):
        right = n = 0
        for _ in sums:
            g = sums[rng.randrange(len(sums))]
            right += g[0]
            n += g[1]
        shares.append(right / n)
    shares.sort()
    return shares[int(0.025 * (reps - 1))], shares[int(math.ceil(0.975 * (reps - 1)))]


def summarize(rows, reps, seed):
    out = []
    for band in BANDS:
        rs = [r for r in rows if band == "all" or r[2] == band]
        if not rs:
            continue
        right = sum(r[3] for r in rs)
        dependent = [r for r in rs if r[4] is not None]
        out.append({"band": band, "pairs": len(rs), "right": right, "share": right / len(rs),
                    "wilson95": list(wilson(right, len(rs))),
                    "bootstrap95_by_file": bootstrap(rs, lambda r: r[0], reps, seed),
                    "bootstrap95_by_model": bootstrap(rs, lambda r: r[1], reps, seed),
                    "files": len({r[0] for r in rs}), "models": len({r[1] for r in rs}),
                    "dependent_pairs": len(dependent),
                    "slower_than_serial": sum(r[4] for r in dependent)})
    return out


def pct(x):
    return "%.1f%%" % (100 * x)


def interval(iv):
    return "%s to %s" % (pct(iv[0]), pct(iv[1])) if iv else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("validate", nargs="+")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--reps", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.reps < 100:
        sys.exit("pooled_accuracy.py: --reps %d: at least 100" % a.reps)
    rows = load(a.validate)
    if not rows:
        sys.exit("pooled_accuracy.py: no scored scenario in %s" % ", ".join(a.validate))
    out = summarize(rows, a.reps, a.seed)
    if a.json:
        json.dump({"reps": a.reps, "seed": a.seed, "bands": out}, sys.stdout, indent=1)
        print()
        return
    print("| band | pairs (files, models) | right | Wilson 95% | bootstrap 95% by file | by model "
          "| dependent picks > 1% slower than serial |")
    print("|---|---|---|---|---|---|---|")
    for b in out:
        slow = "%d of %d" % (b["slower_than_serial"], b["dependent_pairs"]) if b["dependent_pairs"] else "-"
        print("| %s | %d (%d, %d) | %d (%s) | %s | %s | %s | %s |" % (
            b["band"], b["pairs"], b["files"], b["models"], b["right"], pct(b["share"]), interval(b["wilson95"]),
            interval(b["bootstrap95_by_file"]), interval(b["bootstrap95_by_model"]), slow))


if __name__ == "__main__":
    main()
