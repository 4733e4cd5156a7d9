#!/usr/bin/env python3
"""Cross-validation over the earlier test rounds on 2x H200 (docs/model.md §7.3, "The
pipeline's own factors"): each fold refits h200x2 the way scripts/refit-profiles.sh does,
from its train files plus three of the four earlier rounds (an independent set and a
dependent set held out together), and scores the held-out pair of sets with validate; the
committed profile is scored on the same sets beside it.

    scripts/cross_validate_rounds.py [C3ADVISOR]     (default: build/c3advisor)

Every file it fits is train in data/splits.yaml (the earlier rounds are, since 2026-11-26).
Prints per held-out set: right, mean and worst loss, median and p90 error; then the totals
over the independent and the dependent sets. Standard library only."""
import json
import os
import re
import subprocess
import sys
import tempfile

M = "data/measurements"
TRAIN = [f"{M}/paper-h200x2-2026-11-22.json", f"{M}/heldout-h200x2-2026-11-22.json",
         f"{M}/generated-s1101-n160-h200x2-2026-11-23.json", f"{M}/kernels-paper-h200x1-2026-11-23.json",
         f"{M}/kernels-heldout-h200x1-2026-11-23.json", f"{M}/kernels-generated-s1101-n160-h200x1-2026-11-23.json",
         f"{M}/dependent-s2201-n48-h200x2-2026-11-23.json"]
INDEPENDENT = {3301: f"{M}/generated-s3301-n128-h200x2-2026-11-23.json",
               6601: f"{M}/generated-s6601-n128-h200x2-2026-11-23.json",
               9901: f"{M}/generated-s9901-n128-h200x2-2026-11-23.json",
               13301: f"{M}/generated-s13301-n128-h200x2-2026-11-25.json"}
DEPENDENT = {4401: f"{M}/dependent-s4401-n32-h200x2-2026-11-23.json",
             7701: f"{M}/dependent-s7701-n32-h200x2-2026-11-23.json",
             8801: f"{M}/dependent-s8801-n40-h200x2-2026-11-23.json",
             13401: f"{M}/dependent-s13401-n40-h200x2-2026-11-25.json"}
FOLDS = [(3301, 4401), (6601, 7701), (9901, 8801), (13301, 13401)]


def scenarios_of(path):
    m = re.match(r"(generated|dependent)-s(\d+)-n(\d+)", os.path.basename(path))
    return f"data/scenarios/{m.group(1)}-s{m.group(2)}-n{m.group(3)}.yaml"


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"cross_validate_rounds: {' '.join(cmd[:2])} failed:\n{r.stderr[-2000:]}")
    return r.stdout


def refit(c3, pairs, out):
    cmd = [c3, "calibrate", "--backend", f"replay:{M}/calibration-h200x2-2026-11-22.json", "--gpus", "2",
           "--name", "h200x2", "--base-profile", "h200_sxm", "--runs", "9", "--warmup", "6",
           "--dma-variant", "ce_push_batch_ovl", "--out", out, "--raw", out + ".raw.json",
           "--sustained", f"{M}/sustained-gemms-s1101-h200x2-2026-11-26-run37.json"]
    for p in pairs:
        cmd += ["--pairs", p]
    run(cmd)


def score(c3, profile, path):
    s = json.loads(run([c3, "validate", "--profile", profile, "--ranks", "2", "--backend", f"replay:{path}",
                        "--scenarios", scenarios_of(path), "--json"]))["summary"]
    return {"n": s["scenarios"], "right": round(s["decision_accuracy"] * s["scenarios"]),
            "mean": s["mean_loss_vs_oracle"], "worst": s["worst_loss_vs_oracle"],
            "median": s["prediction_error_median"], "p90": s["prediction_error_p90"]}


def line(label, x):
    return (f"{label:28s} {x['right']:3d}/{x['n']:3d} right, mean loss {x['mean'] * 100:5.2f}%, "
            f"worst {x['worst'] * 100:5.1f}%, error median {x['median'] * 100:4.1f}% p90 {x['p90'] * 100:5.1f}%")


def main():
    c3 = sys.argv[1] if len(sys.argv) > 1 else "build/c3advisor"
    totals = {}
    with tempfile.TemporaryDirectory() as tmp:
        for held_ind, held_dep in FOLDS:
            others = [p for s, p in {**INDEPENDENT, **DEPENDENT}.items() if s not in (held_ind, held_dep)]
            profile = os.path.join(tmp, f"fold-{held_ind}.yaml")
            refit(c3, TRAIN + others, profile)
            for kind, seed, path in (("independent", held_ind, INDEPENDENT[held_ind]),
                                     ("dependent", held_dep, DEPENDENT[held_dep])):
                for label, prof in (("pooled fold", profile), ("data/profiles/h200x2.yaml", "data/profiles/h200x2.yaml")):
                    x = score(c3, prof, path)
                    print(line(f"s{seed} {label}", x), flush=True)
                    t = totals.setdefault((kind, label), {"n": 0, "right": 0, "loss": 0.0})
                    t["n"] += x["n"]
                    t["right"] += x["right"]
                    t["loss"] += x["mean"] * x["n"]
    for (kind, label), t in totals.items():
        print(f"{kind} {label}: {t['right']}/{t['n']} right ({t['right'] / t['n'] * 100:.1f}%), "
              f"mean loss {t['loss'] / t['n'] * 100:.2f}%")


if __name__ == "__main__":
    main()
