#!/usr/bin/env bash
# Sanitizer runs (issue #14), two builds:
#  1. build-asan: clang, AddressSanitizer + UndefinedBehaviorSanitizer
#     (C3_SANITIZE=address,undefined) with the libFuzzer targets (C3_BUILD_FUZZ=ON) in the
#     same build: every ctest test (unit, CLI golden and bad input, install, C API, and each
#     fuzzer's seeds replayed once), then each fuzzer for FUZZ_SECONDS (scripts/fuzz.sh).
#  2. build-tsan: ThreadSanitizer (C3_SANITIZE=thread): the tests that share one advisor
#     between 8 threads, from C++ (AdvisorThreads.*) and through the C API (CApiThreads).
# Every finding fails the run: UBSan does not recover (-fno-sanitize-recover=all) and ASan,
# UBSan and TSan halt on their first error. The time of each step is printed
# (docs/reliability.md has what it took on a 2-core machine).
#
# Environment: FUZZ_SECONDS (30), SANITIZE_CXX / SANITIZE_CC (clang++ / clang),
# SANITIZE_SKIP_FUZZ=1 (no fuzzing, the seeds are still replayed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh sanitize
jobs=$(nproc)
start=$(date +%s)
elapsed() { echo "   ($(( $(date +%s) - start ))s since the start of sanitize.sh)"; }
cxx=${SANITIZE_CXX:-clang++}
cc=${SANITIZE_CC:-clang}
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

echo "== sanitize 1/2: ASan + UBSan build with the fuzzers ($cxx): every test, then each fuzzer =="
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_C_COMPILER="$cc" "${launcher[@]}" -DC3_SANITIZE=address,undefined -DC3_BUILD_FUZZ=ON \
  -DC3_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
elapsed
ctest --test-dir build-asan --output-on-failure -j"$jobs"
elapsed
if [[ "${SANITIZE_SKIP_FUZZ:-0}" != 1 ]]; then
  FUZZ_NO_BUILD=1 FUZZ_BUILD_DIR=build-asan scripts/fuzz.sh
  elapsed
fi

echo "== sanitize 2/2: TSan build, one advisor shared by 8 threads (C++ and C API) =="
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_C_COMPILER="$cc" "${launcher[@]}" -DC3_SANITIZE=thread -DC3_BUILD_BENCH=OFF \
  -DC3_BUILD_PYTHON=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target c3_unit_tests c3_capi_threads
ctest --test-dir build-tsan --output-on-failure -R '^(AdvisorThreads\.|CApiThreads$)' --no-tests=error
elapsed
echo "sanitize.sh: passed in $(( $(date +%s) - start ))s"
