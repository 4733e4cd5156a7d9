#!/usr/bin/env bash
# Each scenario file's GEMM shapes alone in every partition a strategy would leave them
# (`measure --gemms-only --gemm-partitions`, docs/cli.md), on GPU 0 of the machine, through
# scripts/gpu-run.sh on a GPU machine:
#
#   scripts/gpu-run.sh --no-tests -- scripts/gpu-jobs/gemm-partitions.sh SECONDS DATE NAME=SCENARIOS...
#
# NAME may hold "{tag}", replaced by h200x1 or h100x1 (the GPU found; job-lib.sh); each writes
# $OUT/NAME.json (and NAME.log), rewritten after every record and resumed from
# data/measurements/NAME.json when the tree has it. Partitions: --rp 8,16,32,64 and --dma-rp
# 8,16,32, the values pairs.sh measures, so the CUs removed are 8, 16, 32 and 64.
# C3_BACKEND_OPTIONS is appended to cuda:1 (e.g. ",gate=1": gated runs, docs/device.md).
# Only train scenario files belong here: a partitioned GEMM's time is what a model term would
# be fitted from.
set -uo pipefail
budget=${1:?seconds for the whole job}
date_tag=${2:?date for the file names, e.g. 2026-11-27}
shift 2
out=${OUT:?}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/job-lib.sh"
job_clock "$budget"
gpu_tag 1 || exit 2
step "GPU '$gpu': tag $tag, datasheet profile $base ($date_tag)"
for spec in "$@"; do
  name=${spec%%=*}
  name=${name//\{tag\}/$tag}
  scenarios=${spec#*=}
  if (($(left) < 20)); then
    step "$name: not started (budget spent)"
    continue
  fi
  resume=()
  [[ ! -f "$out/$name.json" && -f "$root/data/measurements/$name.json" ]] &&
    cp "$root/data/measurements/$name.json" "$out/$name.json"
  [[ -f "$out/$name.json" ]] && resume=(--resume)
  step "$name: $scenarios, $(left)s left"
  timeout --kill-after=10 "$(left)" c3advisor measure --backend "cuda:1${C3_BACKEND_OPTIONS:-}" --profile "$base" \
    --scenarios "$scenarios" --out "$out/$name.json" --gemms-only --gemm-partitions --rp 8,16,32,64 --dma-rp 8,16,32 \
    --runs 9 --warmup 6 "${resume[@]}" 2>>"$out/$name.log"
  step "$name: exit $? ($(grep -c '^\[' "$out/$name.log") progress lines)"
done
