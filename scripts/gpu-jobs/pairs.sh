#!/usr/bin/env bash
# Measures scenario files on N GPUs with every strategy (issue 11's ground truth), through
# scripts/gpu-run.sh on a GPU machine:
#
#   scripts/gpu-run.sh --build --no-tests -- scripts/gpu-jobs/pairs.sh N SECONDS NAME=SCENARIOS...
#
# Each NAME=SCENARIOS pair writes $OUT/NAME.json (and NAME.log), rewritten after every record,
# so a run cut off by SECONDS (the whole job's budget, shared in order) keeps what it measured;
# a later call resumes it (--resume) from data/measurements/NAME.json when that file is in the
# tree (commit the first call's file there). The dma transport is
# ce_push_batch_ovl, the variant the h200x2 profile was calibrated with (docs/collectives.md);
# rp 8,16,32,64 and dma_rp 8,16,32 as in the held-out runs of 2026-11-22.
# C3_MEASURE_PROFILE (default h200_sxm) is the datasheet profile measure reads (the GPU measured:
# h100_sxm on H100s). C3_MEASURE_RUNS replaces the run options "--runs 9 --warmup 6" (e.g.
# "--runs 9 --warmup 3 --rounds 3"). C3_BACKEND_OPTIONS is appended to cuda:N (e.g. ",gate=1":
# gated runs, docs/device.md). C3_MEASURE_ARGS (optional) is appended to every measure command, e.g. "--only a,b" for a
# repeat of a slice in its own process.
set -uo pipefail
n=${1:?GPU count}
budget=${2:?seconds for the whole job}
shift 2
out=${OUT:?}
start=$(date +%s)
for spec in "$@"; do
  name=${spec%%=*}
  scenarios=${spec#*=}
  left=$((budget - ($(date +%s) - start)))
  if ((left < 20)); then
    echo "== $name: not started (budget spent)"
    continue
  fi
  resume=()
  root=$(cd "$(dirname "$0")/../.." && pwd)
  [[ ! -f "$out/$name.json" && -f "$root/data/measurements/$name.json" ]] &&
    cp "$root/data/measurements/$name.json" "$out/$name.json"
  [[ -f "$out/$name.json" ]] && resume=(--resume)
  echo "== $(date -u +%H:%M:%S) $name: $scenarios, ${left}s left"
  timeout --kill-after=10 "$left" c3advisor measure --backend "cuda:$n${C3_BACKEND_OPTIONS:-}" --profile "${C3_MEASURE_PROFILE:-h200_sxm}" \
    --scenarios "$scenarios" --out "$out/$name.json" --rp 8,16,32,64 --dma-rp 8,16,32 \
    ${C3_MEASURE_RUNS:---runs 9 --warmup 6} --ranks "$n" --dma-variant ce_push_batch_ovl "${resume[@]}" ${C3_MEASURE_ARGS:-} \
    2>>"$out/$name.log"
  echo "== $(date -u +%H:%M:%S) $name: exit $? ($(grep -c '^\[' "$out/$name.log") progress lines)"
done
