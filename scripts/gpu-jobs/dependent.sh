#!/usr/bin/env bash
# Dependent pairs (issue 12) measured with every c3advisor schedule AND with PyTorch's own
# ways of running them, in one device call, through scripts/gpu-run.sh on a GPU machine:
#
#   scripts/gpu-run.sh --build --no-tests -- scripts/gpu-jobs/dependent.sh N SECONDS NAME=SCENARIOS...
#
# For each NAME=SCENARIOS (a scenarios YAML whose pairs carry `dependency:`), in order, within
# SECONDS for the whole job:
#   1. c3advisor measure --backend cuda:N ... --chunks 2,4,8 --chunked-cus 16 writes $OUT/NAME.json
#      (serial and every chunked schedule of every pair), rewritten after every record;
#   2. scripts/gpu-jobs/async_tp.py on N processes (torchrun) adds PyTorch's serial path and its
#      async tensor parallel (fused_all_gather_matmul, fused_matmul_reduce_scatter) on the same
#      pairs to the same file, under "peers" (docs/accuracy.md, "Peers"), after every pair.
# Step 1 of each file gets what is left of SECONDS minus C3_PEER_SECONDS (default 150) for
# step 2, so that a cut-off step 1 still leaves a file with both. Like pairs.sh, a file is
# resumed (measure --resume) from data/measurements/NAME.json when that is in the tree and
# $OUT/NAME.json is not; `measure --resume` keeps the peers, async_tp.py replaces its own.
# Builds nothing: gpu-run.sh puts c3advisor on PATH. NVLink multicast stays off.
# Environment: C3_BACKEND_OPTIONS (appended to cuda:N, e.g. ",trace=5": traced runs of every schedule,
# Measurement::timeline, docs/device.md), C3_NO_PEERS=1 (step 1 only, with all of SECONDS: a repeat in its own process), C3_MEASURE_PROFILE (default h200_sxm: the datasheet profile of the GPU measured),
# C3_MEASURE_RUNS (the run options of measure, default "--runs 9 --warmup 6"; e.g. "--runs 9 --warmup 3 --rounds 3"), C3_PEER_SECONDS, C3_PEER_RUNS (default 20), C3_PEER_WARMUP (default 5),
# TORCHRUN (default: python3 -m torch.distributed.run), C3_GIT_SHA (provenance).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
n=${1:?GPU count}
budget=${2:?seconds for the whole job}
shift 2
[[ $# -gt 0 ]] || { echo "dependent.sh: give NAME=SCENARIOS" >&2; exit 2; }
out=${OUT:?}
root=$(cd "$(dirname "$0")/../.." && pwd)
peer_s=${C3_PEER_SECONDS:-150}
[[ "${C3_NO_PEERS:-0}" == 1 ]] && peer_s=0  # nothing kept back for peers that will not run
read -r -a torchrun <<<"${TORCHRUN:-python3 -m torch.distributed.run}"
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
status=0
for spec in "$@"; do
  name=${spec%%=*}
  scenarios=${spec#*=}
  [[ -n "$name" && "$name" != "$spec" && -n "$scenarios" ]] || { echo "== bad spec '$spec' (NAME=SCENARIOS)"; status=2; continue; }
  json="$out/$name.json"
  if (($(left) < 60)); then
    echo "== $name: not started (budget spent)"
    continue
  fi
  # ---- 1. c3advisor's schedules ----
  resume=()
  [[ ! -f "$json" && -f "$root/data/measurements/$name.json" ]] && cp "$root/data/measurements/$name.json" "$json"
  [[ -f "$json" ]] && resume=(--resume)
  measure_s=$(($(left) - peer_s))
  if ((measure_s >= 20)); then
    echo "== $(date -u +%H:%M:%S) $name: measure $scenarios, ${measure_s}s"
    timeout --kill-after=10 "$measure_s" c3advisor measure --backend "cuda:$n${C3_BACKEND_OPTIONS:-}" --profile "${C3_MEASURE_PROFILE:-h200_sxm}" \
      --scenarios "$scenarios" --out "$json" --ranks "$n" --chunks 2,4,8 --chunked-cus 16 \
      --rp 8,16,32,64 --dma-rp 8,16,32 ${C3_MEASURE_RUNS:---runs 9 --warmup 6} --dma-variant ce_push_batch_ovl \
      "${resume[@]}" 2>>"$out/$name.log"
    rc=$?
    echo "== $(date -u +%H:%M:%S) $name: measure exit $rc ($(grep -c '^\[' "$out/$name.log") progress lines)"
    ((rc != 0 && rc != 124)) && status=$rc
  else
    echo "== $name: measure skipped (${measure_s}s left for it)"
  fi
  if [[ ! -f "$json" ]]; then
    echo "== $name: no $json, no peers"
    status=1
    continue
  fi
  # ---- 2. PyTorch's, on the same pairs, into the same file ----
  if [[ "${C3_NO_PEERS:-0}" == 1 ]]; then
    echo "== $name: peers not run (C3_NO_PEERS=1)"
    continue
  fi
  peers_left=$(left)
  if ((peers_left < 30)); then
    echo "== $name: peers not started (budget spent)"
    continue
  fi
  echo "== $(date -u +%H:%M:%S) $name: async_tp.py, ${peers_left}s"
  timeout --kill-after=10 "$peers_left" "${torchrun[@]}" --standalone --nproc-per-node "$n" \
    "$root/scripts/gpu-jobs/async_tp.py" --raw "$json" --runs "${C3_PEER_RUNS:-20}" \
    --warmup "${C3_PEER_WARMUP:-5}" --budget-s $((peers_left - 30)) >>"$out/$name.peers.log" 2>&1
  rc=$?
  tail -n 3 "$out/$name.peers.log"
  echo "== $(date -u +%H:%M:%S) $name: async_tp.py exit $rc"
  ((rc != 0)) && status=$rc
done
exit $status
