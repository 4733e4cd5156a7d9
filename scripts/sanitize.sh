#!/usr/bin/env bash
# Sanitizer runs (issue #14): three builds, each in its own directory.
#  1. build-asan: AddressSanitizer + UndefinedBehaviorSanitizer (C3_SANITIZE=address,undefined),
#     every ctest test: unit, CLI (golden, bad input) and install.
#  2. build-tsan: ThreadSanitizer (C3_SANITIZE=thread), the test that shares one
#     c3::Advisor between 8 threads (AdvisorThreads.*).
#  3. build-fuzz: the libFuzzer targets (clang, ASan + UBSan), each run for FUZZ_SECONDS
#     (default 30) after replaying their seeds (scripts/fuzz.sh).
# Every finding fails the run: UBSan does not recover (-fno-sanitize-recover=all) and ASan,
# UBSan and TSan halt on their first error.
#
# Environment: FUZZ_SECONDS (30), SANITIZE_CXX (the compiler of builds 1 and 2; default the
# system's c++), FUZZ_CXX (clang++), SANITIZE_SKIP_FUZZ=1 (builds 1 and 2 only).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh sanitize
jobs=$(nproc)
start=$(date +%s)

compiler=()
[[ -n "${SANITIZE_CXX:-}" ]] && compiler=(-DCMAKE_CXX_COMPILER="$SANITIZE_CXX")
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

echo "== sanitize 1/3: ASan + UBSan build, every test (unit, CLI, install) =="
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${compiler[@]}" "${launcher[@]}" \
  -DC3_SANITIZE=address,undefined -DC3_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ctest --test-dir build-asan --output-on-failure -j"$jobs"

echo "== sanitize 2/3: TSan build, one Advisor shared by 8 threads (C++ and C API) =="
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${compiler[@]}" "${launcher[@]}" \
  -DC3_SANITIZE=thread -DC3_BUILD_BENCH=OFF -DC3_BUILD_PYTHON=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target c3_unit_tests c3_capi_threads
ctest --test-dir build-tsan --output-on-failure -R '^(AdvisorThreads\.|CApiThreads$)' --no-tests=error

if [[ "${SANITIZE_SKIP_FUZZ:-0}" != 1 ]]; then
  echo "== sanitize 3/3: fuzzers, ${FUZZ_SECONDS:-30}s each =="
  scripts/fuzz.sh
fi
echo "sanitize.sh: passed in $(( $(date +%s) - start ))s"
