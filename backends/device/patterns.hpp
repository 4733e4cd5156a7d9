// backends/device/patterns.hpp: the data patterns the GPU backends (cuda, hip) write and check.
// Shared by device code (kernels.cu, kernels.hip) and host code (GEMM reference), so each value is
// computed bit-identically on both sides. Every pattern is a hash of (seed, index):
// random-looking, never zero, never NaN or Inf.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define C3_HD __host__ __device__ __forceinline__
#else
#define C3_HD inline
#endif

namespace c3::device::pattern {

/// splitmix64 finalizer: a good 64-bit mix.
C3_HD std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

C3_HD std::uint32_t hash(std::uint64_t seed, std::uint64_t index) {
  return static_cast<std::uint32_t>(mix64(seed * 0x100000001B3ull ^ mix64(index)) >> 32);
}

/// Any finite, non-zero bf16 bit pattern (movement collectives, copies): exponent field in
/// [1, 254], random sign and mantissa.
C3_HD std::uint16_t random_bits(std::uint64_t seed, std::uint64_t index) {
  const std::uint32_t h = hash(seed, index);
  const std::uint32_t exponent = 1u + (h >> 8) % 254u;
  return static_cast<std::uint16_t>(((h & 1u) << 15) | (exponent << 7) | ((h >> 1) & 0x7Fu));
}

/// Small integers 1..31 as bf16 bits (reductions: sums of up to 8 ranks stay exact in bf16).
C3_HD std::uint16_t small_int_value(std::uint64_t seed, std::uint64_t index) {
  return static_cast<std::uint16_t>(1u + hash(seed, index) % 31u);
}
/// bf16 bits of a small non-negative integer (exact for v <= 256).
C3_HD std::uint16_t int_to_bf16_bits(std::uint32_t v) {
  if (v == 0) return 0;
  int e = 31;
  while (!((v >> e) & 1u)) --e;                    // leading bit
  const std::uint32_t mant = (v << (23 - e)) & 0x7FFFFFu;  // exact: v < 2^8
  const std::uint32_t f = (static_cast<std::uint32_t>(127 + e) << 23) | mant;
  return static_cast<std::uint16_t>(f >> 16);
}

/// GEMM operand values: sign * (1 + m/128) * 2^e, e in {-2, -1}; exact in bf16 and fp16.
/// Returned as (sign, mantissa 0..127, exponent) packed in the bits of the chosen type.
C3_HD std::uint16_t gemm_bf16_bits(std::uint64_t seed, std::uint64_t index) {
  const std::uint32_t h = hash(seed, index);
  const std::uint32_t exponent = 127u - 1u - (h >> 9) % 2u;  // 2^-1 or 2^-2
  return static_cast<std::uint16_t>(((h & 1u) << 15) | (exponent << 7) | ((h >> 1) & 0x7Fu));
}
C3_HD std::uint16_t gemm_fp16_bits(std::uint64_t seed, std::uint64_t index) {
  const std::uint32_t h = hash(seed, index);
  const std::uint32_t exponent = 15u - 1u - (h >> 9) % 2u;
  // fp16: 10 mantissa bits; keep the same 7 random bits at the top (value identical to bf16's)
  return static_cast<std::uint16_t>(((h & 1u) << 15) | (exponent << 10) | (((h >> 1) & 0x7Fu) << 3));
}

/// Decodes bf16 bits into a double (exact).
inline double bf16_to_double(std::uint16_t bits) {
  const std::uint32_t f = static_cast<std::uint32_t>(bits) << 16;
  float out;
  __builtin_memcpy(&out, &f, sizeof out);
  return out;
}
/// Decodes fp16 bits into a double (exact; normals, subnormals, inf/nan).
inline double fp16_to_double(std::uint16_t bits) {
  const int sign = bits >> 15;
  const int exponent = (bits >> 10) & 0x1F;
  const int mant = bits & 0x3FF;
  double v;
  if (exponent == 0)
    v = mant * (1.0 / 16777216.0);  // 2^-24
  else if (exponent == 31)
    v = mant ? __builtin_nan("") : __builtin_inf();
  else
    v = (1.0 + mant / 1024.0) * __builtin_ldexp(1.0, exponent - 15);
  return sign ? -v : v;
}

/// Seeds: one per (buffer role, rank); distinct so that a copy from the wrong source fails.
C3_HD std::uint64_t seed_for(std::uint32_t role, std::uint32_t rank, std::uint32_t epoch) {
  return (static_cast<std::uint64_t>(role) << 40) ^ (static_cast<std::uint64_t>(rank) << 20) ^ epoch ^
         0xC3C3ull;
}

}  // namespace c3::device::pattern
