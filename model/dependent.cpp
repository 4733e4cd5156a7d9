// model.md §7: dependent pairs run as decomposed schedules: the dependent operand cut
// in pieces, each piece's collective and GEMM on two streams that wait for each other.
#include <algorithm>
#include <cmath>
#include <limits>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3::model {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// Steps of a decomposition: chunks / ranks (§7.1).
int steps_of(const C3Pair& pair, const Decomposition& d) { return d.chunks / pair.collective.ranks; }

// The GEMM of `rows` rows of `g` (the pair's GEMM as it runs, gemm_as_run: row-major, §1.1).
Gemm gemm_rows(Gemm g, std::int64_t rows) {
  g.m = rows;
  return g;
}


}  // namespace

double queued_step_time_s(const HardwareProfile& hw, const Collective& step, Transport transport,
                          double step_s) {
  // §7.3: a copy-engine step queued behind another pays chunk_dma_step_latency_s in place
  // of the transport's latency (never below it), unless it is shorter than
  // chunk_dma_step_min_s: the host's issue paces short steps.
  if (transport != Transport::dma || !hw.chunk_dma_step_latency_s) return step_s;
  if (step_s < hw.chunk_dma_step_min_s.value_or(0.0)) return step_s;
  const double latency_s = collective_params(hw, step.kind, transport).latency_s;
  const double queued_s = *hw.chunk_dma_step_latency_s;
  return std::max(step_s - latency_s + queued_s, queued_s);
}

const Interference& pipeline_interference(const HardwareProfile& hw, CollectiveKind kind, const Decomposition& d,
                                          GemmClass cls) {
  // §7.3: the pipeline's own factors, but in a partition the independent pairs' (§4.2).
  const auto by_kind = hw.pipeline_interference.find(kind);
  if (d.collective_cus == 0 && by_kind != hw.pipeline_interference.end())
    if (const auto f = by_kind->second.find(d.transport); f != by_kind->second.end()) return f->second;
  return interference(hw, kind, d.transport, cls);
}

void check_decomposition(const HardwareProfile& hw, const C3Pair& pair, const Decomposition& d) {
  if (pair.dependency == Dependency::none)
    throw InputError("a decomposed schedule needs a dependent pair (dependency collective_feeds_gemm or "
                     "gemm_feeds_collective)");
  validate_dependency(pair.gemm, pair.collective, pair.dependency);
  const int ranks = pair.collective.ranks;
  if (d.chunks < ranks || d.chunks % ranks != 0)
    throw InputError("chunks must be a positive multiple of the " + std::to_string(ranks) + " ranks (got " +
                     std::to_string(d.chunks) + ")");
  if (pair.gemm.m % d.chunks != 0)
    throw InputError("chunks (" + std::to_string(d.chunks) + ") must divide the GEMM's m (" +
                     std::to_string(pair.gemm.m) + ")");
  if (d.transport == Transport::dma && !dma_capable(pair.collective.kind))
    throw InputError(std::string(to_string(pair.collective.kind)) +
                     " cannot run on copy engines: they cannot reduce");
  if (d.collective_cus != 0) {
    if (d.transport == Transport::dma) throw InputError("pieces on copy engines take no compute-unit partition");
    const Taxonomy tax = classify(hw, pair);
    if (d.collective_cus < 0 || d.collective_cus >= hw.compute_units ||
        !split_covered(hw, tax.gemm, pair.collective.kind, tax.collective, d.collective_cus))
      throw InputError("the collective's partition of " + std::to_string(d.collective_cus) + " " +
                       std::string(compute_unit_name(hw)) + " is outside the profile's slowdown tables");
  }
}

