// generate/rng.cpp: xoshiro256** seeded by splitmix64 (c3/generate.hpp). Integer
// arithmetic only, so that a seed gives the same numbers on every machine.
#include <numeric>

#include "c3/errors.hpp"
#include "c3/generate.hpp"

namespace c3::generate {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (std::uint64_t& word : s_) word = splitmix64(state);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t Rng::below(std::uint64_t n) {
  if (n == 0) throw InputError("Rng::below: empty range");
  // 2^64 mod n values at the bottom would make small results likelier: draw again there.
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t r = next();
    if (r >= threshold) return r % n;
  }
}

std::size_t Rng::weighted(const std::vector<std::uint64_t>& weights) {
  const std::uint64_t total = std::accumulate(weights.begin(), weights.end(), std::uint64_t{0});
  std::uint64_t r = below(total);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
  return weights.size() - 1;  // unreachable: r < total
}

}  // namespace c3::generate
