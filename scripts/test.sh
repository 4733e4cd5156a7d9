#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (unit, CLI
# golden, bad input, install/consumer, C API, Python), then the sanitizer runs
# (scripts/sanitize.sh: every test under ASan+UBSan, the 8-thread tests under TSan, each
# fuzzer for 30 s; docs/reliability.md says how long CI takes). Where nvcc, cuBLAS and NCCL
# are found under /usr/local/cuda, it first compiles the CUDA runner (C3_ENABLE_CUDA=ON;
# with hipcc, also the hip backend on HIP's NVIDIA platform and c3_hip_nvidia_tests): their
# tests need a GPU and run only through scripts/gpu-run.sh on a GPU machine. Where hipcc is
# found, the test build includes the hip backend (AMD platform, Debian's HIP, no hipBLASLt or
# RCCL): its ctest cases run its option parsing and its "no HIP device" failure.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
elapsed() { echo "   ($(( $(date +%s) - start ))s since the start of test.sh)"; }
scripts/deps.sh test
jobs=$(nproc)
hip_test=(-DC3_ENABLE_HIP=OFF)
hip_nvidia=(-DC3_ENABLE_HIP=OFF)
if command -v hipcc >/dev/null && [[ -f /usr/include/hip/hip_runtime_api.h ]]; then
  # Debian's clang 15 targets gfx90a at most (MI300X is gfx942: built with ROCm's own hipcc).
  hip_test=(-DC3_ENABLE_HIP=ON -DCMAKE_HIP_ARCHITECTURES=gfx90a)
  scripts/hip-nvidia-headers.sh "$PWD/build-test-hipnv" >/dev/null
  hip_nvidia=(-DC3_ENABLE_HIP=ON -DC3_HIP_PLATFORM=nvidia "-DC3_HIP_INCLUDE_DIRS=$PWD/build-test-hipnv/include")
fi
if [[ -x /usr/local/cuda/bin/nvcc && -f /usr/local/cuda/include/nccl.h ]]; then
  echo "== compiling the CUDA runner (C3_ENABLE_CUDA=ON; GPU tests run only on a GPU machine) =="
  cmake -S . -B build-test-cuda -G Ninja -DC3_ENABLE_CUDA=ON -DC3_BUILD_TESTS=OFF \
    -DC3_BUILD_BENCH=OFF -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc "${hip_nvidia[@]}" >/dev/null
  cmake --build build-test-cuda -j"$jobs"
  elapsed
else
  echo "== not compiling the CUDA runner: no nvcc/NCCL under /usr/local/cuda =="
fi
echo "== building and running the tests =="
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${hip_test[@]}" >/dev/null
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