PipelineTimes pipeline_times(const Pipeline& p) {
  const std::size_t ng = p.gemm.size(), nc = p.comm.size();
  for (const PipelineJob& j : p.gemm)
    if (j.waits_for >= static_cast<int>(nc) || !(j.time_s >= 0))
      throw InputError("pipeline: a GEMM job waits for a collective job that does not exist");
  for (const PipelineJob& j : p.comm)
    if (j.waits_for >= static_cast<int>(ng) || !(j.time_s >= 0))
      throw InputError("pipeline: a collective job waits for a GEMM job that does not exist");

  PipelineTimes out;
  out.gemm_end_s.assign(ng, kNever);
  out.comm_end_s.assign(nc, kNever);
  std::size_t gi = 0, ci = 0;      // next job per stream
  bool g_run = false, c_run = false;
  double g_left = 0, c_left = 0;   // fraction of the running job's work left
  double t = 0;
  // A job may start when its stream's previous job ended and the job it waits for ended
  // (plus the wait's cost); kNever while that is not yet known.
  const auto ready_s = [&](const PipelineJob& j, std::size_t i, const std::vector<double>& own_end,
                           const std::vector<double>& other_end) {
    double r = i == 0 ? 0.0 : own_end[i - 1];
    if (j.waits_for >= 0) r = std::max(r, other_end[static_cast<std::size_t>(j.waits_for)] + p.wait_s);
    return r;
  };
  const auto entry = [&](std::size_t g) {
    return g < p.comm_entry_fraction.size() ? std::clamp(p.comm_entry_fraction[g], 0.0, 1.0) : 0.0;
  };
  // Each pass ends a job or starts one; at most 4 per job: start, ready, entry, end.
  for (std::size_t pass = 0; pass < 16 * (ng + nc) + 16 && (gi < ng || ci < nc || g_run || c_run); ++pass) {
    // Start what may start at t: the collective's job first (it is launched first); a
    // collective job that finds a GEMM job running waits until that job has run entry().
    if (!c_run && ci < nc && ready_s(p.comm[ci], ci, out.comm_end_s, out.gemm_end_s) <= t &&
        (!g_run || 1.0 - g_left >= entry(gi) - 1e-12)) {
      c_run = true;
      c_left = 1.0;
    }
    if (!g_run && gi < ng && ready_s(p.gemm[gi], gi, out.gemm_end_s, out.comm_end_s) <= t) {
      g_run = true;
      g_left = 1.0;
    }
    const bool both = g_run && c_run;
    const double g_s = g_run ? p.gemm[gi].time_s * (both ? p.gemm_contention : 1.0) : 0;  // whole job at this rate
    const double c_s = c_run ? p.comm[ci].time_s * (both ? p.comm_contention : 1.0) : 0;
    // The next event: a running job ends, a waiting job becomes ready, or a blocked
    // collective job may enter.
    double next = kNever;
    if (g_run) next = std::min(next, t + g_left * g_s);
    if (c_run) next = std::min(next, t + c_left * c_s);
    if (!g_run && gi < ng) {
      const double r = ready_s(p.gemm[gi], gi, out.gemm_end_s, out.comm_end_s);
      if (r > t) next = std::min(next, r);
    }
    if (!c_run && ci < nc) {
      const double r = ready_s(p.comm[ci], ci, out.comm_end_s, out.gemm_end_s);
      if (r > t) next = std::min(next, r);
      else if (g_run) next = std::min(next, t + std::max(0.0, entry(gi) - (1.0 - g_left)) * g_s);
    }
    if (next == kNever) throw InputError("pipeline: the jobs wait for each other (a cycle)");
    const double dt = next - t;
    if (g_run) g_left = g_s > 0 ? std::max(0.0, g_left - dt / g_s) : 0.0;
    if (c_run) c_left = c_s > 0 ? std::max(0.0, c_left - dt / c_s) : 0.0;
    t = next;
    if (g_run && g_left <= 1e-12) {
      out.gemm_end_s[gi++] = t;
      g_run = false;
    }
    if (c_run && c_left <= 1e-12) {
      out.comm_end_s[ci++] = t;
      c_run = false;
    }
  }
  if (gi < ng || ci < nc) throw InputError("pipeline: the jobs wait for each other (a cycle)");
  for (double e : out.gemm_end_s) out.total_s = std::max(out.total_s, e);
  for (double e : out.comm_end_s) out.total_s = std::max(out.total_s, e);
  return out;
}

