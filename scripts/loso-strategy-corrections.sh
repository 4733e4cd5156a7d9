#!/usr/bin/env bash
# Leave-one-seed-out check of the strategy corrections (docs/model.md §4.7) on the 13 host-paced
# 2-rank train sets of 2x H200, with the real fit: for each seed, h200x2 is refit as
# scripts/refit-profiles.sh does but with --strategy-correction-pairs of the other 12 seeds, and
# scored on the seed it left out; beside it the profile without corrections. Prints the right
# counts, at and above 100 us too, and the mean loss (docs/accuracy.md, "Per-group corrections of
# the strategies, and the eighteenth test round"). Train files only; writes under a temporary folder.
#
#   scripts/loso-strategy-corrections.sh [C3ADVISOR] [-- EXTRA CALIBRATE ARGS, e.g. --strategy-correction-min-us 50]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
c3=build/c3advisor
if [[ $# -gt 0 && "$1" != "--" ]]; then c3=$1; shift; fi
[[ "${1:-}" == "--" ]] && shift
extra=("$@")
m=data/measurements
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$root/scripts/h200-fit-inputs.sh"
# The h200x2 recipe of scripts/refit-profiles.sh, without its corrections.
recipe=(calibrate --backend replay:$m/calibration-h200x2-2026-11-22.json --gpus 2 --name h200x2 --base-profile h200_sxm
  --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl "${h200_pairs[@]}" "${h200_unaligned[@]}")
"$c3" "${recipe[@]}" --out "$work/base.yaml" --raw "$work/base.raw.json" > "$work/base.log" 2>&1
for held in "${h200_correction_sets[@]}"; do
  seed=$(basename "$held" | sed -E 's/^generated-s([0-9]+)-.*/\1/')
  echo "loso-strategy-corrections: seed $seed left out" >&2
  others=()
  for o in "${h200_correction_sets[@]}"; do [[ "$o" == "$held" ]] || others+=(--strategy-correction-pairs "$o"); done
  "$c3" "${recipe[@]}" "${others[@]}" "${extra[@]}" --out "$work/c-$seed.yaml" --raw "$work/c-$seed.raw.json" \
    > "$work/c-$seed.log" 2>&1
  for p in base c-$seed; do
    "$c3" validate --profile "$work/$p.yaml" --ranks 2 --scenarios data/scenarios/generated-s$seed-n128.yaml \
      --backend replay:"$held" --json > "$work/v-${p%%-*}-$seed.json"
  done
done
python3 - "$work" <<'PY'
import glob, json, sys
work = sys.argv[1]
for tag, label in (("base", "without corrections"), ("c", "corrections from the other 12 seeds")):
    right = n = big = bign = 0
    loss = 0.0
    for path in sorted(glob.glob("%s/v-%s-*.json" % (work, tag))):
        for x in json.load(open(path))["scenarios"]:
            n += 1
            right += x["correct"]
            loss += x["loss_vs_oracle"]
            if min(s["measured_s"] for s in x["strategies"]) >= 100e-6:
                bign += 1
                big += x["correct"]
    print("%-38s right %d of %d, at and above 100 us %d of %d, mean loss %.2f%%" % (label, right, n, big, bign, 100 * loss / n))
PY
