#!/usr/bin/env bash
# Gated against ungated runs (the cuda backend's option gate=1, docs/device.md): the same train
# pairs measured in alternating processes, ungated (u) and gated (g), through scripts/gpu-run.sh
# on a GPU machine:
#
#   scripts/gpu-run.sh --tests "--only gate,timing --quick" -- scripts/gpu-jobs/gate-ab.sh N SECONDS DATE [ROUNDS]
#
# ROUNDS (default 3) processes of each protocol, alternating u1 g1 u2 g2 ...; for each set
# below, in this order, while SECONDS last (a set begins only with 60 s left):
#   data/scenarios/gate-small-train.yaml   the pairs of four train seeds whose fastest strategy took under 100 us
#   data/scenarios/trace-dependent-train.yaml  19 dependent train pairs (every schedule)
#   data/scenarios/gate-medium-train.yaml  the pairs of seed 13301 between 100 us and 1 ms (two processes each)
# C3_GATE_SETS replaces those three with its own, space-separated SET=SCENARIOS:ROUNDS entries
# (e.g. "gate-r4-s16201=data/scenarios/generated-r4-s16201-n64.yaml:3" at 4 GPUs).
# Writes $OUT/SET-{u,g}R-TAG-DATE.json (+ .log), TAG the GPU found (h200x2, h100x2); with
# C3_WANT_TAG set (e.g. h100x2), a machine of another tag measures nothing (exit 3).
# scripts/repeat_spread.py compares the files of one protocol (docs/accuracy.md, "Gated runs").
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
n=${1:?GPU count}
budget=${2:?seconds for the whole job}
date=${3:?date of the files}
rounds=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/job-lib.sh"
gpu_tag "$n" || exit 3
if [[ -n "${C3_WANT_TAG:-}" && "$tag" != "$C3_WANT_TAG" ]]; then
  step "lent $tag, wanted $C3_WANT_TAG (C3_WANT_TAG): nothing measured"
  exit 3
fi
job_clock "$budget"
export C3_MEASURE_PROFILE=$base
status=0
run_set() {  # SET SCENARIOS ROUNDS
  local set=$1 scenarios=$2 r=$3 specs=()
  for ((i = 1; i <= r; ++i)); do
    specs+=("u$i-$tag-$date=--runs 9 --warmup 6" "g$i-$tag-$date=@,gate=1 --runs 9 --warmup 6")
  done
  if (($(left) < 60)); then
    step "$set: not begun ($(left) s left)"
    return
  fi
  step "$set: $scenarios, $r round(s), $(left) s left"
  timeout "$(left)" "$here/protocol-ab.sh" "$n" "$scenarios" - "$set" "${specs[@]}"
  local rc=$?
  step "$set: exit $rc"
  ((rc != 0)) && status=$rc
}
if [[ -n "${C3_GATE_SETS:-}" ]]; then
  # Every entry is checked before the first is measured.
  for entry in $C3_GATE_SETS; do
    if [[ "$entry" != *=*:* || "$entry" == =* || ! "${entry##*:}" =~ ^[1-9][0-9]*$ ]]; then
      step "C3_GATE_SETS: '$entry' is not SET=SCENARIOS:ROUNDS (ROUNDS a positive count)"
      exit 2
    fi
  done
  for entry in $C3_GATE_SETS; do
    rest=${entry#*=}
    run_set "${entry%%=*}" "${rest%:*}" "${rest##*:}"
  done
else
  run_set gate-small-train data/scenarios/gate-small-train.yaml "$rounds"
  run_set gate-dependent-train data/scenarios/trace-dependent-train.yaml 2
  run_set gate-medium-train data/scenarios/gate-medium-train.yaml 2
fi
step "done ($(left) s of $budget s left)"
exit $status
