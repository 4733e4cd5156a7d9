#!/usr/bin/env bash
# A node of N GPUs that has no profile yet, in one device call, through scripts/gpu-run.sh:
# its calibration, then train pairs for `calibrate --pairs`, then files to resume.
#
#   scripts/gpu-run.sh --no-tests -- scripts/gpu-jobs/new-node.sh N SECONDS DATE [NAME=SCENARIOS...]
#
# The GPU model decides the names and the datasheet profile: "NVIDIA H100 ..." gives the tag
# h100xN and h100_sxm, "NVIDIA H200" h200xN and h200_sxm (the device tool may lend either for
# the same request). In order, within SECONDS for the whole job:
#   1. c3advisor calibrate --backend cuda:N --gpus N --base-profile BASE --dma-variant
#      ce_push_batch_ovl: $OUT/calibration-TAG-DATE.json (raw) and $OUT/TAG.yaml;
#   2. each NAME=SCENARIOS: NAME may hold "{tag}", replaced by TAG; a scenarios file whose
#      pairs carry `dependency:` goes to dependent.sh (schedules and PyTorch's peers), any
#      other to pairs.sh (every strategy), both at --ranks N with BASE as the measure profile.
#      A NAME whose TAG is not this machine's (e.g. a partial h100x4 file on H200s) is skipped.
# Every step writes after each record and resumes from data/measurements/NAME.json when the
# tree has it. NVLink multicast stays off (gpu-run.sh and the backend).
# C3_BACKEND_OPTIONS is appended to cuda:N in every step (e.g. ",gate=1": gated runs,
# docs/device.md); C3_NODE_SUFFIX is appended to the tag in the calibration's names and the
# profile's name (e.g. "-gated": calibration-h200x2-gated-DATE.json, profile h200x2-gated).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
n=${1:?GPU count}
budget=${2:?seconds for the whole job}
date_tag=${3:?date for the file names, e.g. 2026-11-26}
shift 3
out=${OUT:?}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/job-lib.sh"
job_clock "$budget"
gpu_tag "$n" || exit 2
step "GPU '$gpu' x$n: tag $tag, datasheet profile $base"

node=$tag${C3_NODE_SUFFIX:-}
raw="$out/calibration-$node-$date_tag.json"
if [[ ! -s "$raw" ]]; then
  step "calibrate (${n} GPUs, cuda:$n${C3_BACKEND_OPTIONS:-}), $(left)s left"
  timeout --kill-after=10 "$(left)" c3advisor calibrate --backend "cuda:$n${C3_BACKEND_OPTIONS:-}" --gpus "$n" \
    --base-profile "$base" --name "$node" --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl --out "$out/$node.yaml" \
    --raw "$raw" >"$out/calibration-$node-$date_tag.txt" 2>"$out/calibration-$node-$date_tag.log"
  step "calibrate: exit $?"
fi

status=0
for spec in "$@"; do
  name=${spec%%=*}
  scenarios=${spec#*=}
  name=${name//\{tag\}/$tag}
  if [[ "$name" =~ (h[0-9]+x[0-9]+) && "${BASH_REMATCH[1]}" != "$tag" ]]; then
    step "$name: skipped (this machine is $tag)"
    continue
  fi
  ((($(left)) >= 40)) || { step "$name: not started (budget spent)"; continue; }
  if [[ -f "$scenarios" ]] && grep -q "dependency:" "$scenarios"; then
    C3_MEASURE_PROFILE=$base "$here/dependent.sh" "$n" "$(left)" "$name=$scenarios" || status=$?
  else
    C3_MEASURE_PROFILE=$base "$here/pairs.sh" "$n" "$(left)" "$name=$scenarios" || status=$?
  fi
done
step "done"
exit $status
