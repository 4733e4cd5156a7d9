// The decomposed family (FiCCO / T3): a dependent pair cut in pieces along the GEMM's m,
// each piece's collective and GEMM pipelined on two streams (`chunked:C:cu`,
// `chunked:C:dma`, `chunked:C:cu:c` with the collective's pieces in a partition of c
// compute units; model.md §7). Independent pairs have no use for it.
#include <algorithm>
#include <array>

#include "strategies/families.hpp"

namespace c3::strategies {
namespace {

constexpr std::array<int, 4> kChunks{2, 4, 8, 16};
// Partitions offered for the collective's pieces (where the tables cover them): enough
// for its CTAs without taking much from the GEMM.
constexpr std::array<int, 3> kPartitionCus{8, 16, 32};

model::Decomposition decomposition(const Strategy& s) {
  return {s.chunks, s.chunk_transport, s.collective_cus};
}

bool offers_dma(const HardwareProfile& hw, CollectiveKind kind) {
  if (!dma_capable(kind)) return false;
  const auto coll = hw.collectives.find(kind);
  return coll != hw.collectives.end() && coll->second.contains(Transport::dma) &&
         hw.interference.contains(Transport::dma);
}

class Decomposed final : public Family {
 public:
  std::string_view name() const override { return "decomposed"; }
  int position() const override { return 40; }
  std::vector<StrategyKind> kinds() const override { return {StrategyKind::chunked}; }
  bool handles(Dependency dependency) const override { return dependency != Dependency::none; }
  bool parametrized(StrategyKind) const override { return true; }
  int parameter(const Strategy& s) const override { return s.chunks; }
  Strategy make(StrategyKind kind, int chunks) const override {
    Strategy s{kind, 0, 0};
    s.chunks = chunks;
    return s;
  }

  std::string label(const Strategy& s) const override {
    std::string out = "chunked:" + std::to_string(s.chunks) + ":" + std::string(to_string(s.chunk_transport));
    if (s.collective_cus > 0) out += ":" + std::to_string(s.collective_cus);
    return out;
  }

  Strategy parse(StrategyKind kind, std::optional<std::string_view> args) const override {
    const auto bad = [&](const std::string& why) -> Strategy {
      throw InputError("strategy 'chunked" + (args ? ":" + std::string(*args) : std::string()) + "': " + why +
                       " (e.g. chunked:4:cu, chunked:4:dma, chunked:4:cu:16)");
    };
    if (!args) return bad("needs a chunk count and a transport");
    std::vector<std::string_view> parts;
    std::string_view rest = *args;
    for (auto colon = rest.find(':'); colon != std::string_view::npos; colon = rest.find(':')) {
      parts.push_back(rest.substr(0, colon));
      rest.remove_prefix(colon + 1);
    }
    parts.push_back(rest);
    if (parts.size() < 2 || parts.size() > 3) return bad("expected chunked:CHUNKS:TRANSPORT[:CUS]");
    const auto count = [&](std::string_view text, const char* what) {
      try {
        return parse_cu_count(text);
      } catch (const InputError&) {
        bad(std::string(what) + " '" + std::string(text) + "' is not a positive integer");
        return 0;
      }
    };
    Strategy s = make(kind, count(parts[0], "chunk count"));
    if (parts[1] == "cu") s.chunk_transport = Transport::cu;
    else if (parts[1] == "dma") s.chunk_transport = Transport::dma;
    else return bad("transport '" + std::string(parts[1]) + "' is not cu or dma");
    if (parts.size() == 3) {
      if (s.chunk_transport == Transport::dma) return bad("pieces on copy engines take no CU partition");
      s.collective_cus = s.gemm_cus_removed = count(parts[2], "CU count");
    }
    return s;
  }

  void check(const Strategy& s, int compute_units) const override {
    if (s.chunks < 1) fail(s, "needs chunks >= 1");
    if (s.collective_cus != s.gemm_cus_removed) fail(s, "the GEMM gives up exactly the collective's partition");
    if (s.chunk_transport == Transport::dma && s.collective_cus != 0) fail(s, "copy engines take no CU partition");
    check_cus(s.collective_cus, compute_units, "collective_cus");
  }

  std::vector<Strategy> candidates(const HardwareProfile& hw, const C3Pair& pair) const override {
    std::vector<Strategy> out;
    const int ranks = pair.collective.ranks;
    const std::vector<int> covered = model::allowed_collective_cus(hw, pair);
    for (int chunks : kChunks) {
      if (chunks < ranks || chunks % ranks != 0 || pair.gemm.m % chunks != 0) continue;
      out.push_back(make(StrategyKind::chunked, chunks));
      for (int cus : kPartitionCus) {
        if (std::find(covered.begin(), covered.end(), cus) == covered.end()) continue;
        Strategy s = make(StrategyKind::chunked, chunks);
        s.collective_cus = s.gemm_cus_removed = cus;
        out.push_back(s);
      }
      if (offers_dma(hw, pair.collective.kind)) {
        Strategy s = make(StrategyKind::chunked, chunks);
        s.chunk_transport = Transport::dma;
        out.push_back(s);
      }
    }
    return out;
  }

  Estimate predict(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) const override {
    const double time_s = model::decomposed_time_s(hw, pair, decomposition(s));
    int coll_cus = s.collective_cus;
    if (s.chunk_transport == Transport::cu && coll_cus == 0)
      coll_cus = model::collective_default_cus(hw, pair.collective.kind);
    return {time_s, coll_cus, hw.compute_units - s.collective_cus};
  }

  std::string describe(const DescribeContext& c) const override {
    const Strategy& s = c.strategy;
    const bool feeds = c.pair.dependency == Dependency::collective_feeds_gemm;
    std::string out = "Cut the " + collective_name(c) + " and the GEMM into " + std::to_string(s.chunks) +
                      " pieces of " + std::to_string(c.pair.gemm.m / s.chunks) + " rows and pipeline them: " +
                      (feeds ? "the GEMM starts on the local rows while the other ranks' pieces arrive"
                             : "each piece's " + collective_name(c) + " starts as soon as its GEMM rows are done");
    if (s.chunk_transport == Transport::dma) return out + ", the pieces moving on the copy engines";
    if (s.collective_cus > 0)
      return out + ", the pieces' collective on " + std::to_string(s.collective_cus) + " " + unit_name(c) +
             " of its own";
    return out;
  }

  ExecutionPlan plan(const Strategy& s) const override {
    return {LaunchOrder::collective_first, s.chunk_transport, s.collective_cus, s.collective_cus, s.chunks};
  }
  int complexity(const Strategy& s) const override {
    return 6 + (s.chunk_transport == Transport::dma ? 1 : 0) + (s.collective_cus > 0 ? 2 : 0);
  }
};

}  // namespace

const Family& family_decomposed() {
  static const Decomposed family;
  return family;
}

}  // namespace c3::strategies
