#!/usr/bin/env python3
"""Scores test sets on the pairs no earlier set had measured, apart from the pairs an earlier set
had (docs/accuracy.md, "The 34th-36th rounds' dependent sets repeat earlier test pairs").

    scripts/new_pairs.py [--c3 build/c3advisor] [--splits data/splits.yaml] [--profile h200x2]
        [--ranks 2] [--earlier test|any] [--json] SCENARIOS=REPLAY [SCENARIOS=REPLAY ...]

SCENARIOS: a generated scenarios YAML (its seed in its name, `-sSEED-`); REPLAY: what `validate
--backend replay:` takes (files joined by `+`: the median over them). The earlier sets of a set
are the scenario sets data/splits.yaml lists (test only, or with --earlier any train too) whose
seed is smaller, and those without a seed, which came before the generator (the test split's:
paper and the held-out set; the train split's too: the hand-made sets of data/scenarios/ such as
launch.yaml and the gate-*-train sets). Sets drawn after a set but from an earlier seed would
count as earlier: the seeds of data/splits.yaml grow with time. For each set this runs `c3advisor scenarios overlap --json --exclude EARLIER...` and
`c3advisor validate --json --backend replay:REPLAY`, then counts, per set and pooled, the pairs
new to test and those an earlier set had: right decisions (validate's `correct`, within 2% of
the fastest), Wilson's 95% interval, and for dependent pairs the picks more than 1% slower than
serial. Standard library only."""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pooled_accuracy import slower_than_serial, wilson  # noqa: E402
from splits_manifest import entries  # noqa: E402

SEED = re.compile(r"-s(\d+)(?:-|\.yaml$)")


def seed_of(path):
    """The generator's seed in a scenario set's file name; None for sets not generated."""
    m = SEED.search(os.path.basename(path))
    return int(m.group(1)) if m else None


def scenario_sets(text, splits):
    """[(set, seed or None)] of the manifest's scenario sets of `splits`, each once, in order
    (io::scenario_sets_of's rule: the scenarios field's first word, a .yaml or `paper`)."""
    out = []
    for _, split, word in entries(text):
        if split in splits and (word.endswith(".yaml") or word == "paper") and word not in [s for s, _ in out]:
            out.append((word, seed_of(word)))
    return out


def earlier_sets(scenarios, sets):
    """The sets measured before `scenarios` was drawn: a smaller seed, or no seed at all."""
    seed = seed_of(scenarios)
    if seed is None:
        raise ValueError("%s: no seed in its name (-sSEED-): which sets are earlier is unknown" % scenarios)
    return [s for s, other in sets if s != scenarios and (other is None or other < seed)]


def run_json(command):
    """The JSON document `command` prints; exits with a message when it cannot run, fails or
    prints something else."""
    what = " ".join(command[:3])
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        sys.exit("new_pairs.py: cannot run %s: %s (--c3 names the c3advisor binary)" % (command[0], e))
    if done.returncode != 0:
        sys.exit("new_pairs.py: %s failed (exit %d): %s" % (what, done.returncode, done.stderr.strip()))
    try:
        return json.loads(done.stdout)
    except ValueError as e:
        sys.exit("new_pairs.py: %s printed no JSON document (%s)" % (what, e))


def tally():
    return {"pairs": 0, "right": 0, "slower": 0, "dependent": 0}


def add(row, scenario):
    row["pairs"] += 1
    row["right"] += bool(scenario["correct"])
    slower = slower_than_serial(scenario) if scenario.get("dependency") else None
    if slower is not None:
        row["dependent"] += 1
        row["slower"] += slower


def count(scored, seen):
    """{"new": tally, "seen": tally} of validate's scored pairs, split by the overlap's names."""
    rows = {"new": tally(), "seen": tally()}
    for scenario in scored:
        if "correct" in scenario:
            add(rows["seen" if scenario["name"] in seen else "new"], scenario)
    return rows


def describe(row):
    if not row["pairs"]:
        return "0"
    low, high = wilson(row["right"], row["pairs"])
    text = "%d of %d right (%.1f%%, Wilson %.1f-%.1f%%)" % (
        row["right"], row["pairs"], 100.0 * row["right"] / row["pairs"], 100 * low, 100 * high)
    if row["dependent"]:
        text += ", %d slower than serial" % row["slower"]
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--c3", default="build/c3advisor")
    parser.add_argument("--splits", default="data/splits.yaml")
    parser.add_argument("--profile", default="h200x2")
    parser.add_argument("--ranks", default="2")
    parser.add_argument("--earlier", choices=("test", "any"), default="test",
                        help="which earlier sets count: the test split's (default) or every split's")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("sets", nargs="+", metavar="SCENARIOS=REPLAY")
    args = parser.parse_args()
    if any("=" not in s for s in args.sets):
        parser.error("each argument is SCENARIOS=REPLAY")
    try:
        with open(args.splits) as f:
            sets = scenario_sets(f.read(), ("test",) if args.earlier == "test" else ("test", "train"))
    except OSError as e:
        sys.exit("new_pairs.py: %s: %s" % (args.splits, e.strerror))
    pooled = {"new": tally(), "seen": tally()}
    out = []
    for arg in args.sets:
        scenarios, replay = arg.split("=", 1)
        try:
            earlier = earlier_sets(scenarios, sets)
        except ValueError as e:
            sys.exit("new_pairs.py: %s" % e)
        seen = []
        if earlier:
            command = [args.c3, "scenarios", "overlap", "--json", "--scenarios", scenarios]
            for s in earlier:
                command += ["--exclude", s]
            seen = run_json(command)["seen"]
        scored = run_json([args.c3, "validate", "--json", "--profile", args.profile, "--ranks", args.ranks,
                           "--scenarios", scenarios, "--backend", "replay:" + replay])["scenarios"]
        rows = count(scored, set(seen))
        for key in rows:
            for field in rows[key]:
                pooled[key][field] += rows[key][field]
        out.append({"scenarios": scenarios, "earlier_sets": len(earlier), **rows})
        if not args.json:
            print("%s (%d earlier sets): new %s; in an earlier set %s" % (
                scenarios, len(earlier), describe(rows["new"]), describe(rows["seen"])), flush=True)
    if args.json:
        print(json.dumps({"earlier": args.earlier, "sets": out, "pooled": pooled}, indent=2))
    else:
        print("pooled: new %s; in an earlier set %s" % (describe(pooled["new"]), describe(pooled["seen"])))


if __name__ == "__main__":
    main()
