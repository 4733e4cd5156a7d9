// Ground-truth measurement of pairs under every strategy (measure/measure.hpp).
#include "measure/measure.hpp"

#include <algorithm>

#include "c3/errors.hpp"
#include "io/query.hpp"

namespace c3::validator {

namespace {

// chunked:C:cu, chunked:C:cu:c for each c of options.parameters["chunked_cus"], and
// chunked:C:dma, for each C of options.parameters["chunked"] that the pair can be cut in
// (the ranks divide C, C divides m; model.md §7).
std::vector<Strategy> chunked_strategies(const C3Pair& pair, const MeasureOptions& options) {
  std::vector<Strategy> out;
  const auto chunks = options.parameters.find("chunked");
  if (chunks == options.parameters.end()) return out;
  const auto partitions = options.parameters.find("chunked_cus");
  const int ranks = pair.collective.ranks;
  for (int c : chunks->second) {
    if (c < ranks || c % ranks != 0 || pair.gemm.m % c != 0) continue;
    Strategy s{StrategyKind::chunked, 0, 0};
    s.chunks = c;
    out.push_back(s);
    if (partitions != options.parameters.end())
      for (int cus : partitions->second) {
        Strategy p = s;
        p.collective_cus = p.gemm_cus_removed = cus;
        out.push_back(p);
      }
    if (dma_capable(pair.collective.kind)) {
      Strategy d = s;
      d.chunk_transport = Transport::dma;
      out.push_back(d);
    }
  }
  return out;
}

}  // namespace

std::vector<Strategy> measured_strategies(const C3Pair& pair, const MeasureOptions& options) {
  std::vector<Strategy> out;
  for (StrategyKind kind : strategies::all_kinds()) {
    const strategies::Family& family = strategies::family_of(kind);
    if (!family.handles(pair.dependency)) continue;
    if (kind == StrategyKind::chunked) {
      const std::vector<Strategy> chunked = chunked_strategies(pair, options);
      out.insert(out.end(), chunked.begin(), chunked.end());
      continue;
    }
    std::vector<Strategy> of_kind;
    if (!family.parametrized(kind)) {
      of_kind.push_back(family.make(kind, 0));
    } else if (const auto values = options.parameters.find(kind.name()); values != options.parameters.end()) {
      for (int value : values->second) of_kind.push_back(family.make(kind, value));
    }
    for (const Strategy& s : of_kind)
      if (s.transport() != Transport::dma || dma_capable(pair.collective.kind)) out.push_back(s);
  }
  return out;
}

std::vector<Query> measure_queries(const std::vector<C3Pair>& pairs, const MeasureOptions& options) {
  std::vector<Query> out;
  if (options.gemms_only) {
    for (const C3Pair& pair : pairs) {
      const Query q = GemmQuery{pair.gemm, 0};
      if (std::find(out.begin(), out.end(), q) == out.end()) out.push_back(q);
    }
    return out;
  }
  for (const C3Pair& pair : pairs) {
    out.push_back(GemmQuery{pair.gemm, 0});
    out.push_back(CollectiveQuery{pair.collective, Transport::cu, 0});
    if (dma_capable(pair.collective.kind))
      out.push_back(CollectiveQuery{pair.collective, Transport::dma, 0});
    for (const Strategy& s : measured_strategies(pair, options))
      out.push_back(ConcurrentQuery{pair.gemm, pair.collective, s, pair.dependency});
  }
  return out;
}

RawMeasurements measure(Validator& validator, const std::vector<C3Pair>& pairs,
                        const MeasureOptions& options, const ProgressFn& progress) {
  if (pairs.empty()) throw InputError("no scenarios to measure");
  if (options.resume && options.raw_path.empty())
    throw InputError("--resume needs the output file (--out)");
  validator.set_dma_variant(options.dma_variant);  // throws InputError for an unknown name
  RawProvenance now = provenance_of(validator.capabilities());
  if (!validator.dma_variant().empty()) now.notes.push_back("dma variant: " + validator.dma_variant());
  now.git_sha = options.git_sha;
  now.date = options.date;
  now.command = options.command;
  const std::vector<Query> queries = measure_queries(pairs, options);
  Recorder recorder(validator, starting_records(options.resume, options.raw_path, now),
                    options.raw_path, progress, queries.size());
  for (const Query& q : queries) recorder.measure(q);
  return recorder.raw();
}

}  // namespace c3::validator
