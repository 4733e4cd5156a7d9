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
seeds=(3301:2026-11-23 6601:2026-11-23 9901:2026-11-23 13301:2026-11-25 14301:2026-11-26 14501:2026-11-26
  14701:2026-11-26 14901:2026-11-26 15101:2026-11-26 15301:2026-11-26 15501:2026-11-26 16801:2026-11-26 17001:2026-11-26)
file() { echo "$m/generated-s${1%%:*}-n128-h200x2-${1#*:}.json"; }
# The h200x2 recipe of scripts/refit-profiles.sh, without its corrections.
recipe=(calibrate --backend replay:$m/calibration-h200x2-2026-11-22.json --gpus 2 --name h200x2 --base-profile h200_sxm
  --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl)
for f in paper-h200x2-2026-11-22 heldout-h200x2-2026-11-22 generated-s1101-n160-h200x2-2026-11-23 kernels-paper-h200x1-2026-11-23 \
  kernels-heldout-h200x1-2026-11-23 kernels-generated-s1101-n160-h200x1-2026-11-23 dependent-s2201-n48-h200x2-2026-11-23; do
  recipe+=(--pairs $m/$f.json)
done
recipe+=(--batched-step-pairs $m/dependent-gfc-s15701-n32-r1-h200x2-2026-11-26.json
  --sustained $m/sustained-gemms-s1101-h200x2-2026-11-26-run37.json)
for f in generated-s1101-n160-h200x2-2026-11-23 generated-s3301-n128-h200x2-2026-11-23 generated-s6601-n128-h200x2-2026-11-23 \
  generated-s9901-n128-h200x2-2026-11-23 generated-s13301-n128-h200x2-2026-11-25 generated-s14301-n128-h200x2-2026-11-26 \
  generated-s14501-n128-h200x2-2026-11-26 generated-s14701-n128-h200x2-2026-11-26 kernels-generated-s1101-n160-h200x1-2026-11-23 \
  kernels-paper-h200x1-2026-11-23 kernels-heldout-h200x1-2026-11-23 kernels-unaligned-gemms-s19251-h200x1-2026-11-27; do
  recipe+=(--unaligned-gemms $m/$f.json)
done
"$c3" "${recipe[@]}" --out "$work/base.yaml" --raw "$work/base.raw.json" > "$work/base.log" 2>&1
for s in "${seeds[@]}"; do
  seed=${s%%:*}
  echo "loso-strategy-corrections: seed $seed left out" >&2
  others=()
  for o in "${seeds[@]}"; do [[ "$o" == "$s" ]] || others+=(--strategy-correction-pairs "$(file "$o")"); done
  "$c3" "${recipe[@]}" "${others[@]}" "${extra[@]}" --out "$work/c-$seed.yaml" --raw "$work/c-$seed.raw.json" \
    > "$work/c-$seed.log" 2>&1
  for p in base c-$seed; do
    "$c3" validate --profile "$work/$p.yaml" --ranks 2 --scenarios data/scenarios/generated-s$seed-n128.yaml \
      --backend replay:"$(file "$s")" --json > "$work/v-${p%%-*}-$seed.json"
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
