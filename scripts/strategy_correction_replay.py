#!/usr/bin/env python3
"""Per-group corrections of independent pairs' strategy predictions, tried by a leave-one-file-out
replay over `c3advisor validate --json` outputs before anything is written into the model
(docs/accuracy.md, "Unaligned GEMMs, and the seventeenth test round"):

    scripts/strategy_correction_replay.py VALIDATE.json [VALIDATE.json ...]
        [--group kind-gemm|kind-overlap] [--min-count N] [--min-predicted-us U]

VALIDATE.json: `validate --json` of independent pairs, one per train file (each is a fold).
For each file, the other files' pairs whose fastest predicted strategy takes at least U us give,
per group (collective kind, the GEMM's class or the measured overlap class, the strategy), the
median of (measured / measured serial) / (predicted / predicted serial); a group of N or more
gives its median as a factor on that strategy's predicted time. The file's pairs are then picked
again, corrected where their fastest predicted strategy takes at least U us, by the rule: the
first strategy, in the file's order (serial, base, sp, rp:..., dma, dma_rp:...), predicted within
1% of the fastest (the advisor's tie rule without its hedge). "Right": measured within 2% of the
fastest measured. Prints the right count uncorrected and corrected per file and in all.

`kind-overlap` keys on the measured overlap class of validate's taxonomy: a measured quantity the
advisor does not have, so only as a comparison. Standard library only.
"""
import argparse
import collections
import json
import statistics
import sys

TIE = 0.01
RIGHT = 0.02


def group(pair, strategy, by):
    second = pair["taxonomy"]["gemm"] if by == "kind-gemm" else pair["taxonomy"]["overlap"]
    return (pair["collective"]["kind"], second, strategy)


def fastest_predicted(pair):
    return min(s["predicted_s"] for s in pair["strategies"])


def pick(pair, factors, by):
    predicted = {}
    for s in pair["strategies"]:
        factor = 1.0 if s["name"] == "serial" else factors.get(group(pair, s["name"], by), 1.0)
        predicted[s["name"]] = s["predicted_s"] * factor
    best = min(predicted.values())
    for s in pair["strategies"]:
        if predicted[s["name"]] <= best * (1 + TIE):
            return s
    raise AssertionError("no strategy")


def right(pair, chosen):
    return chosen["measured_s"] <= min(s["measured_s"] for s in pair["strategies"]) * (1 + RIGHT)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--group", choices=["kind-gemm", "kind-overlap"], default="kind-gemm")
    parser.add_argument("--min-count", type=int, default=20)
    parser.add_argument("--min-predicted-us", type=float, default=100.0)
    args = parser.parse_args()
    if len(args.files) < 2:
        sys.exit("strategy_correction_replay: give two files or more (one is left out at a time)")
    pairs = {}
    for path in args.files:
        try:
            with open(path) as f:
                pairs[path] = json.load(f)["scenarios"]
        except (OSError, ValueError, KeyError) as e:
            sys.exit("strategy_correction_replay: %s: %s" % (path, e))
    floor_s = args.min_predicted_us * 1e-6
    total = before = after = 0
    for path in args.files:
        ratios = collections.defaultdict(list)
        for other in args.files:
            if other == path:
                continue
            for pair in pairs[other]:
                if fastest_predicted(pair) < floor_s:
                    continue
                strategies = {s["name"]: s for s in pair["strategies"]}
                serial = strategies.get("serial")
                if serial is None:
                    continue
                for name, s in strategies.items():
                    if name == "serial":
                        continue
                    ratios[group(pair, name, args.group)].append(
                        (s["measured_s"] / serial["measured_s"]) / (s["predicted_s"] / serial["predicted_s"]))
        factors = {k: statistics.median(v) for k, v in ratios.items() if len(v) >= args.min_count}
        n = b = a = 0
        for pair in pairs[path]:
            n += 1
            b += right(pair, pick(pair, {}, args.group))
            a += right(pair, pick(pair, factors if fastest_predicted(pair) >= floor_s else {}, args.group))
        print("%s: %d pairs, right %d uncorrected, %d corrected (%d groups)" % (path, n, b, a, len(factors)))
        total, before, after = total + n, before + b, after + a
    print("all: %d pairs, right %d uncorrected, %d corrected" % (total, before, after))


if __name__ == "__main__":
    main()
