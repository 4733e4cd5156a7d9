#!/usr/bin/env bash
# Leave-one-seed-out check of the hedge errors per family of dependent pairs (docs/model.md, "The
# recommendation") on the 21 host-paced dependent train seeds of 2x H200 (h200_hedge_sets of
# scripts/h200-fit-inputs.sh, each the median over its processes), with the real fit: for each
# seed, h200x2 is refit as scripts/refit-profiles.sh does but with --hedge-pairs of the other 20
# seeds, and scored on the seed it left out against its median and against each of its processes;
# beside it the profile without hedges. Prints the right counts and the picks more than 1% slower than serial (docs/accuracy.md,
# "Hedge errors per family of dependent pairs"). Train files only; the folds run at once
# (scripts/loso-lib.sh).
#
#   scripts/loso-hedges.sh [C3ADVISOR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source "$root/scripts/loso-lib.sh"
loso_init "${1:-build/c3advisor}"
# The h200x2 recipe of scripts/refit-profiles.sh, without its hedges.
loso_corrections_without none
loso_gemm_table
recipe=("${loso_corrections[@]}" "${loso_table[@]}" "${h200_dma_step[@]}")
loso_fit base "${recipe[@]}"
fold() {  # fold HELD_SET
  local held=$1 seed set hedges=()
  seed=$(loso_seed "$held")
  for set in "${h200_hedge_sets[@]}"; do [[ "$set" == "$held" ]] || hedges+=(--hedge-pairs "$set"); done
  loso_fit "h-$seed" "${recipe[@]}" "${hedges[@]}"
  loso_score base "$held" base
  loso_score "h-$seed" "$held" h
  local i=0 file loso_validate_args=(--skip-missing)  # a repeat may hold 20 of the 40 pairs
  for file in ${held//+/ }; do  # each process alone too
    i=$((i + 1))
    loso_score base "$file" base1 "-p$i"
    loso_score "h-$seed" "$file" h1 "-p$i"
  done
}
loso_folds fold "${h200_hedge_sets[@]}"
loso_summary base="one hedge error, against the median" h="per family, from the other 20 seeds, against the median" \
  base1="one hedge error, each process alone" h1="per family, each process alone"
