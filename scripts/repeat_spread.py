#!/usr/bin/env python3
"""Run-to-run spread of repeated `c3advisor measure` runs of the same pairs (issue 11:
"measure a slice of the test set twice in separate processes ... so that a 'wrong'
decision inside the noise is told apart from a model error").

    scripts/repeat_spread.py RAW1.json RAW2.json [RAW3.json ...] [--picks VALIDATE.json]
                             [--tolerance 0.02] [--json OUT.json]

RAW files: raw measurement files (docs/formats.md) of the same scenarios, each from its own
process. Only pairs measured in every file are compared. Prints, per pair size class
(fastest strategy under / over 100 us):
  - the spread of each strategy's median time across the runs, max/min - 1 (median, p90, max);
  - the noise ceiling: choose in run a the fastest strategy (a perfect model of run a) and
    score it in run b (right when within --tolerance of run b's fastest); over every
    ordered pair of runs. No model can be expected to be right more often than this;
  - the median of the others: in each run b, the strategy fastest in the median over the
    other runs (each strategy's time the median of its medians there), scored in run b: a
    predictor that knows every other process (with two runs, the noise ceiling again);
  - with --picks (the JSON of `c3advisor validate` over the same scenarios): the advisor's
    pick scored in every run, how many of its wrong decisions of the first run are right in
    another run (inside the noise), and the pick scored against the median of the runs (each
    strategy's time the median of its medians: a ground truth with less noise than one run);
  - relative to serial, over the pairs whose serial took at least --ratio-min-us (default
    300) in the first file: the spread across the runs of each strategy's time / serial's,
    the quantity a decision depends on (docs/accuracy.md, "Run protocols"), and the median
    interquartile range of one measurement's runs over its median.
Standard library only."""
import argparse
import itertools
import json
import re
import statistics
import sys


