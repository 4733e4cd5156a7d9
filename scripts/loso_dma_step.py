#!/usr/bin/env python3
"""Chooses the queued copy-engine step terms of a profile (chunk_dma_step_latency_s and
chunk_dma_step_min_s, docs/model.md §7.3) on dependent train sets, leaving one set out
(docs/accuracy.md, "Queued copy-engine steps"):

    scripts/loso_dma_step.py [--c3 build/c3advisor] [--profile data/profiles/h200x2.yaml]
        [--latency-us 0,3,6,9] [--min-us 30,40,50,60,70] [--jobs 2] SCENARIOS=REPLAY [...]

Each SCENARIOS=REPLAY is a dependent train set: its scenarios YAML and its measurement files
(one, or A+B+C for the median over processes, as validate's replay:). For every pair of values
of the grid, and for the profile without the terms ("none"), the script writes a copy of the
profile with them (every other term as it is), runs `c3advisor validate --json` on every set and
counts per set the right decisions and the picks more than 1% slower than serial. It prints the
in-sample table, then leaves each set out in turn: the candidate with the best score on the
others (right - 3 x slower than serial, as the hedge fit weighs them; a tie keeps "none", then
the smaller values) is scored on the set left out. The last line is the candidate chosen on all
sets. Refuses a set listed as test in data/splits.yaml (--splits). Standard library only.

The hedges stay as the profile has them; since the thirtieth session `calibrate` chooses them
with the terms (docs/model.md, "The recommendation"), so the counts of docs/accuracy.md (788
against 777, with the hedges of b5b6b29) come back with `--profile` of that commit's h200x2."""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pooled_accuracy import slower_than_serial  # noqa: E402
from splits_manifest import files_of  # noqa: E402

KEYS = ("chunk_dma_step_latency_s", "chunk_dma_step_min_s")


def numbers(text, option):
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        sys.exit("loso_dma_step.py: %s takes numbers separated by commas (got %r)" % (option, text))
    if not values or any(v < 0 for v in values):
        sys.exit("loso_dma_step.py: %s needs one or more values >= 0 (got %r)" % (option, text))
    return values


def variant_text(profile_text, latency_us, min_us):
    """The profile with the two keys set (none: removed)."""
    lines = [l for l in profile_text.split("\n") if not l.startswith(KEYS)]
    if latency_us is None:
        return "\n".join(lines)
    ref = 'source: measured, ref: "scripts/loso_dma_step.py grid"'
    added = ["chunk_dma_step_latency_s: {value: %r, %s}" % (latency_us / 1e6, ref),
             "chunk_dma_step_min_s: {value: %r, %s}" % (min_us / 1e6, ref)]
    anchor = next((i for i, l in enumerate(lines) if l.startswith("chunk_piece_latency_s:")), None)
    if anchor is None:
        sys.exit("loso_dma_step.py: the profile has no chunk_piece_latency_s line to put the terms after")
    return "\n".join(lines[:anchor + 1] + added + lines[anchor + 1:])


def test_files(splits_path):
    """Files the manifest lists as test."""
    if not os.path.exists(splits_path):
        return set()
    with open(splits_path) as f:
        return files_of(f.read(), "test")


def score(c3, profile, scenarios, replay):
    """(right, pairs, slower than serial) of one set under one profile."""
    run = subprocess.run([c3, "validate", "--profile", profile, "--ranks", "2", "--scenarios", scenarios,
                          "--backend", "replay:" + replay, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError("validate of %s failed (exit %d): %s" % (scenarios, run.returncode, run.stderr.strip()))
    right = pairs = slower = 0
    for s in json.loads(run.stdout)["scenarios"]:
        if "correct" not in s:
            continue
        pairs += 1
        right += bool(s["correct"])
        slower += bool(slower_than_serial(s))
    return right, pairs, slower


def objective(counts):
    return counts[0] - 3 * counts[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--c3", default="build/c3advisor")
    ap.add_argument("--profile", default="data/profiles/h200x2.yaml")
    ap.add_argument("--latency-us", default="0,3,6,9")
    ap.add_argument("--min-us", default="30,40,50,60,70")
    ap.add_argument("--splits", default="data/splits.yaml")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("sets", nargs="+", metavar="SCENARIOS=REPLAY")
    a = ap.parse_args()
    latencies, minimums = numbers(a.latency_us, "--latency-us"), numbers(a.min_us, "--min-us")
    sets = []
    tests = test_files(a.splits)
    for arg in a.sets:
        if "=" not in arg:
            sys.exit("loso_dma_step.py: %r is not SCENARIOS=REPLAY" % arg)
        scenarios, replay = arg.split("=", 1)
        for f in [scenarios] + replay.split("+"):
            if not os.path.exists(f):
                sys.exit("loso_dma_step.py: %s: no such file" % f)
        for f in replay.split("+"):
            if os.path.normpath(os.path.relpath(f)) in tests or os.path.normpath(f) in tests:
                sys.exit("loso_dma_step.py: %s is test in %s: choose on train sets only" % (f, a.splits))
        sets.append((scenarios, replay))
    if len(sets) < 2:
        sys.exit("loso_dma_step.py: leaving one set out needs two sets or more")
    if not os.path.exists(a.profile):
        sys.exit("loso_dma_step.py: %s: no such profile" % a.profile)
    text = open(a.profile).read()
    candidates = [("none", None, None)] + [("L%g-T%g" % (l, t), l, t) for l in latencies for t in minimums]
    counts = {}
    with tempfile.TemporaryDirectory() as d, concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        futures = {}
        for name, l, t in candidates:
            path = os.path.join(d, name + ".yaml")
            with open(path, "w") as f:
                f.write(variant_text(text, l, t))
            for i, (scenarios, replay) in enumerate(sets):
                futures[pool.submit(score, a.c3, path, scenarios, replay)] = (name, i)
        done = 0
        for fut in concurrent.futures.as_completed(futures):
            name, i = futures[fut]
            try:
                counts[(name, i)] = fut.result()
            except (RuntimeError, OSError, ValueError, KeyError) as e:
                sys.exit("loso_dma_step.py: %s" % e)
            done += 1
            if done % 20 == 0 or done == len(futures):
                print("  %d of %d validations" % (done, len(futures)), file=sys.stderr)
    total = lambda name, skip=None: [sum(counts[(name, i)][k] for i in range(len(sets)) if i != skip) for k in range(3)]
    print("candidate        right / pairs   slower than serial   (in-sample, all %d sets)" % len(sets))
    for name, _, _ in candidates:
        r, n, s = total(name)
        print("%-14s %5d / %-5d   %d" % (name, r, n, s))
    order = {name: k for k, (name, _, _) in enumerate(candidates)}
    pick = lambda skip: max(candidates, key=lambda c: (objective(total(c[0], skip)), -order[c[0]]))[0]
    loso = [0, 0, 0]
    chosen = []
    for i, (scenarios, _) in enumerate(sets):
        best = pick(i)
        chosen.append(best)
        for k in range(3):
            loso[k] += counts[(best, i)][k]
        print("left out %s: chose %s -> %d / %d right, %d slower than serial"
              % (scenarios, best, counts[(best, i)][0], counts[(best, i)][1], counts[(best, i)][2]))
    r, n, s = total("none")
    print("leave one set out: %d / %d right, %d slower than serial (without the terms: %d / %d, %d)"
          % (loso[0], loso[1], loso[2], r, n, s))
    print("chosen on all sets: %s" % pick(None))


if __name__ == "__main__":
    main()
