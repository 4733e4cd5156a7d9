# The fold driver of the leave-one-seed-out checks of h200x2 (scripts/loso-*.sh), sourced by each:
# every check refits h200x2 from the train files of scripts/refit-profiles.sh with one seed's files
# left out of what it judges, scores the seed it left out, and prints a summary
# (scripts/loso_summary.py). Train files only; everything is written under a temporary folder,
# removed on exit unless a fold failed (then its logs stay and their folder is named).
#
#   root=...; source "$root/scripts/loso-lib.sh"
#   loso_init C3ADVISOR                 sets c3, m, work, loso_recipe (h200x2's recipe without its
#                                       strategy corrections, GEMM times or partition table) and
#                                       the inputs of scripts/h200-fit-inputs.sh
#   loso_seed FILE / loso_stem FILE     the seed and the scenario file's stem of a measured file
#                                       (or of a set A+B+C: its last file's)
#   loso_gemm_table TEXT...             sets loso_table: --gemm-times of every host-paced 2x H200
#                                       train file whose path contains none of TEXT
#   loso_corrections_without SEED       sets loso_corrections: --strategy-correction-pairs of the
#                                       correction seeds but SEED
#   loso_fit NAME ARGS...               calibrate loso_recipe ARGS into $work/NAME.yaml
#   loso_score NAME HELD TAG [SUFFIX]   validate $work/NAME.yaml on HELD into $work/v-TAG-SEED[SUFFIX].json
#                                       (with loso_validate_args, empty unless a check sets it)
#   loso_folds FUNCTION FILE...         FUNCTION FILE for each file, all at once; fails if any does
#   loso_summary [OPTIONS] TAG=LABEL... scripts/loso_summary.py over $work's v-TAG-*.json
loso_init() {
  c3=$(realpath "${1:-build/c3advisor}")
  m=data/measurements
  loso_validate_args=()  # more options of loso_score's validate (e.g. --skip-missing)
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  source "$root/scripts/h200-fit-inputs.sh"
  loso_recipe=(calibrate --backend replay:$m/calibration-h200x2-2026-11-22.json --gpus 2 --name h200x2
    --base-profile h200_sxm --runs 9 --warmup 6 --dma-variant ce_push_batch_ovl "${h200_pairs[@]}"
    "${h200_unaligned[@]}")
}
loso_seed() { basename "$1" | sed -E 's/^[a-z]+-s([0-9]+)-.*/\1/'; }
loso_stem() { basename "$1" | sed -E 's/-h200x2-.*//; s/-(repeat[0-9]+|blocked|rounds[0-9]+)$//'; }
loso_gemm_table() {
  local excludes=() text f files
  for text in "$@"; do excludes+=(--exclude="$text"); done
  files=$(python3 "$root/scripts/train_gemm_files.py" "${excludes[@]}" "NVIDIA H200 x2")
  loso_table=()
  while IFS= read -r f; do loso_table+=(--gemm-times "$f"); done <<< "$files"
}
loso_corrections_without() {
  local f
  loso_corrections=()
  for f in "${h200_correction_sets[@]}"; do
    [[ "$f" == *"-s$1-"* ]] || loso_corrections+=(--strategy-correction-pairs "$f")
  done
}
loso_fit() {
  local name=$1
  shift
  "$c3" "${loso_recipe[@]}" "$@" --out "$work/$name.yaml" --raw "$work/$name.raw.json" > "$work/$name.log" 2>&1
}
loso_score() {
  local name=$1 held=$2 tag=$3 suffix=${4:-}
  "$c3" validate --profile "$work/$name.yaml" --ranks 2 --scenarios "data/scenarios/$(loso_stem "$held").yaml" \
    --backend replay:"$held" --json "${loso_validate_args[@]}" > "$work/v-$tag-$(loso_seed "$held")$suffix.json"
}
loso_folds() {
  local fn=$1 held pid failed=0 pids=()
  shift
  for held in "$@"; do
    echo "$(basename "$0"): seed $(loso_seed "$held") left out" >&2
    "$fn" "$held" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  if ((failed)); then
    echo "$(basename "$0"): a fold failed (logs in $work)" >&2
    trap - EXIT
    exit 1
  fi
}
loso_summary() { python3 "$root/scripts/loso_summary.py" --work "$work" "$@"; }
