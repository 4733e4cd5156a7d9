#!/usr/bin/env bash
# `c3advisor validate --backend cuda:N` live, the way a user checks a profile on their own
# machine: every strategy of each scenario measured (as `measure` with pairs.sh's options:
# --rp 8,16,32,64 --dma-rp 8,16,32, dependent pairs --chunks 2,4,8 --chunked-cus 16, the
# copy-engine variant ce_push_batch_ovl the shipped profiles were calibrated with), then scored
# against the machine's profile (h200xN / h100xN where embedded, else the datasheet profile):
#
#   scripts/gpu-run.sh --no-tests -- scripts/gpu-jobs/validate-live.sh N SECONDS DATE SCENARIOS.yaml...
#
# For each scenarios file data/scenarios/STEM.yaml: $OUT/validate-live-STEM-TAG-DATE.json (the raw
# measurements, `validate --out`), .v.json (validate --json), .log (progress). A replay of the raw
# file (`validate --backend replay:FILE`) must print the same numbers (docs/accuracy.md, "Live
# validation"). Builds nothing: gpu-run.sh puts c3advisor on PATH. NVLink multicast stays off.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
n=${1:?GPU count}
budget=${2:?seconds for the whole job}
date_tag=${3:?date for the file names, e.g. 2026-11-27}
shift 3
(($# > 0)) || { echo "validate-live.sh: no scenarios file given" >&2; exit 2; }
out=${OUT:?}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/job-lib.sh"
job_clock "$budget"
gpu_tag "$n" || exit 2
profile=$base
c3advisor profiles 2>/dev/null | grep -qw "$tag" && profile=$tag
step "GPU '$gpu' x$n: profile $profile"
status=0
for scenarios in "$@"; do
  name="validate-live-$(basename "${scenarios%.yaml}")-$tag-$date_tag"
  if (($(left) < 20)); then
    step "$name: skipped ($(left)s left)"
    continue
  fi
  step "$name: $scenarios, $(left)s left"
  timeout --kill-after=10 "$(left)" c3advisor validate --backend "cuda:$n" --profile "$profile" \
    --scenarios "$scenarios" --ranks "$n" --rp 8,16,32,64 --dma-rp 8,16,32 --chunks 2,4,8 --chunked-cus 16 \
    --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl --out "$out/$name.json" --json \
    >"$out/$name.v.json" 2>>"$out/$name.log"
  rc=$?
  ((rc == 0)) || status=$rc
  step "$name: exit $rc ($(grep -c '^\[' "$out/$name.log") progress lines)"
done
step "done ($(left)s of ${budget}s left)"
exit $status
