#!/usr/bin/env bash
# Measures again, with more runs, the pairs of a measured file whose fastest strategy took
# under 100 us (decode pairs, where 9 runs leave a spread of 30%: docs/accuracy.md, "How many
# runs a decode pair needs"), each time in its own process, through scripts/gpu-run.sh:
#
#   scripts/gpu-run.sh --no-tests -- scripts/gpu-jobs/small-pairs.sh N RAW SCENARIOS NAME [PROCESSES]
#
# RAW: a raw measurement file of SCENARIOS (e.g. $OUT/NAME-of-pairs.sh.json); writes
# $OUT/NAME-r1.json ... -rPROCESSES.json (default 2; a NAME holding "{r}" gets r1, r2, ... there
# instead, e.g. STEM-small-runs60-{r}-h200x2-DATE) with --runs 60 --warmup 20 (C3_SMALL_RUNS,
# C3_SMALL_WARMUP) and the strategies of pairs.sh. C3_SMALL_US (default 100) is the bound.
set -uo pipefail
n=${1:?GPU count}
raw=${2:?raw measurement file}
scenarios=${3:?scenarios YAML}
name=${4:?output name}
processes=${5:-2}
out=${OUT:?}
# The pairs' names: validate matches the file's records to the scenarios (any profile will do).
only=$(c3advisor validate --profile "${C3_MEASURE_PROFILE:-h200_sxm}" --backend "replay:$raw" --scenarios "$scenarios" \
  --ranks "$n" --skip-missing --json | python3 -c '
import json, sys
bound = float(sys.argv[1]) * 1e-6
doc = json.load(sys.stdin)
names = [s["name"] for s in doc["scenarios"]
         if min((x["measured_s"] for x in s["strategies"] if x.get("measured_s")), default=1.0) < bound]
print(",".join(names))' "${C3_SMALL_US:-100}")
[[ -n "$only" ]] || { echo "small-pairs.sh: no pair of $raw under ${C3_SMALL_US:-100} us" >&2; exit 0; }
echo "== $(date -u +%H:%M:%S) $name: $(tr ',' '\n' <<<"$only" | wc -l) pairs"
for ((p = 1; p <= processes; ++p)); do
  if [[ "$name" == *"{r}"* ]]; then file=${name//\{r\}/r$p}; else file=$name-r$p; fi
  c3advisor measure --backend "cuda:$n" --profile "${C3_MEASURE_PROFILE:-h200_sxm}" --scenarios "$scenarios" \
    --out "$out/$file.json" --rp 8,16,32,64 --dma-rp 8,16,32 --runs "${C3_SMALL_RUNS:-60}" \
    --warmup "${C3_SMALL_WARMUP:-20}" --ranks "$n" --dma-variant ce_push_batch_ovl --only "$only" 2>>"$out/$file.log"
  echo "== $(date -u +%H:%M:%S) $file: exit $?"
done
