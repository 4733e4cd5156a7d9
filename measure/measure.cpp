// Ground-truth measurement of pairs under every strategy (measure/measure.hpp).
#include "measure/measure.hpp"

#include <algorithm>
#include <iterator>
#include <string>

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

// The CUs a partition takes from the GEMM, once each, ascending: every rp:c and dma_rp:r measured.
std::vector<int> gemm_partition_cus(const MeasureOptions& options) {
  std::vector<int> out;
  for (const char* kind : {"rp", "dma_rp"})
    if (const auto values = options.parameters.find(kind); values != options.parameters.end())
      out.insert(out.end(), values->second.begin(), values->second.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
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

std::vector<std::vector<Query>> measure_query_groups(const std::vector<C3Pair>& pairs,
                                                    const MeasureOptions& options) {
  std::vector<std::vector<Query>> out;
  if (options.gemms_only && options.isolated_only)
    throw InputError("gemms_only and isolated_only exclude each other (isolated_only measures the GEMMs too)");
  if (options.collective_partitions && !options.isolated_only)
    throw InputError("collective_partitions needs isolated_only");
  if (options.gemm_partitions && !options.gemms_only && !options.isolated_only)
    throw InputError("gemm_partitions needs gemms_only or isolated_only");
  if (options.gemms_only || options.isolated_only) {
    const std::vector<int> removed = options.gemm_partitions ? gemm_partition_cus(options) : std::vector<int>{};
    const auto rp = options.parameters.find("rp");
    const std::vector<int> collective_cus =
        options.collective_partitions && rp != options.parameters.end() ? rp->second : std::vector<int>{};
    std::vector<Query> seen;  // each query once, in the group of the first pair that has it
    for (const C3Pair& pair : pairs) {
      std::vector<Query> group;
      const auto add = [&](const Query& q) {
        if (std::find(seen.begin(), seen.end(), q) != seen.end()) return;
        seen.push_back(q);
        group.push_back(q);
      };
      add(GemmQuery{pair.gemm, 0});
      for (int r : removed) add(GemmQuery{pair.gemm, r});
      if (options.isolated_only) {
        add(CollectiveQuery{pair.collective, Transport::cu, 0});
        if (dma_capable(pair.collective.kind)) add(CollectiveQuery{pair.collective, Transport::dma, 0});
        for (int c : collective_cus) add(CollectiveQuery{pair.collective, Transport::cu, c});
      }
      if (!group.empty()) out.push_back(std::move(group));
    }
    return out;
  }
  for (const C3Pair& pair : pairs) {
    std::vector<Query> group{GemmQuery{pair.gemm, 0}, CollectiveQuery{pair.collective, Transport::cu, 0}};
    if (dma_capable(pair.collective.kind)) group.push_back(CollectiveQuery{pair.collective, Transport::dma, 0});
    for (const Strategy& s : measured_strategies(pair, options))
      group.push_back(ConcurrentQuery{pair.gemm, pair.collective, s, pair.dependency});
    out.push_back(std::move(group));
  }
  return out;
}

std::vector<Query> measure_queries(const std::vector<C3Pair>& pairs, const MeasureOptions& options) {
  std::vector<Query> out;
  for (std::vector<Query>& group : measure_query_groups(pairs, options))
    out.insert(out.end(), std::make_move_iterator(group.begin()), std::make_move_iterator(group.end()));
  return out;
}

RunConfig round_config(const RunConfig& whole, int rounds) {
  if (rounds < 1) throw InputError("rounds must be at least 1 (got " + std::to_string(rounds) + ")");
  const auto share = [&](int n) { return (n + rounds - 1) / rounds; };
  RunConfig part = whole;
  part.measured_runs = share(whole.measured_runs);
  part.min_time_s = whole.min_time_s / rounds;
  part.max_runs = std::max({share(whole.max_runs), part.measured_runs, whole.warmup_runs});
  return part;
}

Measurement merge_rounds(const std::vector<Measurement>& rounds) {
  if (rounds.empty()) throw InputError("merge_rounds: no rounds");
  std::vector<double> runs;
  int warmup = 0;
  bool verified = true;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    const Measurement& r = rounds[i];
    runs.insert(runs.end(), r.runs_s.begin(), r.runs_s.end());
    warmup += r.warmup_runs;
    if (!r.ok) {
      Measurement failed = r;
      failed.error = "round " + std::to_string(i + 1) + ": " + r.error;
      failed.runs_s = std::move(runs);
      failed.warmup_runs = warmup;
      return failed;
    }
    verified = verified && r.verified;
  }
  Measurement m = summarize_runs(std::move(runs), warmup, verified);
  m.gemm_kernel = rounds.front().gemm_kernel;
  m.host_launch_s = rounds.front().host_launch_s;
  m.timeline = rounds.front().timeline;
  return m;
}

RawMeasurements measure(Validator& validator, const std::vector<C3Pair>& pairs,
                        const MeasureOptions& options, const ProgressFn& progress) {
  if (pairs.empty()) throw InputError("no scenarios to measure");
  if (options.resume && options.raw_path.empty())
    throw InputError("--resume needs the output file (--out)");
  validator.set_dma_variant(options.dma_variant);  // throws InputError for an unknown name
  const Capabilities caps = validator.capabilities();
  // Collectives over more ranks than the backend has GPUs would each fail: refused before any
  // is measured (GEMMs alone run on one GPU whatever the pair's ranks).
  if (!options.gemms_only && caps.gpus > 0)
    for (const C3Pair& p : pairs)
      if (p.collective.ranks > caps.gpus)
        throw InputError(p.name + ": ranks " + std::to_string(p.collective.ranks) + " exceed the " +
                         std::to_string(caps.gpus) + " GPUs of backend '" + caps.backend + "'");
  RawProvenance now = provenance_of(caps);
  if (!validator.dma_variant().empty()) now.notes.push_back("dma variant: " + validator.dma_variant());
  now.git_sha = options.git_sha;
  now.date = options.date;
  now.command = options.command;
  if (options.rounds < 1) throw InputError("rounds must be at least 1 (got " + std::to_string(options.rounds) + ")");
  if (options.rounds > 1)
    now.notes.push_back("rounds: " + std::to_string(options.rounds) +
                        " (each pair's measurements in rounds of ceil(runs / rounds) measured runs, each "
                        "after the full warm-up; a record holds the runs of every round)");
  const std::vector<std::vector<Query>> groups = measure_query_groups(pairs, options);
  std::size_t total = 0;
  for (const auto& g : groups) total += g.size();
  Recorder recorder(validator,
                    starting_records(options.resume, options.overwrite, options.raw_path, "--out", now),
                    options.raw_path, progress, total);
  for (const auto& group : groups) {
    if (options.rounds == 1) {
      for (const Query& q : group) recorder.measure(q);
    } else {
      recorder.measure_rounds(group, options.rounds);
    }
  }
  return recorder.raw();
}

}  // namespace c3::validator
