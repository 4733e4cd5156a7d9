#!/usr/bin/env python3
"""Summary of a leave-one-seed-out check (scripts/loso-lib.sh): for each TAG, the `validate --json`
files WORK/v-TAG-*.json of its folds pooled, one line per TAG:

    scripts/loso_summary.py --work WORK [--gemm-bands] [--families] TAG=LABEL [TAG=LABEL ...]

Per TAG: the right decisions (all pairs, and those whose fastest measured strategy is at or above
100 us), the mean loss, the picks more than 1% slower than serial, and the prediction error's
median / p90 over every strategy, all and by the pair's measured serial time (at and above 100 us,
under). --gemm-bands adds the isolated GEMM's error median by its measured time; --families the
median error per strategy family (the name before ':') at and above 100 us. Standard library only."""
import argparse
import collections
import glob
import json
import statistics
import sys

GEMM_BANDS = ((">= 100 us", 100e-6), ("50-100 us", 50e-6), ("20-50 us", 20e-6), ("< 20 us", 0.0))


def p90(values):
    values = sorted(values)
    return values[int(0.9 * (len(values) - 1))]


def summarize(work, tag, label, gemm_bands, families):
    right = n = big_right = big_n = slower = 0
    loss = 0.0
    errors = {"all": [], ">= 100 us": [], "< 100 us": []}
    gemm = {band: [] for band, _ in GEMM_BANDS}
    family = collections.defaultdict(list)
    paths = sorted(glob.glob("%s/v-%s-*.json" % (work, tag)))
    if not paths:
        sys.exit("loso_summary: no %s/v-%s-*.json" % (work, tag))
    for path in paths:
        with open(path) as f:
            scenarios = json.load(f)["scenarios"]
        for x in scenarios:
            measured = {s["name"]: s["measured_s"] for s in x["strategies"]}
            n += 1
            right += x["correct"]
            loss += x["loss_vs_oracle"]
            if min(measured.values()) >= 100e-6:
                big_n += 1
                big_right += x["correct"]
            slower += measured.get(x["pick"], 0) > 1.01 * measured["serial"]
            band = ">= 100 us" if measured["serial"] >= 100e-6 else "< 100 us"
            for s in x["strategies"]:
                if s.get("prediction_error") is None:
                    continue
                e = abs(s["prediction_error"])
                errors["all"].append(e)
                errors[band].append(e)
                if band == ">= 100 us":
                    family[s["name"].split(":")[0]].append(e)
            g = x["measured_isolated"]["gemm_s"]
            if g:
                gband = next(b for b, lo in GEMM_BANDS if g >= lo)
                gemm[gband].append(abs(x["predicted_isolated"]["gemm_s"] / g - 1))
    print("%-36s right %d of %d (at and above 100 us %d of %d), mean loss %.2f%%, %d picks > 1%% slower "
          "than serial; error median / p90: %s" % (
              label, right, n, big_right, big_n, 100 * loss / n, slower,
              ", ".join("%s %.2f%% / %.1f%%" % (b, 100 * statistics.median(v), 100 * p90(v))
                        for b, v in errors.items() if v)))
    if gemm_bands:
        print("%-36s isolated GEMM error median by its measured time: %s" % (
            "", ", ".join("%s %.1f%% (%d)" % (b, 100 * statistics.median(v), len(v)) for b, v in gemm.items() if v)))
    if families:
        print("%-36s >= 100 us median by family: %s" % (
            "", ", ".join("%s %.2f%%" % (f, 100 * statistics.median(v)) for f, v in sorted(family.items()))))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", required=True)
    parser.add_argument("--gemm-bands", action="store_true")
    parser.add_argument("--families", action="store_true")
    parser.add_argument("tags", nargs="+", metavar="TAG=LABEL")
    args = parser.parse_args()
    for item in args.tags:
        tag, _, label = item.partition("=")
        summarize(args.work, tag, label or tag, args.gemm_bands, args.families)


if __name__ == "__main__":
    main()
