// backends/device/dependent_run.hpp: the vendor-neutral half of a dependent pair's run on
// the GPU backends (cuda: backends/cuda/dependent.cpp, hip: backends/hip/dependent.cpp),
// as data: what the backend refuses ("unsupported", with the reason), the stream role of
// each rank's GEMM and collective, the buffers' rows, the input fills, the host order in
// which steps and GEMM jobs are launched, the rows filled with NaN before a checked run,
// the moved rows checked bitwise on the device, the sampled output positions with their
// double-precision host reference and tolerance, and the schedule in words. The schedule
// itself (which rows every step moves and every job computes) is
// validator::dependent_schedule's; a vendor file only issues it with its own calls.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/device/kernel_args.hpp"
#include "backends/device/pair_placement.hpp"
#include "backends/device/run_detail.hpp"
#include "validator/ce_plan.hpp"
#include "validator/dependent_plan.hpp"

namespace c3::device {

/// The most pieces a dependent pair is cut into on a GPU backend (Mechanisms::max_chunks).
constexpr int kMaxDependentChunks = 16;

struct DependentOptions {
  int check_samples = 48;            ///< hashed output samples per rank (plus 2 per piece, 4 corners)
  validator::CeOptions ce;           ///< dma: direction, API, overlap flag (one copy per piece)
  bool partition_collective = true;  ///< chunked:C:cu:c: the pieces' collective in the partition of c compute units
  bool collective_high_priority = false;
  std::uint32_t epoch = 1;           ///< pattern seeds
  /// Fault injection ("drop_piece"): the last step moves nothing, so that the check must fail.
  bool drop_last_step = false;
};

/// The DependentOptions of a backend's options (CudaOptions, HipOptions: the fields
/// gemm_check_samples, ce, partition_collective, collective_high_priority).
template <class BackendOptions>
DependentOptions dependent_options(const BackendOptions& o, std::uint32_t epoch, bool drop_last_step) {
  DependentOptions d;
  d.check_samples = o.gemm_check_samples;
  d.ce = o.ce;
  d.partition_collective = o.partition_collective;
  d.collective_high_priority = o.collective_high_priority;
  d.epoch = epoch;
  d.drop_last_step = drop_last_step;
  return d;
}

/// What ran, for RunDetail.
struct DependentReport {
  int chunks = 1;
  int steps = 1;
  std::int64_t size_bytes = 0;  ///< the collective's size (nccl-tests convention)
  std::string transport;        ///< "nccl", "rccl", "ce_push_peer", ...
  int gemm_sms = 0;             ///< compute units of the GEMM's stream
  int collective_sms = 0;       ///< 0 on copy engines
  int collective_ctas = 0;      ///< the collective library's CTA budget (0: default)
  std::string gemm_algo;        ///< the first GEMM job's plan
  GemmKernel first_kernel;      ///< the first GEMM job's kernel
  std::string note;             ///< the schedule in words
};

/// Copies the report into a RunDetail (ranks, chunks, size, transport, compute units, CTAs,
/// GEMM plan, note).
void describe(RunDetail& detail, const DependentReport& report, int ranks);

/// The strategy's ExecutionPlan for a dependent pair, or Failure("unsupported") for a
/// strategy that runs the GEMM and the collective at once as whole kernels, or cuts more
/// than kMaxDependentChunks pieces.
ExecutionPlan dependent_execution(const C3Pair& pair, const Strategy& s);

/// What the backend offers a dependent run.
struct DependentSupport {
  int gpus = 0;
  bool peer_ok = false;
  std::string peer_note;
  /// The selected dma variant moves whole collectives only (the cuda backend's nccl_ce).
  bool whole_collective_dma = false;
  std::string whole_collective_dma_name = "nccl_ce";
};

/// One step or GEMM job in the host's launch order.
struct DependentAction {
  enum class Kind { step, gemm };
  Kind kind = Kind::step;
  int rank = 0;       ///< gemm: the rank
  std::size_t index = 0;  ///< step: the step; gemm: the job of that rank
  friend bool operator==(const DependentAction&, const DependentAction&) = default;
};

/// Rows [row, row + rows) of one buffer of one rank.
struct RowRange {
  validator::DepBuffer buffer = validator::DepBuffer::out;
  std::int64_t row = 0;
  std::int64_t rows = 0;
  friend bool operator==(const RowRange&, const RowRange&) = default;
};

/// A fill of rows of a buffer with a GEMM operand pattern: element e of the range gets
/// fill_value(kind, seed, offset + e).
struct RowFill {
  RowRange range;
  FillKind kind = FillKind::gemm_bf16;
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;
};

/// One call of the collective library (NCCL's API, which RCCL implements) in a step on the
/// cu transport; a step's calls go in one group, in this order. `rank`: whose communicator
/// and collective stream; all_gather: `send` is rank's own rows inside `recv` (in place);
/// reduce_scatter: `send` the staged rows, `recv` the rank's output rows; send/recv: one
/// copy's rows to or from `peer`. `count`: elements (all_gather, send/recv: sent by the
/// rank; reduce_scatter: received). The runner fills send_ptr/recv_ptr from its buffers.
struct CclCall {
  enum class Op { all_gather, reduce_scatter, send, recv };
  Op op = Op::send;
  int rank = 0;
  int peer = 0;  ///< send: the receiver; recv: the sender
  RowRange send;  ///< unused by recv
  RowRange recv;  ///< unused by send
  std::size_t count = 0;
  const void* send_ptr = nullptr;
  void* recv_ptr = nullptr;
};

/// A bitwise device check of rows of `a` on rank `rank` that rank `from` provided:
/// `args` is complete but for args.out (the vendor's pointer to row `row` of `a`).
struct MovedRowsCheck {
  int rank = 0;
  int from = 0;
  std::int64_t row = 0;
  CheckArgs args;
};

/// `count` pieces of `rows` rows of row-major 16-bit matrices, what the GPU backends'
/// RowGemm computes (out[i][j] = sum_l a[i][l] b[j][l]): piece i reads a + i a_stride_rows
/// rows (of k elements) and writes out + i out_stride_rows rows (of n elements).
struct RowPiece {
  const std::uint16_t* a = nullptr;
  std::int64_t a_stride_rows = 0;
  std::uint16_t* out = nullptr;
  std::int64_t out_stride_rows = 0;
  std::int64_t rows = 0;
  int count = 1;
  /// Piece i alone (count 1, strides 0).
  RowPiece single(int i, std::int64_t n, std::int64_t k) const {
    return {a + i * a_stride_rows * k, 0, out + i * out_stride_rows * n, 0, rows, 1};
  }
};

/// What a BLAS plan of a RowPiece depends on: rows, count, a stride, out stride (strides 0
/// when count is 1), the alignment of a and of out (bytes, common_alignment).
using RowPieceKey = std::tuple<std::int64_t, int, std::int64_t, std::int64_t, std::uint32_t, std::uint32_t>;
RowPieceKey row_piece_key(const RowPiece& piece, std::int64_t n, std::int64_t k);

/// The largest power of two, at most 256, dividing every value (a pointer, leading
/// dimension and batch stride in bytes): the alignment a BLAS library may assume of a
/// row piece.
std::uint32_t common_alignment(std::initializer_list<std::uint64_t> byte_values);

/// A dependent pair's run on every rank, vendor-neutral. Throws Failure("unsupported") for
/// what it cannot run: dependency none, sizes that do not match validate_dependency, a
/// dtype other than bf16 and fp16, more ranks than GPUs, an order other than serial or
/// collective_first, chunks that do not fit the order or do not cut m, copy engines for a
/// reduction, without peer access, with a whole-collective dma variant or with a partition.
class DependentLayout {
 public:
  DependentLayout(const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
                  const DependentSupport& support);

