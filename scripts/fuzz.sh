#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang, ASan and UBSan (C3_BUILD_FUZZ=ON,
# C3_SANITIZE=address,undefined), replays their seeds once (ctest), then runs each
# target for FUZZ_SECONDS. Exits non-zero when a seed fails or a target finds something
# (the input is saved under BUILD/fuzz/artifacts/). fuzz/README.md explains the targets.
#
# Usage: scripts/fuzz.sh [TARGET...]     (default: every target; names as in fuzz/: advise,
#                                          parse, profile, raw_measurements, report_charts,
#                                          scenarios, trace, validate)
# Environment:
#   FUZZ_SECONDS=30          time per target
#   FUZZ_BUILD_DIR=build-fuzz
#   FUZZ_CXX=clang++         the compiler (clang++-14 works)
#   FUZZ_RESULTS_DIR=        when set, each run's final libFuzzer statistics go to
#                            FUZZ_RESULTS_DIR/fuzz-TARGET-DATE.txt (fuzz/results/ keeps those
#                            of the long runs)
#   FUZZ_NICE=0              niceness of the fuzzing processes
#   FUZZ_BUILD_ONLY=1        build and replay the seeds, no fuzzing
#   FUZZ_NO_BUILD=1          fuzz with the fuzzers already built (e.g. a second fuzz.sh
#                            beside a first one, on other targets)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${FUZZ_SECONDS:-30}
build=${FUZZ_BUILD_DIR:-build-fuzz}
cxx=${FUZZ_CXX:-clang++}
nice_level=${FUZZ_NICE:-0}
jobs=$(nproc)

if ! command -v "$cxx" >/dev/null; then
  echo "fuzz.sh: $cxx not found: the fuzzers need clang (scripts/deps.sh sanitize installs it)" >&2
  exit 2
fi
# Findings are fatal and reported with a stack (libFuzzer sets its own ASan options too).
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

if [[ "${FUZZ_NO_BUILD:-0}" != 1 ]]; then
  launcher=()
  if command -v ccache >/dev/null; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  echo "== fuzz: building the fuzzers ($cxx, address,undefined) in $build =="
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
    "${launcher[@]}" -DC3_BUILD_FUZZ=ON -DC3_SANITIZE=address,undefined -DC3_BUILD_TESTS=OFF \
    -DC3_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" -j"$jobs"
  echo "== fuzz: replaying every seed once =="
  ctest --test-dir "$build/fuzz" --output-on-failure -j"$jobs"
fi
[[ "${FUZZ_BUILD_ONLY:-0}" == 1 ]] && exit 0

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$build"/fuzz/seeds-*.txt; do
    t=${f##*/seeds-}
    targets+=("${t%.txt}")
  done
fi

failed=()
date_tag=$(date +%Y-%m-%d)
sha=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  [[ -x "$bin" ]] || { echo "fuzz.sh: no target '$t' ($bin)" >&2; exit 2; }
  mapfile -t seeds < "$build/fuzz/seeds-$t.txt"
  mapfile -t options < <(grep -v '^$' "$build/fuzz/options-$t.txt" || true)
  corpus="$build/fuzz/corpus/$t"
  artifacts="$build/fuzz/artifacts"
  log="$build/fuzz/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "${log%/*}"
  echo "== fuzz: $t for ${seconds}s (log $log) =="
  rc=0
  nice -n "$nice_level" "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "${options[@]}" "$corpus" "${seeds[@]}" \
    >"$log" 2>&1 || rc=$?
  status=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -n 1 || true)
  echo "   $status"
  [[ -n "$done_line" ]] && echo "   $done_line"
  if ((rc != 0)); then
    failed+=("$t")
    echo "   FINDING (exit $rc): the end of $log:" >&2
    tail -n 40 "$log" >&2
  fi
  if [[ -n "${FUZZ_RESULTS_DIR:-}" ]]; then
    mkdir -p "$FUZZ_RESULTS_DIR"
    {
      echo "target:   fuzz_$t"
      echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
      echo "commit:   $sha"
      echo "build:    $cxx, C3_SANITIZE=address,undefined, RelWithDebInfo"
      echo "run:      ${seconds}s, niceness $nice_level, on $(nproc) shared cores"
      echo "outcome:  $( ((rc == 0)) && echo "no finding" || echo "FINDING, exit $rc")"
      echo "last status line:"
      echo "  $status"
      [[ -n "$done_line" ]] && echo "  $done_line"
      grep -E '^stat::' "$log" | sed 's/^/  /' || true
      if ((rc != 0)); then
        echo "finding:"
        grep -E 'c3 fuzz finding|ERROR: (Address|Undefined|libFuzzer)|runtime error|SUMMARY|Test unit written' "$log" |
          head -n 8 | sed 's/^/  /' || true
      fi
    } >"$FUZZ_RESULTS_DIR/fuzz-$t-$date_tag.txt"
  fi
done
if ((${#failed[@]})); then
  echo "fuzz.sh: findings in: ${failed[*]} (inputs under $build/fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz.sh: no finding in ${#targets[@]} targets, ${seconds}s each"
