#!/usr/bin/env bash
# Sourced by the GPU jobs (new-node.sh, test-round.sh, collectives.sh): names this machine.
#
#   source "$(dirname "$0")/gpu-tag.sh" N     sets gpu (nvidia-smi's name of GPU 0),
#                                             tag (h100xN / h200xN) and base (h100_sxm /
#                                             h200_sxm, the datasheet profile measure reads)
#
# The device tool may lend either GPU model for the same request, so a job names its files
# by the GPU it finds. Any other GPU: a message on stderr and status 2 (the caller exits).
gpu_tag() {
  local n=${1:?GPU count}
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  case "$gpu" in
    *H100*) tag=h100x$n base=h100_sxm ;;
    *H200*) tag=h200x$n base=h200_sxm ;;
    *) echo "$(basename "$0"): unknown GPU '$gpu' (expected H100 or H200)" >&2; return 2 ;;
  esac
}