  const validator::DependentSchedule& schedule() const { return sched_; }
  const C3Pair& pair() const { return pair_; }
  const DependentOptions& options() const { return opt_; }
  bool serial() const { return serial_; }
  bool dma() const { return dma_; }
  /// collective_feeds_gemm
  bool feeds() const { return feeds_; }
  int ranks() const { return sched_.ranks; }
  std::int64_t m() const { return sched_.m; }
  std::int64_t n() const { return n_; }
  std::int64_t k() const { return k_; }
  std::int64_t block() const { return block_; }

  /// Stream roles of every rank: the GEMM's, and the collective's (copy_engines on dma).
  /// A partition (partition_cus > 0) is taken on every rank; `*_hi`: the high-priority
  /// lane of that role (collective_high_priority).
  StreamRole gemm_role() const { return gemm_role_; }
  StreamRole comm_role() const { return comm_role_; }
  bool comm_high_priority() const { return comm_hi_; }
  int partition_cus() const { return partition_cus_; }
  /// The collective's CTA budget (the partition's compute units; 0: the library's default).
  int ctas() const { return ctas_; }

  /// Elements per row of a buffer: k for a and send, n for staged and out.
  std::int64_t width(validator::DepBuffer b) const;
  /// Rows of a buffer on every rank (0: not used).
  std::int64_t rows(validator::DepBuffer b) const;
  /// The fill kind of the operands and B's pattern (n rows of k, the same on every rank).
  FillKind fill_kind() const;
  std::uint64_t b_seed() const;
  /// The input fills of rank `rank` (buffers of rows(b) > 0 start as NaN, 0xFF bytes).
  std::vector<RowFill> input_fills(int rank) const;

