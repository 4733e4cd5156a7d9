// A framework's view of c3advisor: load an embedded profile, ask for advice.
#include <c3/c3.hpp>

#include <iostream>

int main() {
  const c3::Advisor advisor(c3::io::resolve_profile("mi300x"));
  const c3::C3Pair pair{"cb1_896M", c3::parse_gemm("8192x8192x8192:bf16"),
                        c3::parse_collective("all_gather:896MiB", 8)};
  const c3::Advice advice = advisor.advise(pair);
  std::cout << "recommend " << advice.recommendation().strategy.label() << " ("
            << advice.recommendation().predicted_s * 1e3 << " ms)\n";
  return advice.strategies.empty() ? 1 : 0;
}
