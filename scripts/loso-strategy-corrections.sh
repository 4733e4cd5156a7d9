#!/usr/bin/env bash
# Leave-one-seed-out check of the strategy corrections (docs/model.md §4.7) on the 13 host-paced
# 2-rank train sets of 2x H200, with the real fit: for each seed, h200x2 is refit as
# scripts/refit-profiles.sh does but with --strategy-correction-pairs of the other 12 seeds, and
# scored on the seed it left out; beside it the profile without corrections. Prints the right
# counts, at and above 100 us too, and the mean loss (docs/accuracy.md, "Per-group corrections of
# the strategies, and the eighteenth test round"). Train files only; the folds run at once
# (scripts/loso-lib.sh).
#
#   scripts/loso-strategy-corrections.sh [C3ADVISOR] [-- EXTRA CALIBRATE ARGS, e.g. --strategy-correction-min-us 50]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source "$root/scripts/loso-lib.sh"
c3=build/c3advisor
if [[ $# -gt 0 && "$1" != "--" ]]; then c3=$1; shift; fi
[[ "${1:-}" == "--" ]] && shift
extra=("$@")
loso_init "$c3"
# The h200x2 recipe of scripts/refit-profiles.sh, without its corrections.
loso_fit base
fold() {  # fold HELD_FILE
  local held=$1 seed
  seed=$(loso_seed "$held")
  loso_corrections_without "$seed"
  loso_fit "c-$seed" "${loso_corrections[@]}" "${extra[@]}"
  loso_score base "$held" base
  loso_score "c-$seed" "$held" c
}
loso_folds fold "${h200_correction_sets[@]}"
loso_summary base="without corrections" c="corrections from the other 12 seeds"
