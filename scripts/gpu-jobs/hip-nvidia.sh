#!/usr/bin/env bash
# The hip backend on HIP's NVIDIA platform next to the cuda backend (issue 15, item 2):
# runs ON a GPU machine through scripts/gpu-run.sh, after `scripts/gpu-build.sh --hip-nvidia`
# built .gpu/ here (c3advisor with both backends, c3_hip_nvidia_tests).
#
#   scripts/gpu-run.sh --no-tests -- scripts/gpu-jobs/hip-nvidia.sh N
#
#   1. c3_hip_nvidia_tests: copies, copy-engine collectives and NCCL collectives through both
#      backends (both verified, medians within 10%), the failures the NVIDIA platform names
#      (tests/device/hip_nvidia_tests.cpp);
#   2. the same collective benchmark through both backends with c3advisor bench-collective
#      (nccl and ce_push_peer, 1 MiB to 1 GiB), for the record.
# Writes $OUT/hip-nvidia.json, $OUT/hip-nvidia.txt and $OUT/hip-nvidia-bench.tgz.
set -uo pipefail
n=${1:?GPU count}
out=${OUT:?}
rc=0
echo "== $(date -u +%H:%M:%S) c3_hip_nvidia_tests --gpus $n"
c3_hip_nvidia_tests --gpus "$n" --out "$out/hip-nvidia.json" 2>&1 | tee "$out/hip-nvidia.txt"
[[ ${PIPESTATUS[0]} == 0 ]] || rc=1
mkdir -p "$out/bench"
for backend in cuda hip; do
  echo "== $(date -u +%H:%M:%S) bench-collective --backend $backend:$n"
  c3advisor bench-collective --backend "$backend:$n" --transports nccl,ce_push_peer \
    --sizes 1MiB,16MiB,256MiB,1GiB --runs 5 --warmup 2 --out "$out/bench/bench-$backend.json" \
    >"$out/bench/bench-$backend.txt" 2>&1 || rc=1
  tail -n 20 "$out/bench/bench-$backend.txt"
done
tar -czf "$out/hip-nvidia-bench.tgz" -C "$out" bench && rm -rf "$out/bench"
exit $rc
