// The schedules of dependent pairs as row lists (validator/dependent_plan.hpp).
#include "validator/dependent_plan.hpp"

#include <algorithm>
#include <string>

#include "c3/errors.hpp"

namespace c3::validator {
namespace {

void check_schedule_args(Dependency dependency, CollectiveKind kind, std::int64_t m, int ranks, int chunks) {
  const std::string kind_name(to_string(kind));
  if (dependency == Dependency::collective_feeds_gemm) {
    if (kind != CollectiveKind::all_gather && kind != CollectiveKind::all_to_all)
      throw InputError("collective_feeds_gemm takes all_gather or all_to_all, not " + kind_name);
  } else if (dependency == Dependency::gemm_feeds_collective) {
    if (kind != CollectiveKind::reduce_scatter && kind != CollectiveKind::all_to_all)
      throw InputError("gemm_feeds_collective takes reduce_scatter or all_to_all, not " + kind_name);
  } else {
    throw InputError("a dependent schedule needs a dependent pair (dependency none)");
  }
  if (ranks < 2) throw InputError("a dependent schedule needs at least 2 ranks (got " + std::to_string(ranks) + ")");
  if (m <= 0 || m % ranks != 0)
    throw InputError("the " + std::to_string(ranks) + " ranks must divide the GEMM's m (" + std::to_string(m) + ")");
  if (chunks != 1 && (chunks < ranks || chunks % ranks != 0))
    throw InputError("chunks must be 1 or a multiple of the " + std::to_string(ranks) + " ranks (got " +
                     std::to_string(chunks) + ")");
  if (chunks < 1 || m % chunks != 0)
    throw InputError("chunks (" + std::to_string(chunks) + ") must divide the GEMM's m (" + std::to_string(m) + ")");
}

// The GEMM jobs of one step of collective_feeds_gemm on rank r: the pieces of the other
// ranks' blocks that step brought, as strided runs of consecutive ranks (the ranks before r,
// the ranks after r): one job per run, so one at the first and the last rank.
void add_remote_jobs(std::vector<DepGemm>& jobs, int r, int ranks, int step, std::int64_t block,
                     std::int64_t piece) {
  const auto run = [&](int first, int count) {
    if (count <= 0) return;
    const std::int64_t row = first * block + step * piece;
    jobs.push_back({step, DepBuffer::a, row, block, DepBuffer::out, row, block, piece, count});
  };
  run(0, r);
  run(r + 1, ranks - 1 - r);
}

}  // namespace

bool DependentSchedule::uses(DepBuffer b) const {
  switch (b) {
    case DepBuffer::a:
    case DepBuffer::out:
      return true;
    case DepBuffer::send:
      return dependency == Dependency::collective_feeds_gemm && kind == CollectiveKind::all_to_all;
    case DepBuffer::staged:
      return dependency == Dependency::gemm_feeds_collective;
  }
  return false;
}

std::vector<RowTerm> out_row_terms(const DependentSchedule& s, int rank, std::int64_t row) {
  if (rank < 0 || rank >= s.ranks || row < 0 || row >= s.out_rows)
    throw InputError("row " + std::to_string(row) + " of rank " + std::to_string(rank) + " is outside the output (" +
                     std::to_string(s.ranks) + " ranks of " + std::to_string(s.out_rows) + " rows)");
  const std::int64_t block = block_rows(s.m, s.ranks);
  const int owner = static_cast<int>(row / block);        // whose block the row came from
  const std::int64_t mine = rank * block + row % block;  // that rank's rows meant for `rank`
  if (s.dependency == Dependency::collective_feeds_gemm) {
    if (s.kind == CollectiveKind::all_gather) return {{owner, DepBuffer::a, row}};
    return {{owner, DepBuffer::send, mine}};
  }
  if (s.kind == CollectiveKind::all_to_all) return {{owner, DepBuffer::a, mine}};
  std::vector<RowTerm> sum;  // reduce_scatter: this rank's rows of every rank's C
  for (int p = 0; p < s.ranks; ++p) sum.push_back({p, DepBuffer::a, rank * block + row});
  return sum;
}

std::int64_t block_rows(std::int64_t m, int ranks) { return m / ranks; }
std::int64_t piece_rows(std::int64_t m, int chunks) { return m / chunks; }

DependentSchedule dependent_schedule(Dependency dependency, CollectiveKind kind, std::int64_t m, int ranks,
                                     int chunks) {
  check_schedule_args(dependency, kind, m, ranks, chunks);
  DependentSchedule s;
  s.dependency = dependency;
  s.kind = kind;
  s.m = m;
  s.ranks = ranks;
  s.chunks = chunks;
  s.steps = chunks == 1 ? 1 : chunks / ranks;
  s.gemms.resize(static_cast<std::size_t>(ranks));
  const std::int64_t block = block_rows(m, ranks);
  const bool decomposed = chunks > 1;
  // Undecomposed: one piece per block (the rows a rank owns or receives at once).
  const std::int64_t piece = decomposed ? piece_rows(m, chunks) : block;
  const bool a2a = kind == CollectiveKind::all_to_all;

  if (dependency == Dependency::collective_feeds_gemm) {
    s.out_rows = m;
    if (!decomposed) {
      DepStep step;
      if (a2a) {
        // Every block of every send buffer, the own one included (a copy on the rank).
        for (int p = 0; p < ranks; ++p)
          for (int q = 0; q < ranks; ++q)
            step.copies.push_back({p, DepBuffer::send, q * block, q, DepBuffer::a, p * block, block});
      } else {
        step.op = DepStep::Op::all_gather;
        step.rows = block;
      }
      s.comm.push_back(step);
      for (auto& jobs : s.gemms) jobs.push_back({0, DepBuffer::a, 0, 0, DepBuffer::out, 0, 0, m, 1});
      return s;
    }
    for (int st = 0; st < s.steps; ++st) {
      DepStep step;
      // Step st: the st-th piece of every rank's block to every other rank (all_gather: from
      // the owner's own rows of A; all_to_all: from the block of its send buffer meant for
      // the receiver), landing in the sender's block of the receiver's A.
      for (int p = 0; p < ranks; ++p)
        for (int q = 0; q < ranks; ++q) {
          if (p == q) continue;
          const std::int64_t dst_row = p * block + st * piece;
          if (a2a)
            step.copies.push_back({p, DepBuffer::send, q * block + st * piece, q, DepBuffer::a, dst_row, piece});
          else
            step.copies.push_back({p, DepBuffer::a, dst_row, q, DepBuffer::a, dst_row, piece});
        }
      s.comm.push_back(step);
    }
    for (int r = 0; r < ranks; ++r) {
      auto& jobs = s.gemms[static_cast<std::size_t>(r)];
      // The local block first, no wait: all_gather's own shard, all_to_all's own send block.
      jobs.push_back({-1, a2a ? DepBuffer::send : DepBuffer::a, r * block, 0, DepBuffer::out, r * block, 0, block, 1});
      for (int st = 0; st < s.steps; ++st) add_remote_jobs(jobs, r, ranks, st, block, piece);
    }
    return s;
  }

  // gemm_feeds_collective: GEMM job st writes the st-th piece of every rank's block into
  // staged rows [st R piece, (st+1) R piece), rank p's piece at st R piece + p piece.
  s.out_rows = a2a ? m : block;
  const std::int64_t step_rows = piece * ranks;
  for (int st = 0; st < s.steps; ++st) {
    for (auto& jobs : s.gemms)
      jobs.push_back({-1, DepBuffer::a, st * piece, block, DepBuffer::staged, st * step_rows, piece, piece, ranks});
    DepStep step;
    step.waits_for_gemm = st;
    if (a2a) {
      for (int p = 0; p < ranks; ++p)
        for (int q = 0; q < ranks; ++q)
          step.copies.push_back(
              {p, DepBuffer::staged, st * step_rows + q * piece, q, DepBuffer::out, p * block + st * piece, piece});
    } else {
      step.op = DepStep::Op::reduce_scatter;
      step.src_row = st * step_rows;
      step.dst_row = st * piece;
      step.rows = piece;
    }
    s.comm.push_back(step);
  }
  if (!decomposed)  // one GEMM of all m rows: the R pieces of one step are consecutive rows
    for (auto& jobs : s.gemms) jobs.front() = {-1, DepBuffer::a, 0, 0, DepBuffer::staged, 0, 0, m, 1};
  return s;
}

}  // namespace c3::validator