Pipeline decomposed_pipeline(const HardwareProfile& hw, const C3Pair& pair, const Decomposition& d) {
  check_decomposition(hw, pair, d);
  const Taxonomy tax = classify(hw, pair);
  const int ranks = pair.collective.ranks;
  const int steps = steps_of(pair, d);
  const std::int64_t m = pair.gemm.m;
  const Collective step_coll{pair.collective.kind, pair.collective.size_bytes / steps, ranks};
  const Interference& f = pipeline_interference(hw, pair.collective.kind, d, tax.gemm);

  // §7.3: the contention of the transport, as for an independent pair (§4.5).
  double gemm_factor = 1.0, coll_factor = 1.0;  // for the whole run (partitions)
  int coll_cus = 0;                             // compute units the collective's pieces hold
  if (d.transport == Transport::dma) {
    coll_cus = 0;
  } else if (d.collective_cus > 0) {
    coll_cus = d.collective_cus;
    gemm_factor = gemm_slowdown(hw, tax.gemm, coll_cus);
    coll_factor = collective_partition_slowdown(hw, step_coll, collective_class(hw, step_coll), coll_cus);
  } else {
    coll_cus = std::min(collective_default_cus(hw, pair.collective.kind), hw.compute_units - 1);
  }
  Pipeline p;
  p.wait_s = hw.chunk_wait_s;
  p.comm_contention = collective_contention(hw, f, hw.compute_units - coll_cus);
  p.gemm_contention = f.gemm_slowdown;
  // Without a partition the GEMM piece shares the compute units with the collective's
  // default ones while both run (collective first, §4.4).
  if (d.transport == Transport::cu && d.collective_cus == 0) p.gemm_contention *= gemm_slowdown(hw, tax.gemm, coll_cus);

  const double comm_s = collective_time_s(hw, step_coll, d.transport) * coll_factor;
  const double queued_comm_s = queued_step_time_s(hw, step_coll, d.transport, comm_s);
  // `blocks` pieces of `rows` rows each, one (strided-batched) GEMM job; one block is a plain piece.
  const Gemm as_run = gemm_as_run(pair);
  const auto add_gemm = [&](std::int64_t rows, int blocks, int waits_for) {
    const Gemm g = gemm_rows(as_run, rows * blocks);
    // §7.3: the first piece launches like a GEMM alone, the others are queued behind it.
    const double latency_s = p.gemm.empty() ? hw.gemm_latency_s : hw.chunk_piece_latency_s.value_or(hw.gemm_latency_s);
    const double piece_s = gemm_batched_piece_time_s(hw, gemm_rows(as_run, rows), blocks, pair.gemm, latency_s,
                                                     hw.chunk_batch_reread.value_or(0.0));
    p.gemm.push_back({piece_s * gemm_factor, waits_for});
    // A collective piece that finds this GEMM running waits for its waves (§4.3), unless
    // it has its own compute units (a partition) or needs none (copy engines).
    const bool shares = d.transport == Transport::cu && d.collective_cus == 0;
    p.comm_entry_fraction.push_back(shares ? gemm_first_delay_s(hw, g, 1.0, std::max(coll_cus, 1)) : 0.0);
  };
  if (pair.dependency == Dependency::collective_feeds_gemm) {
    // §7.1: the local rows (m / ranks) need no transfer; step s brings the s-th piece of
    // every other rank, (ranks - 1) pieces of m / chunks rows.
    // (The peers' pieces of a step are priced as one GEMM of their rows.)
    add_gemm(m / ranks, 1, -1);
    for (int s = 0; s < steps; ++s) {
      p.comm.push_back({s == 0 ? comm_s : queued_comm_s, -1});
      add_gemm(m / d.chunks * (ranks - 1), 1, s);
    }
  } else {
    // §7.1: step s computes the s-th piece of every rank's rows (m / steps rows: one
    // strided-batched GEMM over the ranks' blocks, §7.3), then its collective moves them.
    for (int s = 0; s < steps; ++s) {
      add_gemm(m / d.chunks, ranks, -1);
      p.comm.push_back({s == 0 ? comm_s : queued_comm_s, s});
    }
  }
  return p;
}

ScheduleGroup schedule_group(const C3Pair& pair, const Decomposition& d) {
  return ScheduleGroup{pair.dependency, pair.collective.kind, d.transport, d.collective_cus, d.chunks};
}

double schedule_correction(const HardwareProfile& hw, const C3Pair& pair, const Decomposition& d) {
  const auto it = hw.schedule_corrections.find(schedule_group(pair, d));
  return it == hw.schedule_corrections.end() ? 1.0 : it->second;
}

double decomposed_time_s(const HardwareProfile& hw, const C3Pair& pair, const Decomposition& d) {
  return pipeline_times(decomposed_pipeline(hw, pair, d)).total_s * schedule_correction(hw, pair, d);
}

}  // namespace c3::model
