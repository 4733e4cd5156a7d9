#!/usr/bin/env bash
# One test round (docs/accuracy.md, "Run protocols") in one device call, through
# scripts/gpu-run.sh, every set measured in full in PROCESSES separate processes:
#
#   scripts/gpu-run.sh --no-tests -- scripts/gpu-jobs/test-round.sh N SECONDS DATE PROCESSES \
#       TAG=INDEPENDENT.yaml,DEPENDENT.yaml [TAG=...]
#
# The machine's GPU picks the spec (job-lib.sh's gpu_tag: TAG is h100xN or h200xN; the device tool may
# lend either model for the same request, so give one spec per model whose seeds were drawn
# for it); no spec for this machine: status 2, nothing measured. Either file may be "-".
# A scenarios file data/scenarios/STEM.yaml is written as $OUT/STEM-TAG-DATE.json in process 1
# and $OUT/STEM-repeatK-TAG-DATE.json in process K+1 (the names of data/measurements/). In order:
#   process 1: the dependent set through dependent.sh (every schedule, then PyTorch's peers),
#              the independent set through pairs.sh, its pairs under 100 us twice more with 60
#              runs (small-pairs.sh: STEM-small-runs60-r1-TAG-DATE, -r2-);
#   process 2..PROCESSES: the independent set, then the dependent set without peers.
# SECONDS is the whole job's budget; each step gets what is left (a step cut off keeps what it
# measured: every file is rewritten after each record). NVLink multicast stays off.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
n=${1:?GPU count}
budget=${2:?seconds for the whole job}
date_tag=${3:?date for the file names, e.g. 2026-11-26}
processes=${4:?processes per set (1 or more)}
shift 4
[[ "$processes" =~ ^[1-9][0-9]*$ ]] || { echo "test-round.sh: PROCESSES must be a positive count (got '$processes')" >&2; exit 2; }
out=${OUT:?}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/job-lib.sh"
job_clock "$budget"
gpu_tag "$n" || exit 2
independent="" dependent="" found=0
for spec in "$@"; do
  [[ "${spec%%=*}" == "$tag" ]] || continue
  files=${spec#*=}
  independent=${files%%,*}
  dependent=${files#*,}
  [[ "$dependent" == "$files" ]] && dependent=-
  found=1
done
((found)) || { echo "test-round.sh: no TAG=... spec for this machine ($tag, GPU '$gpu')" >&2; exit 2; }
step "GPU '$gpu' x$n: tag $tag; independent $independent, dependent $dependent, $processes process(es)"
stem() { basename "${1%.yaml}"; }
name() {  # name SCENARIOS PROCESS
  local s
  s=$(stem "$1")
  if (($2 == 1)); then echo "$s-$tag-$date_tag"; else echo "$s-repeat$(($2 - 1))-$tag-$date_tag"; fi
}
export C3_MEASURE_PROFILE=$base
status=0
dependent_set() {  # dependent_set PROCESS
  [[ "$dependent" != - ]] || return 0
  if (($1 == 1)); then
    "$here/dependent.sh" "$n" "$(left)" "$(name "$dependent" 1)=$dependent" || status=$?
  else
    C3_NO_PEERS=1 "$here/dependent.sh" "$n" "$(left)" "$(name "$dependent" "$1")=$dependent" || status=$?
  fi
}
independent_set() {  # independent_set PROCESS
  [[ "$independent" != - ]] || return 0
  local ind
  ind=$(name "$independent" "$1")
  "$here/pairs.sh" "$n" "$(left)" "$ind=$independent" || status=$?
  if (($1 == 1)) && [[ -s "$out/$ind.json" ]] && (($(left) >= 30)); then
    timeout --kill-after=10 "$(left)" "$here/small-pairs.sh" "$n" "$out/$ind.json" "$independent" \
      "$(stem "$independent")-small-runs60-{r}-$tag-$date_tag" 2 || status=$?
  fi
}
dependent_set 1
independent_set 1
for ((p = 2; p <= processes; ++p)); do
  independent_set "$p"
  dependent_set "$p"
done
step "done ($(left)s of ${budget}s left)"
exit $status
