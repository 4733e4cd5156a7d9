#!/usr/bin/env bash
# The same pairs measured under several run protocols of `c3advisor measure`, each in its own
# process, in the order given (alternate them, so that a drift of the session falls on both),
# through scripts/gpu-run.sh on a GPU machine:
#
#   scripts/gpu-run.sh --no-tests -- scripts/gpu-jobs/protocol-ab.sh N SCENARIOS ONLY NAME LABEL=OPTIONS...
#
# ONLY: comma-separated pair names (measure --only), or - for every pair. Writes
# $OUT/NAME-LABEL.json (+ .log) per LABEL=OPTIONS, e.g. blocked1="--runs 9 --warmup 6"
# rounds1="--runs 9 --warmup 3 --rounds 3"; OPTIONS starting with @ first give options of the
# cuda backend, appended to cuda:N: gated1="@,gate=1 --runs 9 --warmup 6" (docs/device.md).
# The strategies are those of pairs.sh and dependent.sh (rp 8,16,32,64, dma_rp 8,16,32, chunks
# 2,4,8, chunked-cus 16, dma variant ce_push_batch_ovl). scripts/repeat_spread.py compares the
# files of one LABEL prefix with each other (docs/accuracy.md). C3_MEASURE_PROFILE as pairs.sh.
set -uo pipefail
n=${1:?GPU count}
scenarios=${2:?scenarios YAML}
only=${3:?pair names}
name=${4:?output name}
shift 4
[[ $# -gt 0 ]] || { echo "protocol-ab.sh: give LABEL=OPTIONS" >&2; exit 2; }
out=${OUT:?}
status=0
for spec in "$@"; do
  label=${spec%%=*}
  read -r -a args <<<"${spec#*=}"
  backend="cuda:$n"
  if [[ ${#args[@]} -gt 0 && ${args[0]} == @* ]]; then
    backend+=${args[0]#@}
    args=("${args[@]:1}")
  fi
  pick=()
  [[ "$only" != - ]] && pick=(--only "$only")
  echo "== $(date -u +%H:%M:%S) $name-$label: $backend ${args[*]}"
  c3advisor measure --backend "$backend" --profile "${C3_MEASURE_PROFILE:-h200_sxm}" --scenarios "$scenarios" \
    --out "$out/$name-$label.json" --rp 8,16,32,64 --dma-rp 8,16,32 --chunks 2,4,8 --chunked-cus 16 \
    --ranks "$n" --dma-variant ce_push_batch_ovl "${pick[@]}" "${args[@]}" 2>>"$out/$name-$label.log"
  rc=$?
  echo "== $(date -u +%H:%M:%S) $name-$label: exit $rc"
  ((rc != 0)) && status=$rc
done
exit $status
