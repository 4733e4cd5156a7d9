#!/usr/bin/env bash
# Sourced by the GPU jobs (new-node.sh, test-round.sh, collectives.sh):
#
#   source "$(dirname "$0")/job-lib.sh"
#   gpu_tag N          sets gpu (nvidia-smi's name of GPU 0), tag (h100xN / h200xN) and base
#                      (h100_sxm / h200_sxm, the datasheet profile measure reads); any other
#                      GPU: a message on stderr and status 2 (the caller exits)
#   job_clock SECONDS  starts the job's clock: `left` prints the seconds left of SECONDS,
#                      `step TEXT` prints "== HH:MM:SS TEXT"
#
# The device tool may lend either GPU model for the same request, so a job names its files
# by the GPU it finds.
gpu_tag() {
  local n=${1:?GPU count}
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  case "$gpu" in
    *H100*) tag=h100x$n base=h100_sxm ;;
    *H200*) tag=h200x$n base=h200_sxm ;;
    *) echo "$(basename "$0"): unknown GPU '$gpu' (expected H100 or H200)" >&2; return 2 ;;
  esac
}

job_clock() {
  job_budget=${1:?seconds for the whole job}
  job_start=$(date +%s)
}
left() { echo $((job_budget - ($(date +%s) - job_start))); }
step() { echo "== $(date -u +%H:%M:%S) $*"; }
