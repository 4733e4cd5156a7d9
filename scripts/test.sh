#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (unit, CLI
# golden, bad input, install/consumer, C API, Python), then the sanitizer runs
# (scripts/sanitize.sh: every test under ASan+UBSan, the 8-thread tests under TSan, each
# fuzzer for 30 s; docs/reliability.md says how long CI takes). Where nvcc, cuBLAS and NCCL
# are found under /usr/local/cuda, it first compiles the CUDA runner (C3_ENABLE_CUDA=ON):
# its tests need a GPU and run only through scripts/gpu-run.sh on a GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
elapsed() { echo "   ($(( $(date +%s) - start ))s since the start of test.sh)"; }
scripts/deps.sh test
jobs=$(nproc)
if [[ -x /usr/local/cuda/bin/nvcc && -f /usr/local/cuda/include/nccl.h ]]; then
  echo "== compiling the CUDA runner (C3_ENABLE_CUDA=ON; GPU tests run only on a GPU machine) =="
  cmake -S . -B build-test-cuda -G Ninja -DC3_ENABLE_CUDA=ON -DC3_BUILD_TESTS=OFF \
    -DC3_BUILD_BENCH=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >/dev/null
  cmake --build build-test-cuda -j"$jobs"
  elapsed
else
  echo "== not compiling the CUDA runner: no nvcc/NCCL under /usr/local/cuda =="
fi
echo "== building and running the tests =="
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-test -j"$jobs"
elapsed
ctest --test-dir build-test --output-on-failure -j"$jobs"
elapsed
echo "== sanitizers and fuzzers (scripts/sanitize.sh; C3_SKIP_SANITIZE=1 skips them) =="
if [[ "${C3_SKIP_SANITIZE:-0}" == 1 ]]; then
  echo "skipped (C3_SKIP_SANITIZE=1)"
else
  scripts/sanitize.sh
fi
echo "test.sh: passed in $(( $(date +%s) - start ))s"
