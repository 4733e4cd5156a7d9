#!/usr/bin/env python3
"""Prints, one per line, the train files of data/splits.yaml that `calibrate --gemm-times` can take
for one device: raw measurement files of `measure` (or calibrate's raw output) timed by the runner
(backend cuda or hip, not PyTorch's scripts) on DEVICE (provenance.device, e.g. "NVIDIA H200 x2"),
with at least one ok isolated GEMM on every CU, all host-paced (default) or all gated (--gated:
provenance notes "timing: gated runs"). Sorted by path.

    scripts/train_gemm_files.py [--splits data/splits.yaml] [--gated] [--exclude=TEXT]... DEVICE

--exclude=TEXT drops every file whose path contains TEXT (a seed left out: --exclude=-s3301-,
with "=" since TEXT starts with "-"). Used by scripts/h200-fit-inputs.sh and
scripts/loso-gemm-times.sh (docs/model.md §1.2). Needs PyYAML (Debian python3-yaml)."""
import argparse
import json
import os
import sys

import yaml


def qualifies(path, device, gated):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return False
    if not isinstance(doc, dict) or not isinstance(doc.get("provenance"), dict):
        return False
    prov = doc["provenance"]
    if prov.get("device") != device or prov.get("backend") not in ("cuda", "hip"):
        return False
    notes = prov.get("notes") or []
    if any(str(n).startswith("timing: gated runs") for n in notes) != gated:
        return False
    return any(isinstance(r, dict) and r.get("what") == "gemm" and r.get("ok") and not r.get("cus_removed")
               for r in doc.get("records") or [])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("device")
    ap.add_argument("--splits", default="data/splits.yaml")
    ap.add_argument("--gated", action="store_true")
    ap.add_argument("--exclude", action="append", default=[])
    a = ap.parse_args()
    try:
        with open(a.splits) as f:
            entries = yaml.safe_load(f)["files"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
        sys.exit("train_gemm_files.py: %s: not a splits manifest (%s)" % (a.splits, e))
    root = os.path.dirname(os.path.dirname(os.path.abspath(a.splits))) if os.path.isabs(a.splits) else "."
    paths = sorted(e["file"] for e in entries if isinstance(e, dict) and e.get("split") == "train"
                   and str(e.get("file", "")).endswith(".json"))
    out = [p for p in paths if not any(x in p for x in a.exclude)
           and qualifies(os.path.join(root, p), a.device, a.gated)]
    if not out:
        sys.exit("train_gemm_files.py: no train file of %s in %s qualifies" % (a.device, a.splits))
    print("\n".join(out))


if __name__ == "__main__":
    main()
