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

/// The profile's gemm_unaligned_compute, gemm_unaligned_memory and gemm_unaligned_latency_s.
struct UnalignedFit {
  Table compute;
  Table memory;
  Table latency_s;
};

/// From the ok, verified isolated GEMM records (no CUs removed) of `files` whose operands
/// are not aligned to 16 bytes (model::gemm_alignment_bytes), with the aligned roofline
/// terms r = model::gemm_aligned_roofline_s(hw, gemm) and L = hw.gemm_latency_s:
/// - throughput: a GEMM with max(r.compute_s, r.memory_s) >= L gives, with busy = median - L
///   - l_u (l_u its alignment's latency below, 0 in the first pass), u_c = r.compute_s /
///   busy when compute-bound (r.compute_s >= r.memory_s), else u_m = r.memory_s / busy, each
///   held at <= 1;
/// - latency: a GEMM with max(r.compute_s, r.memory_s) < L gives l_u = median - L -
///   max(r.compute_s / u_c, r.memory_s / u_m), its alignment's factors from the throughput
///   tables (1 where none);
/// the throughput pass is run again with the latencies (two passes in all). Each table has a
/// point per alignment with kMinUnalignedPerPoint values or more, x the alignment and y the
/// values' median (a latency median <= 0 gives no point: none added); a table without a
/// point is left empty (1, 1 and 0: not fitted), and a note says why. Named as the profile's
/// keys, provenance `source`. `hw` must have its GEMM efficiencies and latency fitted.
UnalignedFit fit_unaligned_gemms(const HardwareProfile& hw, const std::vector<RawMeasurements>& files,
                                 const Provenance& source, std::vector<std::string>& notes);

}  // namespace c3::validator
