#!/usr/bin/env python3
"""Issue 11's targets from `c3advisor validate --json` output, split by the pair's size:

    scripts/score_by_size.py VALIDATE.json [VALIDATE.json ...]

For pairs whose oracle (fastest measured strategy) is under 100 us and for the others:
decision accuracy (the validate JSON's `correct`), mean and worst loss, and the worst loss
under the issue's rule "<= 5% (or <= 5 us on pairs under 100 us)": a loss counts as met
when loss <= 5% or, under 100 us, when the pick is at most 5 us slower than the oracle.
Standard library only."""
import json
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        with open(path) as f:
            doc = json.load(f)
        rows = {"under_100us": [], "over_100us": []}
        for s in doc["scenarios"]:
            st = {x["name"]: x for x in s["strategies"]}
            oracle = st[s["oracle"]]["measured_s"]
            pick = st[s["pick"]]["measured_s"]
            cls = "under_100us" if oracle < 100e-6 else "over_100us"
            loss = s["loss_vs_oracle"]
            met = loss <= 0.05 or (cls == "under_100us" and pick - oracle <= 5e-6)
            rows[cls].append((s["correct"], loss, met, pick - oracle))
        print(path)
        print("  %-12s %5s %9s %10s %11s %22s" % ("pairs", "n", "right", "mean loss", "worst loss",
                                                "loss target met (5%/5us)"))
        for cls, r in list(rows.items()) + [("all", rows["under_100us"] + rows["over_100us"])]:
            if not r:
                continue
            n = len(r)
            print("  %-12s %5d %8.1f%% %9.2f%% %10.1f%% %17d of %d" % (
                cls, n, 100 * sum(x[0] for x in r) / n, 100 * sum(x[1] for x in r) / n,
                100 * max(x[1] for x in r), sum(x[2] for x in r), n))


if __name__ == "__main__":
    main()
