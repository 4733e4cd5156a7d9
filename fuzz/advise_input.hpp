// fuzz/advise_input.hpp: how fuzz_advise reads its input bytes as a pair, and how
// its seeds are written (the same layout both ways). Little-endian, fixed offsets;
// a short input reads as zeros past its end.
//
//  offset  bytes  field
//       0      8  m (int64)
//       8      8  n
//      16      8  k
//      24      1  dtype (mod 4: bf16, fp16, fp32, fp8); bit 2: layout (tn, row_major)
//      25      1  collective kind (mod 4: all_gather, all_to_all, reduce_scatter, all_reduce)
//      26      8  size_bytes (int64)
//      34      4  ranks (int32)
//      38      1  gemm_class: 1 compute_bound, 2 memory_bound, else none
//      39      1  gemm_class_measured_on: 1 the profile advised, 2 another name, else empty
//      40      8  repeat of the one-entry trace given to plan() (int64)
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "c3/types.hpp"

namespace c3::fuzz {

struct AdviseInput {
  std::int64_t m = 0, n = 0, k = 0;
  std::uint8_t dtype = 0;
  std::uint8_t kind = 0;
  std::int64_t size_bytes = 0;
  std::int32_t ranks = 0;
  std::uint8_t gemm_class = 0;
  std::uint8_t measured_on = 0;
  std::int64_t repeat = 0;

  static constexpr std::size_t kSize = 48;

  template <typename T>
  static T get(const std::uint8_t* data, std::size_t size, std::size_t at) {
    std::uint8_t bytes[sizeof(T)] = {};
    for (std::size_t i = 0; i < sizeof(T) && at + i < size; ++i) bytes[i] = data[at + i];
    std::uint64_t u = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) u |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
    T out;
    const auto narrow = static_cast<std::make_unsigned_t<T>>(u);
    std::memcpy(&out, &narrow, sizeof(T));
    return out;
  }

  template <typename T>
  static void put(std::vector<std::uint8_t>& out, std::size_t at, T value) {
    std::make_unsigned_t<T> u;
    std::memcpy(&u, &value, sizeof(T));
    for (std::size_t i = 0; i < sizeof(T); ++i) out[at + i] = static_cast<std::uint8_t>(u >> (8 * i));
  }

  static AdviseInput decode(const std::uint8_t* data, std::size_t size) {
    AdviseInput in;
    in.m = get<std::int64_t>(data, size, 0);
    in.n = get<std::int64_t>(data, size, 8);
    in.k = get<std::int64_t>(data, size, 16);
    in.dtype = get<std::uint8_t>(data, size, 24);
    in.kind = get<std::uint8_t>(data, size, 25);
    in.size_bytes = get<std::int64_t>(data, size, 26);
    in.ranks = get<std::int32_t>(data, size, 34);
    in.gemm_class = get<std::uint8_t>(data, size, 38);
    in.measured_on = get<std::uint8_t>(data, size, 39);
    in.repeat = get<std::int64_t>(data, size, 40);
    return in;
  }

  std::vector<std::uint8_t> encode() const {
    std::vector<std::uint8_t> out(kSize, 0);
    put(out, 0, m);
    put(out, 8, n);
    put(out, 16, k);
    put(out, 24, dtype);
    put(out, 25, kind);
    put(out, 26, size_bytes);
    put(out, 34, ranks);
    put(out, 38, gemm_class);
    put(out, 39, measured_on);
    put(out, 40, repeat);
    return out;
  }

  /// The pair, as advised on the profile named `profile`.
  C3Pair pair(const std::string& profile) const {
    C3Pair p;
    p.name = "fuzz";
    // the dtype byte's third bit picks the layout (docs/model.md §1.1)
    p.gemm = Gemm{m, n, k, static_cast<DType>(dtype % 4), (dtype / 4) % 2 == 1 ? GemmLayout::row_major : GemmLayout::tn};
    p.collective = Collective{static_cast<CollectiveKind>(kind % 4), size_bytes, ranks};
    if (gemm_class == 1) p.gemm_class = GemmClass::compute_bound;
    if (gemm_class == 2) p.gemm_class = GemmClass::memory_bound;
    if (measured_on == 1) p.gemm_class_measured_on = profile;
    if (measured_on == 2) p.gemm_class_measured_on = "elsewhere";
    return p;
  }

  static AdviseInput of(const C3Pair& p, std::int64_t repeat) {
    AdviseInput in;
    in.m = p.gemm.m;
    in.n = p.gemm.n;
    in.k = p.gemm.k;
    in.dtype = static_cast<std::uint8_t>(p.gemm.dtype);
    in.kind = static_cast<std::uint8_t>(p.collective.kind);
    in.size_bytes = p.collective.size_bytes;
    in.ranks = p.collective.ranks;
    in.gemm_class = !p.gemm_class ? 0 : *p.gemm_class == GemmClass::compute_bound ? 1 : 2;
    in.measured_on = p.gemm_class_measured_on.empty() ? 0 : 2;
    in.repeat = repeat;
    return in;
  }
};

}  // namespace c3::fuzz
