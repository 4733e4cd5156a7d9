#!/usr/bin/env bash
# The train-split check of the collective's slowdown by size (calibrate --collective-partitions,
# docs/model.md §3; docs/accuracy.md "The collective's slowdown by size, fitted and judged on
# train"): h200x2 refit as scripts/refit-profiles.sh does, without and with the table fitted from
# the isolated runs of three train seeds, each scored on the 14 independent and 8 dependent
# host-paced 2-rank train sets of 2x H200. Prints, per profile: the right decisions, the mean loss,
# the picks more than 1% slower than serial (by strategy kind), and the median / p90 prediction
# error over every strategy and over the partitioned ones (rp:C, chunked:N:cu:C). Train files
# only; writes under a temporary folder. Its recipe is the one of 2026-11-27 (no GEMM times), and
# since 2026-11-28 calibrate fits the table after the pairs, so "with" is that order, not the one
# docs/accuracy.md's table of then measured; scripts/loso-partition-table.sh is the check of the
# shipped recipe, each seed left out.
#
#   scripts/partition-table-train.sh [C3ADVISOR]      (default: build/c3advisor)
#
# C3_KEEP_REPORTS=DIR keeps the validate reports as DIR/{without,with}/{i,d}-SEED.json (for
# scripts/train_error_breakdown.py DIR/without/i-*.json).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
c3=${1:-build/c3advisor}
m=data/measurements
s=data/scenarios
work=$(mktemp -d)
keep=${C3_KEEP_REPORTS:-}
trap 'if [[ -n "$keep" ]]; then mkdir -p "$keep" && for p in without with; do rm -rf "${keep:?}/$p"; cp -r "$work/v-$p" "$keep/$p"; done; fi; rm -rf "$work"' EXIT
source "$root/scripts/h200-fit-inputs.sh"
recipe=(calibrate --backend replay:$m/calibration-h200x2-2026-11-22.json --gpus 2 --name h200x2 --base-profile h200_sxm
  --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl "${h200_pairs[@]}" "${h200_unaligned[@]}" "${h200_corrections[@]}")
partitions=()
for seed in 3301 6601 9901; do partitions+=(--collective-partitions $m/isolated-s$seed-h200x2-2026-11-27.json); done
echo "partition-table-train: refitting h200x2 without and with the table" >&2
"$c3" "${recipe[@]}" --out "$work/without.yaml" --raw "$work/without.raw.json" > "$work/without.log" 2>&1
"$c3" "${recipe[@]}" "${partitions[@]}" --out "$work/with.yaml" --raw "$work/with.raw.json" > "$work/with.log" 2>&1
independent=(1101:160 3301:128 6601:128 9901:128 13301:128 14301:128 14501:128 14701:128 14901:128 15101:128
  15301:128 15501:128 16801:128 17001:128)
dependent=(2201:48 4401:32 7701:32 8801:40 13401:40 14801:40 15201:40 15601:40)
for p in without with; do
  echo "partition-table-train: scoring $p" >&2
  mkdir -p "$work/v-$p"
  for entry in "${independent[@]}" "${dependent[@]}"; do
    seed=${entry%%:*} n=${entry##*:} stem=generated tag=i
    [[ " ${dependent[*]} " == *" $entry "* ]] && stem=dependent tag=d
    file=$m/$stem-s$seed-n$n-h200x2-2026-11-2[0-9].json
    file=$(ls $file | head -1)
    "$c3" validate --profile "$work/$p.yaml" --ranks 2 --scenarios $s/$stem-s$seed-n$n.yaml --backend replay:"$file" \
      --json > "$work/v-$p/$tag-$seed.json"
  done
done
python3 - "$work" <<'PY'
import collections, glob, json, statistics, sys
work = sys.argv[1]
def p90(v):
    v = sorted(v)
    return v[int(0.9 * len(v))]
for tag, label in (("i", "independent"), ("d", "dependent")):
    print(label)
    for p in ("without", "with"):
        n = right = 0
        loss = 0.0
        slow = collections.Counter()
        errors, partitioned = [], []
        for path in sorted(glob.glob("%s/v-%s/%s-*.json" % (work, p, tag))):
            for x in json.load(open(path))["scenarios"]:
                n += 1
                right += x["correct"]
                loss += x["loss_vs_oracle"]
                measured = {s["name"]: s["measured_s"] for s in x["strategies"]}
                if measured[x["pick"]] > 1.01 * measured["serial"]:
                    slow[x["pick"].split(":")[0]] += 1
                for s in x["strategies"]:
                    errors.append(abs(s["prediction_error"]))
                    if s["name"].startswith("rp:") or ":cu:" in s["name"]:
                        partitioned.append(abs(s["prediction_error"]))
        print("  %-8s right %d of %d, mean loss %.2f%%, >1%% slower than serial %d %s, error median %.2f%% p90 %.2f%%, "
              "partitioned median %.2f%% p90 %.2f%%" % (p, right, n, 100 * loss / n, sum(slow.values()), dict(sorted(slow.items())),
              100 * statistics.median(errors), 100 * p90(errors), 100 * statistics.median(partitioned), 100 * p90(partitioned)))
PY
