#!/usr/bin/env bash
# Prints, as a Markdown table, each scenario's dma against sp from a measured replay file:
# isolated collective on NCCL and on the copy engines, the pair under sp and under dma,
# and the fraction of the ideal overlap each realizes (docs/collectives.md, "C3 under the
# new collectives"). Needs jq and a built c3advisor (C3ADVISOR, default build/c3advisor).
#
#   scripts/dma-vs-sp.sh PROFILE REPLAY.json [RANKS] [SCENARIOS]
set -euo pipefail
profile=${1:?profile}
replay=${2:?replay file}
ranks=${3:-2}
scenarios=${4:-paper}
c3=${C3ADVISOR:-build/c3advisor}
"$c3" validate --profile "$profile" --backend "replay:$replay" --scenarios "$scenarios" --ranks "$ranks" --json |
  jq -r '
    def ms: . * 1000 | . * 100 | round / 100 | tostring;
    def pct: . * 100 | round | tostring + "%";
    def strat($n): (.strategies[] | select(.name == $n));
    "| pair | collective | NCCL alone (ms) | CE alone (ms) | GEMM alone (ms) | sp (ms) | dma (ms) | dma / sp | sp: of ideal | dma: of ideal |",
    "|---|---|---|---|---|---|---|---|---|---|",
    (.scenarios[] | select(any(.strategies[]; .name == "dma")) |
      "| \(.name) | \(.collective.kind) | \(.measured_isolated.collective_s | ms) | \(.measured_isolated.collective_dma_s | ms) | \(.measured_isolated.gemm_s | ms) | \(strat("sp").measured_s | ms) | \(strat("dma").measured_s | ms) | \((strat("dma").measured_s / strat("sp").measured_s) * 100 | round / 100) | \(strat("sp").fraction_of_ideal | pct) | \(strat("dma").fraction_of_ideal | pct) |"),
    "",
    "mean fraction of ideal: sp \(.summary.fraction_of_ideal.overall.fraction_of_ideal.sp | pct), dma \(.summary.fraction_of_ideal.overall.fraction_of_ideal.dma | pct), advisor \(.summary.fraction_of_ideal.overall.fraction_of_ideal.advisor | pct), oracle \(.summary.fraction_of_ideal.overall.fraction_of_ideal.oracle | pct)"'
