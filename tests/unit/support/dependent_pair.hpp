// tests/unit/support/dependent_pair.hpp: a dependent pair of the tests (docs/model.md §7):
// the collective moves the GEMM's own A (collective_feeds_gemm) or C (gemm_feeds_collective),
// so its size is that operand's.
#pragma once

#include "c3/types.hpp"

namespace c3::test {

inline C3Pair dependent_pair(const Gemm& gemm, Dependency dependency, CollectiveKind kind, int ranks = 2) {
  C3Pair p;
  p.gemm = gemm;
  p.dependency = dependency;
  p.collective = {kind, dependent_operand_bytes(gemm, dependency), ranks};
  return p;
}

}  // namespace c3::test
