#!/usr/bin/env bash
# Leave-one-seed-out check of the collective's slowdown in a partition by size (docs/model.md §3,
# `calibrate --collective-partitions`, fitted after the pairs) on the 14 host-paced generated train
# seeds of 2x H200, with the real fit. For each seed, h200x2 is refit as scripts/refit-profiles.sh
# does, the seed's files left out of --gemm-times (scripts/train_gemm_files.py --exclude=-sSEED-)
# and out of --strategy-correction-pairs (s1101 stays in --pairs), once without the table and once
# with it (h200_partitions of scripts/h200-fit-inputs.sh), and scored on the seed's first process.
# Prints per recipe the right decisions, the mean loss, the picks more than 1% slower than serial,
# and the prediction error's median / p90 over all strategies and by the pair's serial time (at
# and above 100 us, under), and the median error per strategy family at and above 100 us
# (docs/accuracy.md, "The collective's slowdown by size after the pairs"). The three seeds whose
# isolated collectives give the table (3301, 6601, 9901) are among the folds: their pairs are
# left out, their isolated partitions are not. Train files only; the folds run at once
# (scripts/loso-lib.sh); about 3 minutes on 16 cores.
#
#   scripts/loso-partition-table.sh [C3ADVISOR]      (default: build/c3advisor)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source "$root/scripts/loso-lib.sh"
loso_init "${1:-build/c3advisor}"
fold() {  # fold HELD_FILE
  local held=$1 seed
  seed=$(loso_seed "$held")
  loso_gemm_table "-s$seed-"
  loso_corrections_without "$seed"
  loso_fit "without-$seed" "${loso_corrections[@]}" "${loso_table[@]}"
  loso_fit "with-$seed" "${loso_corrections[@]}" "${loso_table[@]}" "${h200_partitions[@]}"
  loso_score "without-$seed" "$held" without
  loso_score "with-$seed" "$held" with
}
loso_folds fold $m/generated-s1101-n160-h200x2-2026-11-23.json "${h200_correction_sets[@]}"
loso_summary --families without="without the table" with="with the table"
