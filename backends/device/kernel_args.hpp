// backends/device/kernel_args.hpp: what the GPU backends' own kernels (fill, check) compute,
// written once for device and host: the value a fill writes at an index and the value a
// check expects at an output index. backends/cuda/kernels.cu and backends/hip/kernels.hip
// hold only the kernels' launch shapes and reductions around these functions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/device/patterns.hpp"

namespace c3::device {

enum class FillKind : int {
  random_bits = 0,  ///< any finite non-zero bf16 (movement)
  small_int = 1,    ///< 1..31 (reductions)
  gemm_bf16 = 2,    ///< GEMM operands
  gemm_fp16 = 3,
};

enum class CheckKind : int {
  copy = 0,            ///< out[e] = random_bits(seed(rank0 role), offset + e)
  all_gather = 1,      ///< out[r*c + e] = random_bits(seed_r, e)
  all_to_all = 2,      ///< out on rank q: out[p*c + e] = random_bits(seed_p, q*c + e)
  reduce_scatter = 3,  ///< out on rank q: out[e] = sum_r small_int(seed_r, q*c + e)
  all_reduce = 4,      ///< out[e] = sum_r small_int(seed_r, e)
  operand = 5,         ///< out[e] = gemm_bf16 (fp16: gemm_fp16) pattern(copy_seed, copy_offset + e)
};

struct CheckArgs {
  CheckKind kind = CheckKind::copy;
  const std::uint16_t* out = nullptr;
  std::size_t count = 0;     ///< c: elements per rank chunk (copy: elements)
  int ranks = 1;
  int rank = 0;              ///< the rank whose output this is
  std::uint32_t role = 0;    ///< pattern::seed_for(role, r, epoch) gives rank r's input seed
  std::uint32_t epoch = 0;
  std::uint64_t copy_seed = 0;    ///< copy: the seed and index offset of the source
  std::uint64_t copy_offset = 0;
  bool fp16 = false;              ///< operand: the fp16 pattern rather than bf16
};

/// The 16 bits a fill of `kind` writes at pattern index `index`.
C3_HD std::uint16_t fill_value(FillKind kind, std::uint64_t seed, std::uint64_t index) {
  switch (kind) {
    case FillKind::small_int:
      return pattern::int_to_bf16_bits(pattern::small_int_value(seed, index));
    case FillKind::gemm_bf16:
      return pattern::gemm_bf16_bits(seed, index);
    case FillKind::gemm_fp16:
      return pattern::gemm_fp16_bits(seed, index);
    default:
      return pattern::random_bits(seed, index);
  }
}

/// The 16 bits a correct output holds at element `i` of `a.out`.
C3_HD std::uint16_t expected_value(const CheckArgs& a, std::size_t i) {
  using namespace pattern;
  const std::size_t c = a.count;
  switch (a.kind) {
    case CheckKind::all_gather: {
      const int r = static_cast<int>(i / c);
      return random_bits(seed_for(a.role, r, a.epoch), i % c);
    }
    case CheckKind::all_to_all: {
      const int p = static_cast<int>(i / c);
      return random_bits(seed_for(a.role, p, a.epoch), static_cast<std::uint64_t>(a.rank) * c + i % c);
    }
    case CheckKind::reduce_scatter: {
      std::uint32_t sum = 0;
      for (int r = 0; r < a.ranks; ++r)
        sum += small_int_value(seed_for(a.role, r, a.epoch), static_cast<std::uint64_t>(a.rank) * c + i);
      return int_to_bf16_bits(sum);
    }
    case CheckKind::all_reduce: {
      std::uint32_t sum = 0;
      for (int r = 0; r < a.ranks; ++r) sum += small_int_value(seed_for(a.role, r, a.epoch), i);
      return int_to_bf16_bits(sum);
    }
    case CheckKind::operand:
      return a.fp16 ? gemm_fp16_bits(a.copy_seed, a.copy_offset + i) : gemm_bf16_bits(a.copy_seed, a.copy_offset + i);
    default:
      return random_bits(a.copy_seed, a.copy_offset + i);
  }
}

/// Output elements a check of `a` reads: count, or count x ranks for all_gather and all_to_all.
C3_HD std::size_t check_elements(const CheckArgs& a) {
  if (a.kind == CheckKind::all_gather || a.kind == CheckKind::all_to_all)
    return a.count * static_cast<std::size_t>(a.ranks);
  return a.count;
}

}  // namespace c3::device
