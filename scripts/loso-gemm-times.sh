#!/usr/bin/env bash
# Leave-one-seed-out check of the GEMM times per shape (docs/model.md §1.2) on the 14 host-paced
# generated train seeds of 2x H200, with the real fit: for each seed, h200x2 is refit as
# scripts/refit-profiles.sh does but with --gemm-times of every host-paced train file of 2x H200
# except that seed's (scripts/train_gemm_files.py --exclude=-sSEED-), and scored on the seed's
# first process beside the same recipe without the table. Prints right counts, mean loss and the
# prediction error's median and p90, over all pairs and by the pair's serial time (at and above
# 100 us, under), and the isolated GEMM's error by its measured time (docs/accuracy.md, "GEMM
# times per shape"). Train files only; the folds run at once (scripts/loso-lib.sh).
#
# With --by-date, every file measured on the held seed's date (the date in its file name) is left
# out of the table with it: a GEMM's time moves with the machine lent that day (the host's launch
# pacing above all), which a seed measured the same day shares.
#
#   scripts/loso-gemm-times.sh [--by-date] [C3ADVISOR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source "$root/scripts/loso-lib.sh"
by_date=0
if [[ "${1:-}" == --by-date ]]; then by_date=1; shift; fi
loso_init "${1:-build/c3advisor}"
# The h200x2 recipe of scripts/refit-profiles.sh, without its table.
loso_fit base "${h200_corrections[@]}"
fold() {  # fold HELD_FILE
  local held=$1 seed left_out
  seed=$(loso_seed "$held")
  left_out="-s$seed-"
  ((by_date)) && left_out=$(sed -E 's/.*-h200x2-([0-9]{4}-[0-9]{2}-[0-9]{2}).*/\1/' <<< "$(basename "$held")")
  loso_gemm_table "-s$seed-" "$left_out"
  loso_fit "t-$seed" "${h200_corrections[@]}" "${loso_table[@]}"
  loso_score base "$held" base
  loso_score "t-$seed" "$held" t
}
loso_folds fold $m/generated-s1101-n160-h200x2-2026-11-23.json "${h200_correction_sets[@]}"
label="table without the seed's files"
((by_date)) && label="table without its date's files"
loso_summary --gemm-bands base="without the table" t="$label"
