// views/paper_figures.hpp: figures published by the ConCCL paper ("Optimizing ML
// Concurrent Computation and Communication with GPU DMA Engines", AMD, measured on 8x
// MI300X) that the views draw for comparison (docs/accuracy.md quotes the same figures).
#pragma once

#include <string_view>

namespace c3::validator {

/// A published mean fraction of the ideal speedup realized, over all of the paper's pairs.
struct PaperFigure {
  std::string_view series;  ///< the column of validate's summary it compares with
  double fraction_of_ideal;
};

/// The paper's averages on 8x MI300X per strategy family: base 21%, launch order (sp)
/// 42%, CU partitioning (best rp) 41%, DMA 66%, DMA with 8 CUs taken from memory-bound
/// GEMMs (best dma_rp) 72%.
inline constexpr PaperFigure kPaperMi300xFractions[] = {
    {"base", 0.21}, {"sp", 0.42}, {"rp(best)", 0.41}, {"dma", 0.66}, {"dma_rp(best)", 0.72}};

/// The paper's other published MI300X figures that `validate --scenarios paper` prints
/// beside the measured ones: the best CU-based variant (best of sp and rp per pair) 48% of
/// ideal; ConCCL_rp's largest speedup 1.67x; its CU-split heuristic right in 24 of 30
/// scenarios, losing at most 1.5% against the best split.
inline constexpr double kPaperMi300xBestCuBased = 0.48;
inline constexpr double kPaperMi300xLargestDmaRpSpeedup = 1.67;
inline constexpr int kPaperMi300xHeuristicRight = 24;
inline constexpr int kPaperMi300xHeuristicScenarios = 30;
inline constexpr double kPaperMi300xHeuristicWorstLoss = 0.015;

/// The legend entry of the marks drawn at these figures.
inline constexpr std::string_view kPaperMi300xLabel = "MI300X, paper (all)";

}  // namespace c3::validator
