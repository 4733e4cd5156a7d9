#!/usr/bin/env bash
# GPU fault injection (docs/reliability.md): a `calibrate --quick` run on cuda:N in which one
# measurement fails for real (cuda option fault=oom@AT: cudaMalloc of more than the GPU has;
# fault=timeout@AT: that measurement under a 0.1 ms watchdog), then `--resume` without the
# fault in a fresh process. Runs on the GPU machine through scripts/gpu-run.sh:
#   scripts/gpu-run.sh --no-tests -- scripts/gpu-jobs/reliability.sh [GPUS] [OOM_AT] [TIMEOUT_AT]
# OOM_AT (default 5) and TIMEOUT_AT (default 34) count measurements in the order of the
# quick plan; the timeout needs a measurement longer than the 0.1 ms watchdog (on 2 GPUs the
# 34th is a 256 MiB all-gather, ~0.6 ms; the 5th, a 4 KiB one, ends before the watchdog looks).
# Set C3_GIT_SHA to the commit (the GPU machine's copy has no usable .git).
# Everything lands in $OUT/reliability.tar.gz (the device tool returns at most 8 files):
# fault-{oom,timeout}.{first.raw.json,raw.json,yaml,log,resume.log} and summary.txt.
set -uo pipefail
gpus=${1:-2}
oom_at=${2:-5}
timeout_at=${3:-34}
OUT=${OUT:-gpu-out}
work=$(mktemp -d)
common=(--gpus "$gpus" --quick --runs 2 --warmup 1 --base-profile h200_sxm)
for fault in oom timeout; do
  at=$oom_at
  [[ $fault == timeout ]] && at=$timeout_at
  p=$work/fault-$fault
  echo "== $fault@$at: calibrate" | tee -a "$work/summary.txt"
  c3advisor calibrate --backend "cuda:$gpus,fault=$fault@$at" "${common[@]}" --out "$p.yaml" \
    --raw "$p.raw.json" >"$p.log" 2>&1
  echo "exit status $?" | tee -a "$p.log" "$work/summary.txt"
  tail -2 "$p.log" | tee -a "$work/summary.txt"
  cp "$p.raw.json" "$p.first.raw.json" 2>/dev/null
  echo "== $fault@$at: calibrate --resume (no fault)" | tee -a "$work/summary.txt"
  c3advisor calibrate --backend "cuda:$gpus" "${common[@]}" --out "$p.yaml" --raw "$p.raw.json" \
    --resume >"$p.resume.log" 2>&1
  echo "exit status $?" | tee -a "$p.resume.log" "$work/summary.txt"
  tail -2 "$p.resume.log" | tee -a "$work/summary.txt"
  python3 - "$p.first.raw.json" "$p.raw.json" <<'PY' | tee -a "$work/summary.txt"
import json, sys
first, final = (json.load(open(f))["records"] for f in sys.argv[1:3])
failed = [(i + 1, r.get("error", "")) for i, r in enumerate(first) if not r.get("ok")]
print(f"first run: {len(first)} records, {len(failed)} failed")
for i, e in failed[:3]:
    print(f"  record {i}: {e[:160]}")
if len(failed) > 3:
    print(f"  ... and {len(failed) - 3} more, the first: {failed[3][1][:80]}")
ok_final = sum(1 for r in final if r.get("ok"))
print(f"after --resume: {len(final)} records, {ok_final} ok, {len(final) - ok_final} failed")
PY
done
tar -czf "$OUT/reliability.tar.gz" -C "$work" .
