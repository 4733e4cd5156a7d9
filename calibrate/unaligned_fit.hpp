// calibrate/unaligned_fit.hpp: the slower kernels of GEMMs whose operands are not aligned to
// 16 bytes (docs/model.md §1.1), fitted from isolated GEMM records of `measure` files
// (calibrate --unaligned-gemms).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "c3/measurements.hpp"
#include "c3/profile.hpp"

namespace c3::validator {

/// GEMMs an alignment needs to give a point of either table.
inline constexpr std::size_t kMinUnalignedPerPoint = 2;

/// The profile's gemm_unaligned_compute and gemm_unaligned_memory.
struct UnalignedFit {
  Table compute;
  Table memory;
};

/// From the ok, verified isolated GEMM records (no CUs removed) of `files` whose operands
/// are not aligned to 16 bytes (model::gemm_alignment_bytes) and whose median is at least
/// twice hw.gemm_latency_s (a shorter one is mostly its launch): per alignment, with the
/// aligned roofline terms r = model::gemm_aligned_roofline_s(hw, gemm) and busy = median -
/// gemm_latency_s, a compute-bound GEMM (r.compute_s >= r.memory_s) gives u_c =
/// r.compute_s / busy and a memory-bound one u_m = r.memory_s / busy, each held at <= 1.
/// An alignment with kMinUnalignedPerPoint values or more gives a point, x the alignment
/// and y their median; a table without a point is left empty (1: not fitted), and a note
/// says why. Tables are named "gemm_unaligned_compute" / "gemm_unaligned_memory" with
/// provenance `source`. `hw` must have its GEMM efficiencies and latency fitted.
UnalignedFit fit_unaligned_gemms(const HardwareProfile& hw, const std::vector<RawMeasurements>& files,
                                 const Provenance& source, std::vector<std::string>& notes);

}  // namespace c3::validator
