#!/usr/bin/env python3
"""Pools test rounds measured in two processes and scores the advisor beside the *repeat oracle*:
in each process, the strategy that measured fastest in the other process. The repeat oracle is
what a perfect predictor of the machine would pick, one process later; whatever it misses, the
ground truth's own repeatability misses, and no model can be held to more (docs/accuracy.md,
"Pooled over the frozen model's rounds: the advisor against a perfect predictor").

    scripts/pooled_rounds.py [--c3 build/c3advisor] [--profile h200x2] [--ranks 2] [--json]
        SCENARIOS=RAW1,RAW2 [SCENARIOS=RAW1,RAW2 ...]
    scripts/pooled_rounds.py --validated [--json] V1,V2 [V1,V2 ...]

SCENARIOS: a scenarios YAML; RAW1, RAW2: the same pairs measured in two processes (replay
files), each scored by `c3advisor validate --json`; with --validated, V1 and V2 are such
`validate --json` outputs already written. Each process is scored once as the truth, with the other as the repeat oracle's and the
repeat predictor's source, so every pair counts twice. Per band of the pair's fastest measured
time (all, at and above 100 us, under 100 us), for the advisor's pick (`validate --json`'s
`pick`) and the repeat oracle's: right (within 2% of the fastest), mean and worst loss, the
loss rule (5%, or 5 us under 100 us), picks more than 1% slower than serial, and for
independent pairs the geometric mean of the pick's time over the framework default's (`sp`)
beside the oracle's; then the prediction error's median and p90, the model's
(`prediction_error` of every strategy) beside the repeat predictor's (the other process's
measured time taken as the prediction). Standard library only."""
import argparse
import json
import math
import statistics
import subprocess
import sys

RIGHT = 0.02
LOSS = 0.05
LOSS_US = 5e-6
SMALL_S = 100e-6
SLOWER = 0.01
BANDS = ("all", ">= 100 us", "< 100 us")


def by_name(doc):
    return {s["name"]: s for s in doc["scenarios"]}