  /// Events between the streams: per rank per step on its collective lane after the step
  /// (collective_feeds_gemm on cu), per rank per GEMM job on its GEMM lane after the job
  /// (gemm_feeds_collective, decomposed), per step per copy on its issuer's peer lane after
  /// the copy (collective_feeds_gemm on dma).
  bool step_events() const { return !serial_ && feeds_ && !dma_; }
  bool gemm_events() const { return !serial_ && !feeds_; }
  bool copy_events() const { return dma_ && feeds_; }

  /// The host's launch order: collective_feeds_gemm: the collective first and one step
  /// ahead of the GEMM jobs waiting for it (step 0, the local jobs, step 1, the jobs of
  /// step 0, ...); gemm_feeds_collective: each step right after the GEMM job it moves.
  const std::vector<DependentAction>& actions() const { return actions_; }

  /// The collective-library calls of step `step` on the cu transport (not dma): all_gather
  /// and reduce_scatter one call per rank in rank order, copies a send and a recv per copy.
  std::vector<CclCall> ccl_calls(int step) const;

  /// The rows rank `rank` fills with NaN before a checked run: every output row, and every
  /// row the schedule moves or stages (all_gather: all of a but the rank's own shard).
  std::vector<RowRange> poison_ranges(int rank) const;
  /// The moved A rows to check bitwise (collective_feeds_gemm; none otherwise), ranks in
  /// order, then the block's source rank.
  std::vector<MovedRowsCheck> moved_row_checks() const;
  /// "rank r: A rows from rank p: N elements wrong, first in row i".
  std::string moved_rows_error(const MovedRowsCheck& check, std::uint64_t mismatches,
                               std::uint64_t first_bad) const;

  /// The transport's name: the dma variant of one copy per piece, or `ccl` ("nccl", "rccl").
  std::string transport(const std::string& ccl) const;
  /// The schedule in words (DependentReport::note).
  std::string note(const std::string& transport) const;

 private:
  C3Pair pair_;
  DependentOptions opt_;
  validator::DependentSchedule sched_;
  bool serial_ = false, dma_ = false, feeds_ = false;
  std::int64_t n_ = 0, k_ = 0, block_ = 0;
  StreamRole gemm_role_ = StreamRole::work, comm_role_ = StreamRole::collective;
  bool comm_hi_ = false;
  int partition_cus_ = 0, ctas_ = 0;
  std::vector<DependentAction> actions_;
};

/// The sampled check of every rank's output: the first and last row of every piece (of
/// every block when serial), the four corners, then `check_samples` hashed positions; each
/// against a double-precision host reference of the undecomposed computation
/// (validator::out_row_terms), with a tolerance of the output's rounding (bf16 2^-8, fp16
/// 2^-10 relative; for a sum of ranks' terms, of each term too) plus 1% of the products'
/// norm.
class DependentCheck {
 public:
  explicit DependentCheck(const DependentLayout& layout);

  std::size_t size(int rank) const { return rows_.at(static_cast<std::size_t>(rank)).size(); }
  std::int64_t row(int rank, std::size_t s) const { return rows_.at(static_cast<std::size_t>(rank)).at(s); }
  std::int64_t col(int rank, std::size_t s) const { return cols_.at(static_cast<std::size_t>(rank)).at(s); }
  /// Row-major indices into rank `rank`'s `out` of its samples (what the device gathers).
  std::vector<std::int64_t> indices(int rank) const;
  /// The host reference and tolerance of sample s of rank `rank` (computed at first use).
  double reference(int rank, std::size_t s) const;
  double tolerance(int rank, std::size_t s) const;
  /// Compares the gathered samples (bits, in indices() order) of rank `rank`; returns the
  /// mismatches (NaN fails) and describes the first in *first_error (when empty) as
  /// "rank r output(i,j) = v, expected ref (tolerance t)". Throws InputError when `got`
  /// has another size.
  std::int64_t compare(int rank, const std::vector<std::uint16_t>& got, std::string* first_error) const;

 private:
  void compute(int rank) const;
  const DependentLayout* layout_;
  std::vector<std::vector<std::int64_t>> rows_, cols_;
  mutable std::vector<std::vector<double>> ref_, tol_;
};

}  // namespace c3::device
