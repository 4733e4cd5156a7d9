#!/usr/bin/env bash
# Leave-one-seed-out check of the collective's slowdown in a partition by size (docs/model.md §3,
# `calibrate --collective-partitions`, fitted after the pairs) on the 14 host-paced generated train
# seeds of 2x H200, with the real fit. For each seed, h200x2 is refit as scripts/refit-profiles.sh
# does, the seed's files left out of --gemm-times (scripts/train_gemm_files.py --exclude=-sSEED-)
# and out of --strategy-correction-pairs (s1101 stays in --pairs), once without the table and once
# with it (h200_partitions of scripts/h200-fit-inputs.sh), and scored on the seed's first process.
# Prints per recipe the right decisions, the mean loss, the picks more than 1% slower than serial,
# and the prediction error's median / p90 over all strategies and by the pair's serial time (at
# and above 100 us, under), and the median error per strategy family at and above 100 us
# (docs/accuracy.md, "The collective's slowdown by size after the pairs"). The three seeds whose
# isolated collectives give the table (3301, 6601, 9901) are among the folds: their pairs are
# left out, their isolated partitions are not. Train files only; writes under a temporary folder;
# about 3 minutes on 16 cores.
#
#   scripts/loso-partition-table.sh [C3ADVISOR]      (default: build/c3advisor)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
c3=$(realpath "${1:-build/c3advisor}")
m=data/measurements
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$root/scripts/h200-fit-inputs.sh"
fold() {  # fold HELD_FILE
  local held=$1 stem seed files f
  stem=$(basename "$held" | sed -E 's/-h200x2-.*//')
  seed=$(sed -E 's/^generated-s([0-9]+)-.*/\1/' <<< "$stem")
  files=$(python3 scripts/train_gemm_files.py --exclude="-s$seed-" "NVIDIA H200 x2")
  local table=() corrections=()
  while IFS= read -r f; do table+=(--gemm-times "$f"); done <<< "$files"
  for f in "${h200_correction_sets[@]}"; do [[ "$f" == *"-s$seed-"* ]] || corrections+=(--strategy-correction-pairs "$f"); done
  local recipe=(calibrate --backend replay:$m/calibration-h200x2-2026-11-22.json --gpus 2 --name h200x2
    --base-profile h200_sxm --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl "${h200_pairs[@]}" "${h200_unaligned[@]}"
    "${corrections[@]}" "${table[@]}")
  "$c3" "${recipe[@]}" --out "$work/without-$seed.yaml" --raw "$work/without-$seed.raw.json" > "$work/without-$seed.log" 2>&1
  "$c3" "${recipe[@]}" "${h200_partitions[@]}" --out "$work/with-$seed.yaml" --raw "$work/with-$seed.raw.json" \
    > "$work/with-$seed.log" 2>&1
  for p in without with; do
    "$c3" validate --profile "$work/$p-$seed.yaml" --ranks 2 --scenarios data/scenarios/$stem.yaml \
      --backend replay:"$held" --json > "$work/v-$p-$seed.json"
  done
}
pids=()
for held in $m/generated-s1101-n160-h200x2-2026-11-23.json "${h200_correction_sets[@]}"; do
  fold "$held" &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
((failed == 0)) || { echo "loso-partition-table: a fold failed (logs in $work)" >&2; trap - EXIT; exit 1; }
python3 - "$work" <<'PY'
import collections, glob, json, statistics, sys
work = sys.argv[1]
def p90(v):
    v = sorted(v)
    return v[int(0.9 * (len(v) - 1))]
for tag, label in (("without", "without the table"), ("with", "with the table")):
    right = n = slower = 0
    loss = 0.0
    errors = {"all": [], ">= 100 us": [], "< 100 us": []}
    family = collections.defaultdict(list)
    for path in sorted(glob.glob("%s/v-%s-*.json" % (work, tag))):
        for x in json.load(open(path))["scenarios"]:
            n += 1
            right += x["correct"]
            loss += x["loss_vs_oracle"]
            measured = {s["name"]: s["measured_s"] for s in x["strategies"]}
            slower += measured.get(x["pick"], 0) > 1.01 * measured["serial"]
            band = ">= 100 us" if measured["serial"] >= 100e-6 else "< 100 us"
            for s in x["strategies"]:
                if s.get("prediction_error") is None:
                    continue
                e = abs(s["prediction_error"])
                errors["all"].append(e)
                errors[band].append(e)
                if band == ">= 100 us":
                    family[s["name"].split(":")[0]].append(e)
    print("%-18s right %d of %d, mean loss %.2f%%, %d picks > 1%% slower than serial; error median / p90: %s" % (
        label, right, n, 100 * loss / n, slower,
        ", ".join("%s %.2f%% / %.1f%%" % (b, 100 * statistics.median(v), 100 * p90(v)) for b, v in errors.items() if v)))
    print("%-18s >= 100 us median by family: %s" % (
        "", ", ".join("%s %.2f%%" % (f, 100 * statistics.median(v)) for f, v in sorted(family.items()))))
PY
