# The train inputs of the H200 profiles fitted from runner pairs (docs/calibration.md), sourced
# by scripts/refit-profiles.sh and the leave-one-seed-out checks (scripts/loso-lib.sh) so that all fit the same
# way. Expects $m (data/measurements) and $root (the checkout). Defines:
#   h200_pairs            --pairs / --batched-step-pairs / --sustained of h200x2 (and h200x2-torch)
#   h200_unaligned        --unaligned-gemms of the H200 profiles
#   h200_correction_sets  the files of h200x2's --strategy-correction-pairs, one per seed
#   h200_corrections      the same as --strategy-correction-pairs arguments
#   h200_hedge_sets       the sets of h200x2's --hedge-pairs, one per seed (its processes joined by +)
#   h200_hedge_files      the same as --hedge-pairs arguments
#   h200_partitions       --collective-partitions of the partition table (no shipped profile; scripts/loso-partition-table.sh)
#   h200_dma_step_sets    SCENARIOS=REPLAY sets of scripts/loso_dma_step.py (the queued copy-engine steps)
#   h200_dma_step         the chosen values as calibrate arguments (--dma-step-latency-us, --dma-step-min-us)
h200_pairs=(--pairs $m/paper-h200x2-2026-11-22.json --pairs $m/heldout-h200x2-2026-11-22.json
  --pairs $m/generated-s1101-n160-h200x2-2026-11-23.json --pairs $m/kernels-paper-h200x1-2026-11-23.json
  --pairs $m/kernels-heldout-h200x1-2026-11-23.json --pairs $m/kernels-generated-s1101-n160-h200x1-2026-11-23.json
  --pairs $m/dependent-s2201-n48-h200x2-2026-11-23.json --batched-step-pairs $m/dependent-gfc-s15701-n32-r1-h200x2-2026-11-26.json
  --sustained $m/sustained-gemms-s1101-h200x2-2026-11-26-run37.json)
# GEMMs with operands not aligned to 16 bytes (docs/model.md §1.1): the isolated GEMMs of the
# train files measured by `measure` (tn, the runner's layout), for the H200 profiles fitted from
# runner pairs; not h200x2-torch, whose pairs are PyTorch's (row-major operands), nor h100x2:
# its train files hold 3 such GEMMs long enough to fit, and refitting its pairs beside them moved
# the decision-fitted launch cost (36 -> 31 us) and lost 7 train decisions (docs/accuracy.md,
# "Unaligned GEMMs").
h200_unaligned=()
for f in generated-s1101-n160-h200x2-2026-11-23 generated-s3301-n128-h200x2-2026-11-23 generated-s6601-n128-h200x2-2026-11-23 \
  generated-s9901-n128-h200x2-2026-11-23 generated-s13301-n128-h200x2-2026-11-25 generated-s14301-n128-h200x2-2026-11-26 \
  generated-s14501-n128-h200x2-2026-11-26 generated-s14701-n128-h200x2-2026-11-26 kernels-generated-s1101-n160-h200x1-2026-11-23 \
  kernels-paper-h200x1-2026-11-23 kernels-heldout-h200x1-2026-11-23 kernels-unaligned-gemms-s19251-h200x1-2026-11-27; do
  h200_unaligned+=(--unaligned-gemms $m/$f.json)
done
# Per-group corrections of the independent strategies (docs/model.md §4.7), fitted last from the
# host-paced 2-rank train sets of 2x H200 (one process of each of 13 seeds; s1101 is in --pairs):
# h200x2 only. Chosen by leaving one seed out (docs/accuracy.md, "Per-group corrections of the
# strategies, and the eighteenth test round"); at 4 ranks, gated, the same lost decisions.
h200_correction_sets=()
for f in generated-s3301-n128-h200x2-2026-11-23 generated-s6601-n128-h200x2-2026-11-23 generated-s9901-n128-h200x2-2026-11-23 \
  generated-s13301-n128-h200x2-2026-11-25 generated-s14301-n128-h200x2-2026-11-26 generated-s14501-n128-h200x2-2026-11-26 \
  generated-s14701-n128-h200x2-2026-11-26 generated-s14901-n128-h200x2-2026-11-26 generated-s15101-n128-h200x2-2026-11-26 \
  generated-s15301-n128-h200x2-2026-11-26 generated-s15501-n128-h200x2-2026-11-26 generated-s16801-n128-h200x2-2026-11-26 \
  generated-s17001-n128-h200x2-2026-11-26; do
  h200_correction_sets+=($m/$f.json)
