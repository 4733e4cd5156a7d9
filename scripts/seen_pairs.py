#!/usr/bin/env python3
"""The advice on the pairs a train file had measured beside the others (docs/accuracy.md,
"Pairs a train file had measured"): joins `c3advisor validate --json` with `c3advisor scenarios
overlap --json` of the same scenarios file.

    scripts/seen_pairs.py VALIDATE.json=OVERLAP.json [VALIDATE.json=OVERLAP.json ...]

Per file and pooled, for the pairs the overlap names ("seen") and the others ("new"): pairs,
right decisions (validate's `correct`), pairs whose fastest strategy ran under 100 us, and the
median prediction error over every strategy and of the isolated GEMM. Standard library only."""
import json
import statistics
import sys


def tally():
    return {"pairs": 0, "right": 0, "small": 0, "errors": [], "gemm": []}


def add(rows, seen, scenario):
    row = rows["seen" if seen else "new"]
    row["pairs"] += 1
    row["right"] += bool(scenario["correct"])
    row["small"] += min(s["measured_s"] for s in scenario["strategies"]) < 100e-6
    row["errors"] += [abs(s["prediction_error"]) for s in scenario["strategies"] if s.get("prediction_error") is not None]
    gemm = scenario["measured_isolated"].get("gemm_s")
    if gemm:
        row["gemm"].append(abs(scenario["predicted_isolated"]["gemm_s"] / gemm - 1))


def show(label, rows):
    parts = []
    for key in ("seen", "new"):
        r = rows[key]
        if not r["pairs"]:
            parts.append("%s 0" % key)
            continue
        parts.append("%s %d (right %d, %.1f%%; under 100 us %d; error median %.2f%%, isolated GEMM %.2f%%)" % (
            key, r["pairs"], r["right"], 100.0 * r["right"] / r["pairs"], r["small"],
            100 * statistics.median(r["errors"]) if r["errors"] else float("nan"),
            100 * statistics.median(r["gemm"]) if r["gemm"] else float("nan")))
    print("%s: %s" % (label, "; ".join(parts)))


def main():
    if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
        sys.exit(__doc__)
    pooled = {"seen": tally(), "new": tally()}
    for arg in sys.argv[1:]:
        validated, overlap = arg.split("=", 1)
        with open(validated) as f:
            scenarios = json.load(f)["scenarios"]
        with open(overlap) as f:
            seen = set(json.load(f)["seen"])
        rows = {"seen": tally(), "new": tally()}
        for scenario in scenarios:
            for target in (rows, pooled):
                add(target, scenario["name"] in seen, scenario)
        show(validated, rows)
    if len(sys.argv) > 2:
        show("pooled", pooled)


if __name__ == "__main__":
    main()