def load_pairs(path):
    """Of one raw file's ok concurrent records: {pair key: {strategy: median_s}} and
    {pair key: {strategy: interquartile range of its runs / their median}} (4 runs or more)."""
    with open(path) as f:
        doc = json.load(f)
    pairs, iqr = {}, {}
    for r in doc.get("records", []):
        if r.get("what") != "concurrent" or not r.get("ok"):
            continue
        # The pair: the record's key without its strategy (a dependent pair's dependency
        # follows the strategy in the key and stays, as pair_key_of writes it).
        key = re.sub(r" strategy=\S+", "", r["key"])
        pairs.setdefault(key, {})[r["strategy"]] = r["median_s"]
        runs = sorted(r.get("runs_s") or [])
        if len(runs) >= 4:
            n = len(runs)
            iqr.setdefault(key, {})[r["strategy"]] = (runs[3 * n // 4] - runs[n // 4]) / r["median_s"]
    return pairs, iqr


def pct(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def pair_key_of(scenario):
    g, c = scenario["gemm"], scenario["collective"]
    key = "concurrent %dx%dx%d:%s %s size_bytes=%d ranks=%d" % (
        g["m"], g["n"], g["k"], g["dtype"], c["kind"], c["size_bytes"], c["ranks"])
    dep = scenario.get("dependency")
    return key + (" dependency=%s" % dep if dep and dep != "none" else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("raw", nargs="+")
    ap.add_argument("--picks", help="validate --json output over the same scenarios")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--json", help="write the numbers here")
    ap.add_argument("--ratio-min-us", type=float, default=300.0,
                    help="relative-to-serial spread: pairs whose serial took at least this long (us)")
    a = ap.parse_args()
    if len(a.raw) < 2:
        sys.exit("repeat_spread.py: give at least two raw files")
    runs, iqr_of = zip(*(load_pairs(p) for p in a.raw))
    common = sorted(set.intersection(*(set(r) for r in runs)))
    if not common:
        sys.exit("repeat_spread.py: no pair is in every file")
    picks = {}
    if a.picks:
        with open(a.picks) as f:
            for s in json.load(f)["scenarios"]:
                picks[pair_key_of(s)] = (s["name"], s["pick"])

    out = {"files": a.raw, "tolerance": a.tolerance, "classes": {}}
    for cls in ("under_100us", "over_100us", "all"):
        spreads, ceiling, ceiling_n = [], 0, 0
        others, others_n = 0, 0
        pick_right, pick_n, wrong_first, wrong_first_right_elsewhere = 0, 0, 0, 0
        median_right, median_n = 0, 0
        npairs = 0
        for key in common:
            strategies = sorted(set.intersection(*(set(r[key]) for r in runs)))
            if len(strategies) < 2:
                continue
            fastest = min(min(r[key][s] for s in strategies) for r in runs)
            small = fastest < 100e-6
            if (cls == "under_100us" and not small) or (cls == "over_100us" and small):
                continue
            npairs += 1
            for s in strategies:
                t = [r[key][s] for r in runs]
                spreads.append(max(t) / min(t) - 1)
            for ra, rb in itertools.permutations(range(len(runs)), 2):
                choice = min(strategies, key=lambda s: runs[ra][key][s])
                best_b = min(runs[rb][key][s] for s in strategies)
                ceiling_n += 1
                ceiling += runs[rb][key][choice] <= best_b * (1 + a.tolerance)
            for rb in range(len(runs)):
                rest = [r for i, r in enumerate(runs) if i != rb]
                choice = min(strategies, key=lambda s: statistics.median(r[key][s] for r in rest))
                best_b = min(runs[rb][key][s] for s in strategies)
                others_n += 1
                others += runs[rb][key][choice] <= best_b * (1 + a.tolerance)
            if key in picks and picks[key][1] in strategies:
                pick = picks[key][1]
                rights = []
                for r in runs:
                    best = min(r[key][s] for s in strategies)
                    rights.append(r[key][pick] <= best * (1 + a.tolerance))
                pick_n += len(rights)
                pick_right += sum(rights)
                if not rights[0]:
                    wrong_first += 1
                    wrong_first_right_elsewhere += any(rights[1:])
                median = {s: statistics.median(r[key][s] for r in runs) for s in strategies}
                median_n += 1
                median_right += median[pick] <= min(median.values()) * (1 + a.tolerance)
        out["classes"][cls] = {
            "pairs": npairs,
            "strategy_times": len(spreads),
            "spread_median": statistics.median(spreads) if spreads else None,
            "spread_p90": pct(spreads, 0.9) if spreads else None,
            "spread_max": max(spreads) if spreads else None,
            "noise_ceiling": ceiling / ceiling_n if ceiling_n else None,
            "median_of_others_ceiling": others / others_n if others_n else None,
            "advisor_right": pick_right / pick_n if pick_n else None,
            "advisor_wrong_in_first_run": wrong_first,
            "of_which_right_in_another_run": wrong_first_right_elsewhere,
            "advisor_right_vs_median_of_runs": median_right / median_n if median_n else None,
        }
    print("%d runs, %d pairs in every run; right = within %.1f%% of that run's fastest" %
          (len(runs), len(common), 100 * a.tolerance))
    print("%-12s %5s %7s %13s %10s %10s %14s %17s %14s %22s %17s" % (
        "pairs", "n", "times", "spread med", "p90", "max", "noise ceiling", "median of others",
        "advisor right", "wrong in run 1 -> ok", "right vs median"))
    for cls, c in out["classes"].items():
        f = lambda v: "-" if v is None else "%.1f%%" % (100 * v)
        print("%-12s %5d %7d %13s %10s %10s %14s %17s %14s %22s %17s" % (
            cls, c["pairs"], c["strategy_times"], f(c["spread_median"]), f(c["spread_p90"]),
            f(c["spread_max"]), f(c["noise_ceiling"]), f(c["median_of_others_ceiling"]), f(c["advisor_right"]),
            "%d -> %d" % (c["advisor_wrong_in_first_run"], c["of_which_right_in_another_run"]),
            f(c["advisor_right_vs_median_of_runs"])))
    ratio_spreads, iqrs = [], []
    for key in common:
        if "serial" not in runs[0][key] or runs[0][key]["serial"] < a.ratio_min_us * 1e-6:
            continue
        strategies = sorted(set.intersection(*(set(r[key]) for r in runs)))
        for s in strategies:
            iqrs += [q[key][s] for q in iqr_of if s in q.get(key, {})]
            if s == "serial":
                continue
            ratios = [r[key][s] / r[key]["serial"] for r in runs]
            ratio_spreads.append(max(ratios) / min(ratios) - 1)
    out["relative_to_serial"] = {
        "min_serial_us": a.ratio_min_us,
        "strategy_times": len(ratio_spreads),
        "spread_median": statistics.median(ratio_spreads) if ratio_spreads else None,
        "spread_p90": pct(ratio_spreads, 0.9) if ratio_spreads else None,
        "runs_iqr_over_median": statistics.median(iqrs) if iqrs else None,
    }
    if ratio_spreads:
        rel = out["relative_to_serial"]
        print("time / serial, pairs whose serial took >= %g us: %d strategy times, spread median %.2f%%, p90 %.2f%%;"
              " one measurement's runs: interquartile range %.2f%% of their median" % (
                  a.ratio_min_us, len(ratio_spreads), 100 * rel["spread_median"], 100 * rel["spread_p90"],
                  100 * (rel["runs_iqr_over_median"] or float("nan"))))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