def validate(c3, profile, ranks, scenarios, raw):
    cmd = [c3, "validate", "--profile", profile, "--ranks", str(ranks), "--scenarios", scenarios,
           "--backend", "replay:" + raw, "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("pooled_rounds.py: %s failed (exit %d): %s" % (" ".join(cmd), out.returncode, out.stderr.strip()))
    return by_name(json.loads(out.stdout))


def load(path):
    try:
        with open(path) as f:
            return by_name(json.load(f))
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("pooled_rounds.py: %s: not a `validate --json` output (%s)" % (path, e))


def measured(scenario):
    return {s["name"]: s["measured_s"] for s in scenario["strategies"] if s.get("measured_s")}


def p90(values):
    v = sorted(values)
    return v[min(len(v) - 1, int(0.9 * len(v)))]


def band_of(fastest_s):
    return ">= 100 us" if fastest_s >= SMALL_S else "< 100 us"


class Tally:
    def __init__(self):
        self.losses, self.rule, self.slower, self.log_pick, self.log_oracle = [], 0, 0, [], []

    def add(self, times, pick, fastest):
        loss = times[pick] / fastest - 1
        self.losses.append(loss)
        self.rule += loss <= LOSS or (fastest < SMALL_S and times[pick] - fastest <= LOSS_US)
        self.slower += "serial" in times and times[pick] > times["serial"] * (1 + SLOWER)
        if "sp" in times:
            self.log_pick.append(math.log(times[pick] / times["sp"]))
            self.log_oracle.append(math.log(fastest / times["sp"]))

    def summary(self):
        n = len(self.losses)
        if not n:
            return None
        out = {"pairs": n, "right": sum(x <= RIGHT for x in self.losses) / n,
               "mean_loss": statistics.mean(self.losses), "worst_loss": max(self.losses),
               "loss_rule_met": self.rule / n, "slower_than_serial": self.slower}
        if self.log_pick:
            out["vs_default"] = math.exp(statistics.mean(self.log_pick))
            out["oracle_vs_default"] = math.exp(statistics.mean(self.log_oracle))
        return out


def pool(processes):
    """processes: [(run1, run2)], each run {pair name: validate's scenario}."""
    tallies = {(who, band): Tally() for who in ("advisor", "repeat oracle") for band in BANDS}
    errors = {(who, band): [] for who in ("model", "repeat predictor") for band in BANDS}
    for runs in processes:
        for truth, other in ((runs[0], runs[1]), (runs[1], runs[0])):
            for name, scenario in truth.items():
                if name not in other:
                    continue
                times, again = measured(scenario), measured(other[name])
                common = [s for s in times if s in again]
                if not common or scenario["pick"] not in times:
                    continue
                fastest = min(times.values())
                band = band_of(fastest)
                repeat_pick = min(common, key=again.get)
                for b in ("all", band):
                    tallies[("advisor", b)].add(times, scenario["pick"], fastest)
                    tallies[("repeat oracle", b)].add(times, repeat_pick, fastest)
                for s in scenario["strategies"]:
                    if s["name"] not in common or s.get("prediction_error") is None:
                        continue
                    for b in ("all", band):
                        errors[("model", b)].append(abs(s["prediction_error"]))
                        errors[("repeat predictor", b)].append(abs(again[s["name"]] / times[s["name"]] - 1))
    summaries = {"%s, %s" % key: t.summary() for key, t in tallies.items()}
    decisions = {key: summary for key, summary in summaries.items() if summary}
    prediction = {"%s, %s" % key: {"strategies": len(v), "median": statistics.median(v), "p90": p90(v)}
                  for key, v in errors.items() if v}
    return {"decisions": decisions, "prediction_error": prediction}


def pct(x):
    return "%.1f%%" % (100 * x)


def print_tables(result):
    print("| who, band | pair-runs | right | mean loss | worst loss | loss rule met | > 1% slower than serial "
          "| pick / default (oracle) |")
    print("|---|---|---|---|---|---|---|---|")
    for key, s in result["decisions"].items():
        default = "%.3f (%.3f)" % (s["vs_default"], s["oracle_vs_default"]) if "vs_default" in s else ""
        print("| %s | %d | %s | %.2f%% | %s | %s | %d | %s |" % (
            key, s["pairs"], pct(s["right"]), 100 * s["mean_loss"], pct(s["worst_loss"]), pct(s["loss_rule_met"]),
            s["slower_than_serial"], default))
    print()
    print("| prediction error, band | strategies | median | p90 |")
    print("|---|---|---|---|")
    for key, s in result["prediction_error"].items():
        print("| %s | %d | %s | %s |" % (key, s["strategies"], pct(s["median"]), pct(s["p90"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("entries", nargs="+", metavar="SCENARIOS=RAW1,RAW2")
    ap.add_argument("--validated", action="store_true", help="entries are V1,V2: two `validate --json` outputs")
    ap.add_argument("--c3", default="build/c3advisor")
    ap.add_argument("--profile", default="h200x2")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the result as JSON instead of tables")
    a = ap.parse_args()
    processes = []
    for entry in a.entries:
        if a.validated:
            files = entry.split(",")
            if len(files) != 2 or not all(files):
                sys.exit("pooled_rounds.py: '%s': expected V1,V2 (validate outputs of two processes)" % entry)
            processes.append(tuple(load(f) for f in files))
            continue
        scenarios, sep, raws = entry.partition("=")
        raws = raws.split(",")
        if not sep or len(raws) != 2 or not all(raws):
            sys.exit("pooled_rounds.py: '%s': expected SCENARIOS=RAW1,RAW2 (two processes of the same pairs)" % entry)
        processes.append(tuple(validate(a.c3, a.profile, a.ranks, scenarios, raw) for raw in raws))
    result = pool(processes)
    if not result["decisions"]:
        sys.exit("pooled_rounds.py: no pair measured in both processes")
    if a.json:
        json.dump(result, sys.stdout, indent=1)
        print()
    else:
        print_tables(result)


if __name__ == "__main__":
    main()
