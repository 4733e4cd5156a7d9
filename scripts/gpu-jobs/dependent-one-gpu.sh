#!/usr/bin/env bash
# What one GPU can measure for dependent pairs (docs/model.md §7), through scripts/gpu-run.sh:
#
#   scripts/gpu-run.sh --build --no-tests -- scripts/gpu-jobs/dependent-one-gpu.sh NAME PIECES
#
# 1. c3_stream_wait_probe: the device cost of one cross-stream wait (chunk_wait_s, §7.2),
#    pieces of 5, 20 and 100 us -> $OUT/stream-wait-NAME.json;
# 2. PIECES, the GEMM pieces of a dependent scenarios file's decomposed schedules (made here
#    by scripts/dependent_pieces.py, which needs PyYAML), measured alone with
#    `measure --gemms-only` on GPU 0 (time and the kernel cuBLASLt picks per piece, §7.3)
#    -> $OUT/kernels-pieces-NAME.json.
set -uo pipefail
name=${1:?NAME}
pieces=${2:?PIECES}
out=${OUT:?}
build=/tmp/c3-build-gpu
if [[ -d $build ]]; then
  ninja -C "$build" c3_stream_wait_probe >>"$out/build.log" 2>&1 || echo "== c3_stream_wait_probe did not build"
fi
probe=$build/backends/cuda/c3_stream_wait_probe
echo "== $(date -u +%H:%M:%S) stream wait probe"
if [[ -x $probe ]]; then
  timeout 120 "$probe" --k 64 --repeats 15 --pieces-us 5,20,100 --out "$out/stream-wait-$name.json"
  echo "== probe exit $?"
else
  echo "== no probe binary at $probe"
fi
echo "== $(date -u +%H:%M:%S) GEMM pieces: $pieces"
timeout --kill-after=10 300 c3advisor measure --backend cuda:1 --profile h200_sxm --gemms-only \
  --scenarios "$pieces" --out "$out/kernels-pieces-$name.json" --runs 9 --warmup 6 \
  2>>"$out/kernels-pieces-$name.log"
echo "== $(date -u +%H:%M:%S) pieces exit $?"
