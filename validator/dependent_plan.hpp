// validator/dependent_plan.hpp: the schedule of a dependent pair (docs/model.md §7) as plain
// data: which rows of which buffer every collective step moves, and which rows every GEMM
// job reads and writes, on every rank. Needs no CUDA header, so CI checks the schedules
// (every output row produced once, from data that has arrived) without a GPU; the cuda
// backend runs exactly these steps and jobs (backends/cuda/dependent.cpp).
//
// Rows are rows of the dependent operand (m of them): the GEMM's A (m x k) when the
// collective feeds the GEMM, its output C (m x n) when the GEMM feeds the collective.
// R ranks, C chunks: block = m / R rows (a rank's share), piece = m / C rows, steps = C / R.
#pragma once

#include <cstdint>
#include <vector>

#include "c3/types.hpp"

namespace c3::validator {

/// The per-rank buffers of a dependent schedule, each a row-major matrix:
///  a:      the GEMM's A, m rows of k (collective_feeds_gemm: the gathered or received A;
///          all_gather: this rank's block is its own shard; gemm_feeds_collective: this
///          rank's own A);
///  send:   the all_to_all send buffer, m rows of k (collective_feeds_gemm / all_to_all only);
///  staged: the GEMM's output C, m rows of n, in step order: step s's rows are rows
///          [s m/S, (s+1) m/S), the piece for rank p at s m/S + p m/C (gemm_feeds_collective);
///  out:    what is checked: the GEMM's output D, m rows of n (collective_feeds_gemm), or
///          the collective's output (reduce_scatter: m / R rows of n; all_to_all: m rows of n).
enum class DepBuffer { a, send, staged, out };

/// `rows` rows from rank src_rank's `src` at row src_row to rank dst_rank's `dst` at dst_row.
struct RowCopy {
  int src_rank = 0;
  DepBuffer src = DepBuffer::a;
  std::int64_t src_row = 0;
  int dst_rank = 0;
  DepBuffer dst = DepBuffer::a;
  std::int64_t dst_row = 0;
  std::int64_t rows = 0;
  friend bool operator==(const RowCopy&, const RowCopy&) = default;
};

/// One step of the collective, on every rank at once.
///  copies:         the rows it moves (the all_to_all's and the decomposed all_gather's);
///  all_gather:     the whole all_gather in place (undecomposed): rank r's rows
///                  [r block, (r+1) block) of `a` to the same rows of every rank's `a`;
///  reduce_scatter: `staged` rows [src_row, src_row + R rows) summed over the ranks, rank r
///                  receiving the sum of rows src_row + r rows .. into `out` at dst_row.
/// waits_for_gemm: the index of every rank's GEMM job whose output it moves (-1: none).
struct DepStep {
  enum class Op { copies, all_gather, reduce_scatter };
  Op op = Op::copies;
  int waits_for_gemm = -1;
  std::vector<RowCopy> copies;
  std::int64_t src_row = 0;  ///< reduce_scatter
  std::int64_t dst_row = 0;  ///< reduce_scatter
  std::int64_t rows = 0;     ///< all_gather: block rows; reduce_scatter: rows each rank receives
};

/// One GEMM job of one rank: `count` pieces of `rows` rows; piece i reads rows
/// a_row + i a_stride of `a_buffer` and writes rows out_row + i out_stride of `out_buffer`
/// (one strided-batched GEMM). waits_for_step: the step whose rows it reads (-1: none).
struct DepGemm {
  int waits_for_step = -1;
  DepBuffer a_buffer = DepBuffer::a;
  std::int64_t a_row = 0;
  std::int64_t a_stride = 0;
  DepBuffer out_buffer = DepBuffer::out;
  std::int64_t out_row = 0;
  std::int64_t out_stride = 0;
  std::int64_t rows = 0;
  int count = 1;
  friend bool operator==(const DepGemm&, const DepGemm&) = default;
};

/// A dependent pair's schedule on every rank.
struct DependentSchedule {
  Dependency dependency = Dependency::collective_feeds_gemm;
  CollectiveKind kind = CollectiveKind::all_gather;
  std::int64_t m = 0;
  int ranks = 0;
  int chunks = 1;  ///< 1: undecomposed (serial)
  int steps = 1;
  std::int64_t out_rows = 0;  ///< rows of `out` per rank
  /// The collective's steps, in stream order.
  std::vector<DepStep> comm;
  /// Per rank, its GEMM jobs in stream order.
  std::vector<std::vector<DepGemm>> gemms;

  bool uses(DepBuffer b) const;
};

/// One term of an output row: the GEMM row of row `row` of rank `rank`'s input `buffer`
/// (a or send), i.e. that row of A times b^T.
struct RowTerm {
  int rank = 0;
  DepBuffer buffer = DepBuffer::a;
  std::int64_t row = 0;
  friend bool operator==(const RowTerm&, const RowTerm&) = default;
};

/// What the undecomposed computation leaves in row `row` of rank `rank`'s `out`: the sum of
/// these terms (one term, or one per rank for reduce_scatter). Inputs as the schedule
/// starts: all_gather: rank p holds rows [p block, (p+1) block) of A in `a`; all_to_all
/// (collective_feeds_gemm): every rank its `send`; gemm_feeds_collective: every rank its `a`.
/// Throws InputError for a row outside `out`.
std::vector<RowTerm> out_row_terms(const DependentSchedule& s, int rank, std::int64_t row);

/// Rows of one rank's block: m / ranks.
std::int64_t block_rows(std::int64_t m, int ranks);
/// Rows of one piece: m / chunks.
std::int64_t piece_rows(std::int64_t m, int chunks);

/// The schedule of a dependent pair with `ranks` ranks cut in `chunks` pieces (1: the
/// undecomposed computation, serial: the whole collective then the whole GEMM, or the
/// reverse). Decomposed (model.md §7.1): collective_feeds_gemm: the GEMM first computes
/// the local block (all_gather: its own shard; all_to_all: its own send block, no copy),
/// then, per step s, waits for step s and computes the (ranks - 1) pieces it brought;
/// gemm_feeds_collective: per step s one GEMM of the s-th piece of every rank's block, then
/// step s moves (all_to_all) or reduce-scatters them.
/// Throws InputError: dependency none, a kind the dependency does not take, ranks < 2,
/// chunks not 1 and not a multiple of ranks, chunks (or ranks) not dividing m.
DependentSchedule dependent_schedule(Dependency dependency, CollectiveKind kind, std::int64_t m, int ranks,
                                     int chunks);

}  // namespace c3::validator
