// backends/device/gemm_check.hpp: the sampled check of a GEMM's output against a
// double-precision host reference, vendor-neutral: which elements are sampled, what each
// must hold, and how far from it a correct bf16/fp16 output may be. The GPU backends fill
// A and B with the patterns (patterns.hpp), gather the sampled D elements on the device
// and hand them to compare().
//
// The GEMM is D[m x n] = op(A)[m x k] * B[k x n], "TN": A stored m rows of k, B stored n
// columns of k, D column-major (element (i, j) at j m + i).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "c3/types.hpp"

namespace c3::device {

/// The operand pattern's bits of a GEMM of dtype `t` (bf16 or fp16) at `index`.
std::uint16_t operand_bits(DType t, std::uint64_t seed, std::uint64_t index);
/// Decodes bf16 or fp16 bits (exact).
double decode(DType t, std::uint16_t bits);

class GemmCheck {
 public:
  /// `samples` output elements: the four corners first, then positions hashed from
  /// `epoch`; A and B hold the operand patterns of seed_a and seed_b.
  GemmCheck(const Gemm& gemm, int samples, std::uint32_t epoch, std::uint64_t seed_a, std::uint64_t seed_b);

  std::size_t size() const { return row_.size(); }
  /// Column-major indices into D of the samples (what the device gathers).
  const std::vector<std::int64_t>& indices() const { return index_; }
  /// Compares the gathered samples (bits, in indices() order) with the reference; returns
  /// the mismatches and describes the first in *first_error (when empty) as
  /// "GPU <device> D(i,j) = v, expected r (tolerance t)". Throws InputError when `got` has
  /// another size.
  std::int64_t compare(const std::vector<std::uint16_t>& got, int device, std::string* first_error) const;

 private:
  void reference() const;  // computed at the first compare
  Gemm gemm_;
  std::uint64_t seed_a_ = 0, seed_b_ = 0;
  std::vector<std::int64_t> row_, col_, index_;
  mutable std::vector<double> ref_, tol_;
};

}  // namespace c3::device