done
h200_corrections=()
for f in "${h200_correction_sets[@]}"; do h200_corrections+=(--strategy-correction-pairs "$f"); done
# Isolated GEMM times per shape (docs/model.md §1.2): every host-paced train file of data/splits.yaml
# measured by the runner on 2x H200 (scripts/train_gemm_files.py), fitted last, h200x2 only. Chosen by
# leaving one seed out over the 14 host-paced generated train seeds (docs/accuracy.md, "GEMM times
# per shape"). The list follows data/splits.yaml: a test file that becomes train joins it at the
# next refit.
# (An assignment, so that a failing list stops a script under set -e.)
h200_gemm_time_files=$(python3 "$root/scripts/train_gemm_files.py" "NVIDIA H200 x2")
h200_gemm_times=()
while IFS= read -r f; do h200_gemm_times+=(--gemm-times "$f"); done <<< "$h200_gemm_time_files"
# The collective's slowdown in a partition by size (docs/model.md §3): the isolated collectives of
# three train seeds on 1-4 of the partitions' CU counts (measure --isolated-only
# --collective-partitions), fitted after the pairs. Not in h200x2: judged on train it keeps the
# host-paced decisions (each generated seed left out, scripts/loso-partition-table.sh) but loses
# gated pairs priced --chained (docs/accuracy.md, "The collective's slowdown by size after the pairs").
h200_partitions=()
for seed in 3301 6601 9901; do h200_partitions+=(--collective-partitions $m/isolated-s$seed-h200x2-2026-11-27.json); done
# The hedge errors per family of dependent pairs (docs/model.md "The recommendation"): fitted last
# from the 42 host-paced dependent train files of 2x H200 with 40 pairs (21 seeds; not the gated
# files, not the 20-pair protocol files), each seed one set: the median over its processes (as the
# test rounds are scored), h200x2 only. Chosen by leaving one seed out on them (docs/accuracy.md,
# "Hedge errors per family of dependent pairs").
h200_hedge_sets=(
  $m/dependent-s8801-n40-h200x2-2026-11-23.json+$m/dependent-s8801-n40-repeat1-h200x2-2026-11-23.json+$m/dependent-s8801-n40-repeat2-h200x2-2026-11-23.json
  $m/dependent-s13401-n40-h200x2-2026-11-25.json+$m/dependent-s13401-n40-repeat1-h200x2-2026-11-25.json+$m/dependent-s13401-n40-repeat2-h200x2-2026-11-25.json
  $m/dependent-s14801-n40-h200x2-2026-11-26.json
  $m/dependent-s15201-n40-h200x2-2026-11-26.json
  $m/dependent-s15401-n40-rounds3-h200x2-2026-11-26.json+$m/dependent-s15401-n40-blocked-h200x2-2026-11-26.json
  $m/dependent-s15601-n40-h200x2-2026-11-26.json
  $m/dependent-s17101-n40-h200x2-2026-11-26.json+$m/dependent-s17101-n40-repeat1-h200x2-2026-11-26.json+$m/dependent-s17101-n40-repeat2-h200x2-2026-11-26.json
  $m/dependent-s19301-n40-h200x2-2026-11-27.json+$m/dependent-s19301-n40-repeat1-h200x2-2026-11-27.json
  $m/dependent-s19601-n40-h200x2-2026-11-27.json+$m/dependent-s19601-n40-repeat1-h200x2-2026-11-27.json
  $m/dependent-s20101-n40-h200x2-2026-11-27.json+$m/dependent-s20101-n40-repeat1-h200x2-2026-11-27.json
  $m/dependent-s20301-n40-h200x2-2026-11-27.json+$m/dependent-s20301-n40-repeat1-h200x2-2026-11-27.json
  $m/dependent-s20501-n40-h200x2-2026-11-27.json+$m/dependent-s20501-n40-repeat1-h200x2-2026-11-27.json
  $m/dependent-s20701-n40-h200x2-2026-11-28.json+$m/dependent-s20701-n40-repeat1-h200x2-2026-11-28.json
  $m/dependent-s20901-n40-h200x2-2026-11-28.json+$m/dependent-s20901-n40-repeat1-h200x2-2026-11-28.json
  $m/dependent-s21101-n40-h200x2-2026-11-28.json+$m/dependent-s21101-n40-repeat1-h200x2-2026-11-28.json
  $m/dependent-s21301-n40-h200x2-2026-11-28.json+$m/dependent-s21301-n40-repeat1-h200x2-2026-11-28.json
  $m/dependent-s21501-n40-h200x2-2026-11-28.json+$m/dependent-s21501-n40-repeat1-h200x2-2026-11-28.json
  $m/dependent-s21701-n40-h200x2-2026-11-28.json+$m/dependent-s21701-n40-repeat1-h200x2-2026-11-28.json
  $m/dependent-s21901-n40-h200x2-2026-11-28.json+$m/dependent-s21901-n40-repeat1-h200x2-2026-11-28.json
  $m/dependent-s22201-n40-h200x2-2026-11-28.json+$m/dependent-s22201-n40-repeat1-h200x2-2026-11-28.json
  $m/dependent-s22401-n40-h200x2-2026-11-28.json+$m/dependent-s22401-n40-repeat1-h200x2-2026-11-28.json)
h200_hedge_files=()
for set in "${h200_hedge_sets[@]}"; do h200_hedge_files+=(--hedge-pairs "$set"); done
# The queued copy-engine steps' terms of h200x2 (docs/model.md §7.3), chosen after the other terms by leaving one
# set out (scripts/loso_dma_step.py), on the hedge sets and the thirty-eighth round's two
# dependent sets of models no other set had (train since they guided the choice, 2026-11-29):
# SCENARIOS=REPLAY arguments. refit-profiles.sh passes the chosen values to calibrate.
h200_dma_step_sets=()
for set in "${h200_hedge_sets[@]}" \
  $m/dependent-s25701-n40-h200x2-2026-11-29.json+$m/dependent-s25701-n40-repeat1-h200x2-2026-11-29.json+$m/dependent-s25701-n40-repeat2-h200x2-2026-11-29.json \
  $m/dependent-s25801-n40-h200x2-2026-11-29.json+$m/dependent-s25801-n40-repeat1-h200x2-2026-11-29.json+$m/dependent-s25801-n40-repeat2-h200x2-2026-11-29.json; do
  first=${set%%+*}
  seed=${first##*/dependent-s}
  h200_dma_step_sets+=("data/scenarios/dependent-s${seed%%-*}-n40.yaml=$set")
done
h200_dma_step=(--dma-step-latency-us 3 --dma-step-min-us 50)
