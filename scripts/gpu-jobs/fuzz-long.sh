#!/usr/bin/env bash
# The long fuzzing runs of issue 14 on a machine with many cores (the GPU machines have 16;
# no GPU is used): every fuzzer of a carried build at once, SECONDS each, under the ASan +
# UBSan instrumentation it was built with. Results: $OUT/fuzz-results.tgz (each target's
# final libFuzzer statistics and log tail, and any finding's input).
#
#   tar -C build-asan/fuzz -cJf .fuzzcarry/fuzzers.tar.xz fuzz_* seeds seeds-*.txt options-*.txt
#   (+ the shared libraries they need, in lib/)            # on the development machine
#   scripts/gpu-jobs/fuzz-long.sh SECONDS [WORKERS]         # on the machine, carry .fuzzcarry
set -uo pipefail
seconds=${1:-600}
workers=${2:-1}   # > 1: libFuzzer's fork mode, that many processes per target (-fork=N)
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:?}
work=/tmp/c3-fuzz
rm -rf "$work" && mkdir -p "$work" "$out/fuzz-results"
tar -C "$work" -xJf "$root/.fuzzcarry/fuzzers.tar.xz"
# Seeds written by the build were listed under the build directory: now they are here.
sed -i "s#^.*/build-asan/fuzz/#$work/#" "$work"/seeds-*.txt
export LD_LIBRARY_PATH="$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
sha=$(cat "$work/COMMIT" 2>/dev/null || echo unknown)
pids=()
for bin in "$work"/fuzz_*; do
  t=${bin##*/fuzz_}
  mapfile -t seeds < "$work/seeds-$t.txt"
  mapfile -t options < <(grep -v '^$' "$work/options-$t.txt" || true)
  corpus="$work/corpus/$t"
  mkdir -p "$corpus" "$out/fuzz-results/artifacts"
  fork=()
  ((workers > 1)) && fork=(-fork="$workers")
  (
    "$bin" "${fork[@]}" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
      -artifact_prefix="$out/fuzz-results/artifacts/$t-" "${options[@]}" "$corpus" "${seeds[@]}" \
      >"$work/$t.log" 2>&1
    rc=$?
    {
      echo "target:   fuzz_$t"
      echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
      echo "commit:   $sha"
      echo "build:    clang++-14, C3_SANITIZE=address,undefined, C3_BUILD_FUZZ=ON, RelWithDebInfo (scripts/sanitize.sh's build-asan)"
      echo "run:      ${seconds}s x ${workers} process(es) on $(hostname) ($(nproc) cores, every target at once; a GPU machine of the device tool, no GPU used)"
      echo "outcome:  $( ((rc == 0)) && echo "no finding" || echo "FINDING, exit $rc")"
      echo "last status line:"
      grep -E '^#[0-9]+' "$work/$t.log" | tail -n 1 | sed 's/^/  /'
      grep -E '^Done [0-9]+ runs' "$work/$t.log" | tail -n 1 | sed 's/^/  /'
      grep -E '^stat::' "$work/$t.log" | sed 's/^/  /'
      if ((rc != 0)); then
        echo "finding:"
        grep -E 'c3 fuzz finding|ERROR: (Address|Undefined|libFuzzer)|runtime error|SUMMARY|Test unit written' "$work/$t.log" | head -n 8 | sed 's/^/  /'
      fi
    } >"$out/fuzz-results/fuzz-$t-$(date -u +%Y-%m-%d).txt"
    echo "fuzz_$t: exit $rc"
  ) &
  pids+=($!)
done
wait "${pids[@]}"
tar -C "$out" -czf "$out/fuzz-results.tgz" fuzz-results && rm -rf "$out/fuzz-results"
