// backends/device/gemm_check.cpp: sampled GEMM checks against a host reference (gemm_check.hpp).
#include "backends/device/gemm_check.hpp"

#include <cmath>
#include <sstream>

#include "c3/errors.hpp"
#include "backends/device/patterns.hpp"

namespace c3::device {

std::uint16_t operand_bits(DType t, std::uint64_t seed, std::uint64_t index) {
  return t == DType::fp16 ? pattern::gemm_fp16_bits(seed, index) : pattern::gemm_bf16_bits(seed, index);
}

double decode(DType t, std::uint16_t bits) {
  return t == DType::fp16 ? pattern::fp16_to_double(bits) : pattern::bf16_to_double(bits);
}

GemmCheck::GemmCheck(const Gemm& gemm, int samples, std::uint32_t epoch, std::uint64_t seed_a, std::uint64_t seed_b)
    : gemm_(gemm), seed_a_(seed_a), seed_b_(seed_b) {
  const auto m = static_cast<std::uint64_t>(gemm.m);
  const auto n = static_cast<std::uint64_t>(gemm.n);
  const std::int64_t corners_i[4] = {0, gemm.m - 1, 0, gemm.m - 1};
  const std::int64_t corners_j[4] = {0, gemm.n - 1, gemm.n - 1, 0};
  for (int s = 0; s < samples; ++s) {
    if (s < 4) {
      row_.push_back(corners_i[s]);
      col_.push_back(corners_j[s]);
    } else {
      row_.push_back(static_cast<std::int64_t>(pattern::mix64(epoch * 977 + s) % m));
      col_.push_back(static_cast<std::int64_t>(pattern::mix64(epoch * 131 + s + 7) % n));
    }
  }
  for (std::size_t s = 0; s < row_.size(); ++s) index_.push_back(col_[s] * gemm.m + row_[s]);
}

void GemmCheck::reference() const {
  if (ref_.size() == row_.size()) return;
  // Output rounding (bf16: 2^-8 relative, fp16: 2^-11) plus a small share of the
  // accumulation's natural scale; a wrong element is off by about that scale.
  const double rel = gemm_.dtype == DType::fp16 ? 1.0 / 1024 : 1.0 / 128;
  const auto k = static_cast<std::uint64_t>(gemm_.k);
  ref_.clear();
  tol_.clear();
  for (std::size_t s = 0; s < row_.size(); ++s) {
    double acc = 0, sq = 0;
    const std::uint64_t ai = static_cast<std::uint64_t>(row_[s]) * k;
    const std::uint64_t bj = static_cast<std::uint64_t>(col_[s]) * k;
    for (std::uint64_t l = 0; l < k; ++l) {
      const double prod = decode(gemm_.dtype, operand_bits(gemm_.dtype, seed_a_, ai + l)) *
                          decode(gemm_.dtype, operand_bits(gemm_.dtype, seed_b_, bj + l));
      acc += prod;
      sq += prod * prod;
    }
    ref_.push_back(acc);
    tol_.push_back(rel * std::fabs(acc) + 1e-2 * std::sqrt(sq) + 1e-6);
  }
}

std::int64_t GemmCheck::compare(const std::vector<std::uint16_t>& got, int device, std::string* first_error) const {
  if (got.size() != row_.size())
    throw InputError("GEMM check: " + std::to_string(got.size()) + " samples gathered, " +
                     std::to_string(row_.size()) + " expected");
  reference();
  std::int64_t bad = 0;
  for (std::size_t s = 0; s < got.size(); ++s) {
    const double v = decode(gemm_.dtype, got[s]);
    if (std::fabs(v - ref_[s]) <= tol_[s]) continue;  // NaN fails too
    ++bad;
    if (first_error && first_error->empty()) {
      std::ostringstream os;
      os << "GPU " << device << " D(" << row_[s] << "," << col_[s] << ") = " << v << ", expected " << ref_[s]
         << " (tolerance " << tol_[s] << ")";
      *first_error = os.str();
    }
  }
  return bad;
}

}  // namespace c3::device
