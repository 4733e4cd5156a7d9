#!/usr/bin/env bash
# Leave-one-seed-out check of the GEMM times per shape (docs/model.md §1.2) on the 14 host-paced
# generated train seeds of 2x H200, with the real fit: for each seed, h200x2 is refit as
# scripts/refit-profiles.sh does but with --gemm-times of every host-paced train file of 2x H200
# except that seed's (scripts/train_gemm_files.py --exclude=-sSEED-), and scored on the seed's
# first process beside the same recipe without the table. Prints right counts, mean loss and the
# prediction error's median and p90, over all pairs and by the pair's serial time (at and above
# 100 us, under), and the isolated GEMM's error by its measured time (docs/accuracy.md, "GEMM
# times per shape"). Train files only; writes under a
# temporary folder.
#
# With --by-date, every file measured on the held seed's date (the date in its file name) is left
# out of the table with it: a GEMM's time moves with the machine lent that day (the host's launch
# pacing above all), which a seed measured the same day shares.
#
#   scripts/loso-gemm-times.sh [--by-date] [C3ADVISOR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
by_date=0
if [[ "${1:-}" == --by-date ]]; then by_date=1; shift; fi
c3=${1:-build/c3advisor}
m=data/measurements
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$root/scripts/h200-fit-inputs.sh"
# The h200x2 recipe of scripts/refit-profiles.sh, without its table.
recipe=(calibrate --backend replay:$m/calibration-h200x2-2026-11-22.json --gpus 2 --name h200x2 --base-profile h200_sxm
  --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl "${h200_pairs[@]}" "${h200_unaligned[@]}" "${h200_corrections[@]}")
"$c3" "${recipe[@]}" --out "$work/base.yaml" --raw "$work/base.raw.json" > "$work/base.log" 2>&1
for held in $m/generated-s1101-n160-h200x2-2026-11-23.json "${h200_correction_sets[@]}"; do
  stem=$(basename "$held" | sed -E 's/-h200x2-.*//')
  seed=$(sed -E 's/^generated-s([0-9]+)-.*/\1/' <<< "$stem")
  echo "loso-gemm-times: seed $seed left out" >&2
  left_out="-s$seed-"
  (( by_date )) && left_out=$(sed -E 's/.*-h200x2-([0-9]{4}-[0-9]{2}-[0-9]{2}).*/\1/' <<< "$(basename "$held")")
  files=$(python3 scripts/train_gemm_files.py --exclude="-s$seed-" --exclude="$left_out" "NVIDIA H200 x2")
  table=()
  while IFS= read -r f; do table+=(--gemm-times "$f"); done <<< "$files"
  "$c3" "${recipe[@]}" "${table[@]}" --out "$work/t-$seed.yaml" --raw "$work/t-$seed.raw.json" > "$work/t-$seed.log" 2>&1
  for p in base t-$seed; do
    "$c3" validate --profile "$work/$p.yaml" --ranks 2 --scenarios data/scenarios/$stem.yaml \
      --backend replay:"$held" --json > "$work/v-${p%%-*}-$seed.json"
  done
done
python3 - "$work" "$by_date" <<'PY'
import glob, json, statistics, sys
work = sys.argv[1]
GEMM_BANDS = ((">= 100 us", 100e-6), ("50-100 us", 50e-6), ("20-50 us", 20e-6), ("< 20 us", 0.0))
def p90(v):
    v = sorted(v)
    return v[int(0.9 * (len(v) - 1))]
for tag, label in (("base", "without the table"), ("t", "table without the seed's files" if sys.argv[2] == "0" else "table without its date's files")):
    right = n = 0
    loss = 0.0
    errors = {"all": [], ">= 100 us": [], "< 100 us": []}
    gemm = {b: [] for b, _ in GEMM_BANDS}
    for path in sorted(glob.glob("%s/v-%s-*.json" % (work, tag))):
        for x in json.load(open(path))["scenarios"]:
            n += 1
            right += x["correct"]
            loss += x["loss_vs_oracle"]
            serial = [s["measured_s"] for s in x["strategies"] if s["name"] == "serial"]
            band = ">= 100 us" if serial and serial[0] >= 100e-6 else "< 100 us"
            e = [abs(s["prediction_error"]) for s in x["strategies"] if s.get("prediction_error") is not None]
            errors["all"] += e
            errors[band] += e
            g = x["measured_isolated"]["gemm_s"]
            if g:
                gband = next(b for b, lo in GEMM_BANDS if g >= lo)
                gemm[gband].append(abs(x["predicted_isolated"]["gemm_s"] / g - 1))
    print("%-31s right %d of %d, mean loss %.2f%%; error median / p90: %s" % (
        label, right, n, 100 * loss / n,
        ", ".join("%s %.2f%% / %.1f%%" % (b, 100 * statistics.median(v), 100 * p90(v)) for b, v in errors.items() if v)))
    print("%-31s isolated GEMM error median by its measured time: %s" % (
        "", ", ".join("%s %.1f%% (%d)" % (b, 100 * statistics.median(v), len(v)) for b, v in gemm.items() if v)))
PY
