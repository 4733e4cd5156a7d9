// backends/device/dependent_run.cpp: a dependent pair's run as data (dependent_run.hpp).
#include "backends/device/dependent_run.hpp"

#include <cmath>
#include <sstream>

#include "c3/errors.hpp"
#include "backends/device/failure.hpp"
#include "backends/device/gemm_check.hpp"
#include "backends/device/patterns.hpp"

namespace c3::device {
namespace {

using validator::DepBuffer;
using validator::RowTerm;

// Pattern roles (seed_for) of the dependent runner's inputs; distinct from the GEMM
// runners' and the collectives', so that data from the wrong buffer cannot pass a check.
constexpr std::uint32_t kRoleDepA = 21;
constexpr std::uint32_t kRoleDepB = 22;
constexpr std::uint32_t kRoleDepSend = 23;

std::uint32_t role_of(DepBuffer b) { return b == DepBuffer::send ? kRoleDepSend : kRoleDepA; }

[[noreturn]] void unsupported(const std::string& why) { throw Failure("unsupported", why); }

std::vector<DependentAction> launch_order(const validator::DependentSchedule& sched) {
  std::vector<DependentAction> out;
  const int steps = static_cast<int>(sched.comm.size());
  const int R = sched.ranks;
  const auto step = [&](int s) { out.push_back({DependentAction::Kind::step, 0, static_cast<std::size_t>(s)}); };
  const auto gemm = [&](int r, std::size_t j) { out.push_back({DependentAction::Kind::gemm, r, j}); };
  if (sched.dependency == Dependency::collective_feeds_gemm) {
    std::vector<std::size_t> next(static_cast<std::size_t>(R), 0);
    for (int s = 0; s <= steps; ++s) {
      if (s < steps) step(s);
      for (int r = 0; r < R; ++r) {
        const auto& jobs = sched.gemms[static_cast<std::size_t>(r)];
        auto& j = next[static_cast<std::size_t>(r)];
        while (j < jobs.size() && jobs[j].waits_for_step <= s - 1) gemm(r, j++);
      }
    }
    return out;
  }
  const std::size_t jobs = sched.gemms.front().size();
  int next_step = 0;
  for (std::size_t j = 0; j < jobs; ++j) {
    for (int r = 0; r < R; ++r) gemm(r, j);
    while (next_step < steps && sched.comm[static_cast<std::size_t>(next_step)].waits_for_gemm <= static_cast<int>(j))
      step(next_step++);
  }
  while (next_step < steps) step(next_step++);
  return out;
}

}  // namespace

std::uint32_t common_alignment(std::initializer_list<std::uint64_t> byte_values) {
  std::uint64_t bits = 256;
  for (std::uint64_t v : byte_values) bits |= v;
  return static_cast<std::uint32_t>(bits & (~bits + 1));  // lowest set bit
}

RowPieceKey row_piece_key(const RowPiece& p, std::int64_t n, std::int64_t k) {
  const auto a = reinterpret_cast<std::uintptr_t>(p.a);
  const auto o = reinterpret_cast<std::uintptr_t>(p.out);
  const std::int64_t a_stride = p.count > 1 ? p.a_stride_rows : 0;
  const std::int64_t o_stride = p.count > 1 ? p.out_stride_rows : 0;
  const auto bytes = [](std::int64_t elems) { return static_cast<std::uint64_t>(elems) * 2; };
  return {p.rows, p.count, a_stride, o_stride, common_alignment({a, bytes(k), bytes(a_stride * k)}),
          common_alignment({o, bytes(n), bytes(o_stride * n)})};
}

void describe(RunDetail& d, const DependentReport& rep, int ranks) {
  d.ranks = ranks;
  d.chunks = rep.chunks;
  d.size_bytes = rep.size_bytes;
  d.transport = rep.transport;
  d.gemm_sms = rep.gemm_sms;
  d.collective_sms = rep.collective_sms;
  d.collective_ctas = rep.collective_ctas;
  d.gemm_algo = rep.gemm_algo;
  d.note = rep.note;
}

ExecutionPlan dependent_execution(const C3Pair& pair, const Strategy& s) {
  const ExecutionPlan how = strategies::plan_of(s);
  if (how.order != LaunchOrder::serial && how.chunks < 2)
    unsupported(s.label() + " runs the GEMM and the collective at once as whole kernels, but in this pair (" +
                std::string(to_string(pair.dependency)) +
                ") one needs the other's output: a dependent pair runs serial or chunked:* only");
  if (how.chunks > kMaxDependentChunks)
    unsupported(s.label() + ": at most " + std::to_string(kMaxDependentChunks) + " chunks");
  return how;
}

DependentLayout::DependentLayout(const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
                                 const DependentSupport& support)
    : pair_(pair), opt_(options) {
  const Collective& c = pair.collective;
  if (pair.dependency == Dependency::none) unsupported("an independent pair has no dependent schedule");
  try {
    validate_dependency(pair.gemm, c, pair.dependency);
  } catch (const InputError& e) {
    unsupported(e.what());
  }
  if (pair.gemm.dtype != DType::bf16 && pair.gemm.dtype != DType::fp16)
    unsupported("dependent pairs run in bf16 or fp16 (got " + std::string(to_string(pair.gemm.dtype)) + ")");
  if (c.ranks > support.gpus)
    unsupported(std::to_string(c.ranks) + " ranks but " + std::to_string(support.gpus) + " GPUs");
  serial_ = how.order == LaunchOrder::serial;
  if (!serial_ && how.order != LaunchOrder::collective_first)
    unsupported("a dependent pair runs serial or decomposed (chunked), not concurrently as one piece");
  if (serial_ && how.chunks != 1) unsupported("a serial plan takes no chunks");
  if (!serial_ && how.chunks < 2) unsupported("a decomposed schedule needs at least 2 chunks");
  dma_ = !serial_ && how.transport == Transport::dma;
  if (dma_) {
    if (!dma_capable(c.kind)) unsupported(std::string(to_string(c.kind)) + " has no dma transport (copy engines cannot reduce)");
    if (!support.peer_ok) unsupported("peer access is not available: " + support.peer_note);
    if (support.whole_collective_dma)
      unsupported("dma variant " + support.whole_collective_dma_name +
                  " moves whole collectives only; the pieces of a decomposed schedule run on the ce_* variants");
    if (how.collective_cus > 0) unsupported("pieces on copy engines take no SM partition");
  }
  try {
    sched_ = validator::dependent_schedule(pair.dependency, c.kind, pair.gemm.m, c.ranks, serial_ ? 1 : how.chunks);
  } catch (const InputError& e) {
    unsupported(e.what());
  }
  feeds_ = pair.dependency == Dependency::collective_feeds_gemm;
  n_ = pair.gemm.n;
  k_ = pair.gemm.k;
  block_ = validator::block_rows(pair.gemm.m, c.ranks);
  comm_hi_ = opt_.collective_high_priority;
  if (serial_) {  // one stream: the collective and the GEMM in dependency order
    gemm_role_ = comm_role_ = StreamRole::work;
    comm_hi_ = false;
  } else if (dma_) {
    gemm_role_ = StreamRole::work;
    comm_role_ = StreamRole::copy_engines;
    comm_hi_ = false;
  } else if (how.collective_cus > 0) {  // the pieces' collective in a partition, the GEMM in the rest (as rp)
    partition_cus_ = ctas_ = how.collective_cus;
    gemm_role_ = StreamRole::partition_rest;
    comm_role_ = opt_.partition_collective ? StreamRole::partition_group : StreamRole::collective;
  } else {
    gemm_role_ = StreamRole::work;
    comm_role_ = StreamRole::collective;
  }
  actions_ = launch_order(sched_);
}

std::int64_t DependentLayout::width(DepBuffer b) const { return b == DepBuffer::a || b == DepBuffer::send ? k_ : n_; }

std::int64_t DependentLayout::rows(DepBuffer b) const {
  switch (b) {
    case DepBuffer::a:
      return sched_.m;
    case DepBuffer::send:
    case DepBuffer::staged:
      return sched_.uses(b) ? sched_.m : 0;
    case DepBuffer::out:
      break;
  }
  return sched_.out_rows;
}

FillKind DependentLayout::fill_kind() const {
  return pair_.gemm.dtype == DType::fp16 ? FillKind::gemm_fp16 : FillKind::gemm_bf16;
}

std::uint64_t DependentLayout::b_seed() const { return pattern::seed_for(kRoleDepB, 0, opt_.epoch); }

std::vector<RowFill> DependentLayout::input_fills(int r) const {
  const auto seed = [&](std::uint32_t role) { return pattern::seed_for(role, static_cast<std::uint32_t>(r), opt_.epoch); };
  const std::int64_t m = sched_.m;
  if (feeds_ && sched_.kind == CollectiveKind::all_gather)  // its own shard: rows [r block, (r+1) block) of A
    return {{{DepBuffer::a, r * block_, block_}, fill_kind(), seed(kRoleDepA), static_cast<std::uint64_t>(r * block_ * k_)}};
  if (feeds_) return {{{DepBuffer::send, 0, m}, fill_kind(), seed(kRoleDepSend), 0}};
  return {{{DepBuffer::a, 0, m}, fill_kind(), seed(kRoleDepA), 0}};
}

std::vector<CclCall> DependentLayout::ccl_calls(int step) const {
  const validator::DepStep& st = sched_.comm.at(static_cast<std::size_t>(step));
  const int R = sched_.ranks;
  std::vector<CclCall> out;
  const auto elems = [&](DepBuffer b, std::int64_t rows) { return static_cast<std::size_t>(rows * width(b)); };
  switch (st.op) {
    case validator::DepStep::Op::all_gather:  // in place: each rank's block of A is its send buffer
      for (int r = 0; r < R; ++r) {
        CclCall c;
        c.op = CclCall::Op::all_gather;
        c.rank = r;
        c.send = {DepBuffer::a, r * st.rows, st.rows};
        c.recv = {DepBuffer::a, 0, R * st.rows};
        c.count = elems(DepBuffer::a, st.rows);
        out.push_back(c);
      }
      break;
    case validator::DepStep::Op::reduce_scatter:
      for (int r = 0; r < R; ++r) {
        CclCall c;
        c.op = CclCall::Op::reduce_scatter;
        c.rank = r;
        c.send = {DepBuffer::staged, st.src_row, R * st.rows};
        c.recv = {DepBuffer::out, st.dst_row, st.rows};
        c.count = elems(DepBuffer::out, st.rows);
        out.push_back(c);
      }
      break;
    case validator::DepStep::Op::copies:
      for (const validator::RowCopy& cp : st.copies) {
        CclCall s;
        s.op = CclCall::Op::send;
        s.rank = cp.src_rank;
        s.peer = cp.dst_rank;
        s.send = {cp.src, cp.src_row, cp.rows};
        s.count = elems(cp.src, cp.rows);
        CclCall r = s;
        r.op = CclCall::Op::recv;
        r.rank = cp.dst_rank;
        r.peer = cp.src_rank;
        r.send = {};
        r.recv = {cp.dst, cp.dst_row, cp.rows};
        out.push_back(s);
        out.push_back(r);
      }
      break;
  }
  return out;
}

std::vector<RowRange> DependentLayout::poison_ranges(int r) const {
  std::vector<RowRange> out;
  const auto nan = [&](DepBuffer b, std::int64_t row, std::int64_t rows) {
    if (rows > 0) out.push_back({b, row, rows});
  };
  nan(DepBuffer::out, 0, sched_.out_rows);
  if (feeds_ && sched_.kind == CollectiveKind::all_gather) {  // every row but its own shard
    nan(DepBuffer::a, 0, r * block_);
    nan(DepBuffer::a, (r + 1) * block_, sched_.m - (r + 1) * block_);
  } else if (feeds_) {
    nan(DepBuffer::a, 0, sched_.m);
  } else {
    nan(DepBuffer::staged, 0, sched_.m);
  }
  return out;
}

std::vector<MovedRowsCheck> DependentLayout::moved_row_checks() const {
  std::vector<MovedRowsCheck> out;
  if (!feeds_) return out;
  const bool a2a = sched_.kind == CollectiveKind::all_to_all;
  for (int r = 0; r < sched_.ranks; ++r)
    for (int p = 0; p < sched_.ranks; ++p) {
      // A decomposed all_to_all reads the own block from the send buffer: nothing lands there.
      if (a2a && p == r && !serial_) continue;
      MovedRowsCheck c;
      c.rank = r;
      c.from = p;
      c.row = p * block_;
      c.args.kind = CheckKind::operand;
      c.args.count = static_cast<std::size_t>(block_ * k_);
      c.args.fp16 = pair_.gemm.dtype == DType::fp16;
      // all_gather: rank p's shard, rows p block.. of A; all_to_all: rank p's send block r.
      c.args.copy_seed = pattern::seed_for(a2a ? kRoleDepSend : kRoleDepA, static_cast<std::uint32_t>(p), opt_.epoch);
      c.args.copy_offset = static_cast<std::uint64_t>((a2a ? r : p) * block_ * k_);
      out.push_back(c);
    }
  return out;
}

std::string DependentLayout::moved_rows_error(const MovedRowsCheck& c, std::uint64_t mismatches,
                                              std::uint64_t first_bad) const {
  return "rank " + std::to_string(c.rank) + ": A rows from rank " + std::to_string(c.from) + ": " +
         std::to_string(mismatches) + " elements wrong, first in row " +
         std::to_string(c.row + static_cast<std::int64_t>(first_bad) / k_);
}

std::string DependentLayout::transport(const std::string& ccl) const {
  if (!dma_) return ccl;
  return validator::to_string(validator::CeOptions{opt_.ce.api, opt_.ce.direction, 1, opt_.ce.prefer_overlap});
}

std::string DependentLayout::note(const std::string& transport) const {
  const std::int64_t m = sched_.m;
  std::ostringstream note;
  note << to_string(pair_.dependency) << " " << to_string(sched_.kind) << ", ";
  if (serial_) {
    note << "undecomposed on one stream: " << (feeds_ ? "the whole collective, then the GEMM of all " : "the GEMM of all ")
         << m << " rows" << (feeds_ ? "" : ", then the whole collective");
  } else {
    note << sched_.chunks << " chunks of " << validator::piece_rows(m, sched_.chunks) << " rows in " << sched_.steps
         << " steps on " << transport << (ctas_ > 0 ? " (" + std::to_string(ctas_) + " CTAs)" : "") << ": "
         << (feeds_ ? "the GEMM computes the local " + std::to_string(block_) +
                          " rows first, then each step's pieces after the step (one strided-batched GEMM per run "
                          "of peers)"
                    : "each step's GEMM (one strided-batched GEMM of the step's piece of every rank's block), "
                      "then that step's collective");
  }
  return note.str();
}

// ---------------------------------------------------------------------------------------
DependentCheck::DependentCheck(const DependentLayout& layout) : layout_(&layout) {
  const validator::DependentSchedule& sched = layout.schedule();
  const std::int64_t n = layout.n();
  const std::int64_t group = layout.serial() ? layout.block() : validator::piece_rows(sched.m, sched.chunks);
  const std::uint32_t epoch = layout.options().epoch;
  const auto R = static_cast<std::size_t>(sched.ranks);
  rows_.resize(R);
  cols_.resize(R);
  ref_.resize(R);
  tol_.resize(R);
  for (int r = 0; r < sched.ranks; ++r) {
    auto& rows = rows_[static_cast<std::size_t>(r)];
    auto& cols = cols_[static_cast<std::size_t>(r)];
    const auto add = [&](std::int64_t i, std::int64_t j) {
      rows.push_back(i);
      cols.push_back(j);
    };
    const std::int64_t last = sched.out_rows - 1;
    std::uint64_t h = epoch * 7919ull + static_cast<std::uint64_t>(r);
    const auto below = [&](std::int64_t bound) {  // a hashed index in [0, bound)
      return static_cast<std::int64_t>(pattern::mix64(++h) % static_cast<std::uint64_t>(bound));
    };
    for (std::int64_t g0 = 0; g0 < sched.out_rows; g0 += group) {
      add(g0, below(n));
      add(g0 + group - 1, below(n));
    }
    add(0, 0);
    add(last, n - 1);
    add(0, n - 1);
    add(last, 0);
    for (int s = 0; s < layout.options().check_samples; ++s) {
      const std::int64_t i = below(sched.out_rows);
      add(i, below(n));
    }
  }
}

std::vector<std::int64_t> DependentCheck::indices(int rank) const {
  const auto& rows = rows_.at(static_cast<std::size_t>(rank));
  const auto& cols = cols_.at(static_cast<std::size_t>(rank));
  std::vector<std::int64_t> idx(rows.size());
  for (std::size_t s = 0; s < idx.size(); ++s) idx[s] = rows[s] * layout_->n() + cols[s];
  return idx;
}

void DependentCheck::compute(int r) const {
  auto& ref = ref_.at(static_cast<std::size_t>(r));
  if (!ref.empty() || size(r) == 0) return;
  auto& tol = tol_[static_cast<std::size_t>(r)];
  const DType t = layout_->pair().gemm.dtype;
  const std::int64_t k = layout_->k();
  const std::uint32_t epoch = layout_->options().epoch;
  const std::uint64_t seed_b = layout_->b_seed();
  // Output rounding (bf16: 2^-8 relative, fp16: 2^-10) and, for a reduction, the rounding
  // of each rank's term and of the sum; plus 1% of the products' norm (GemmRunner's rule).
  const double rel = t == DType::fp16 ? 1.0 / 1024 : 1.0 / 128;
  for (std::size_t s = 0; s < size(r); ++s) {
    const std::vector<RowTerm> terms = validator::out_row_terms(layout_->schedule(), r, row(r, s));
    double sum = 0, abs_terms = 0, sq = 0;
    const auto bj = static_cast<std::uint64_t>(col(r, s) * k);
    for (const RowTerm& term : terms) {
      const std::uint64_t seed = pattern::seed_for(role_of(term.buffer), static_cast<std::uint32_t>(term.rank), epoch);
      const auto ai = static_cast<std::uint64_t>(term.row * k);
      double acc = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        const auto lu = static_cast<std::uint64_t>(l);
        const double prod = decode(t, operand_bits(t, seed, ai + lu)) * decode(t, operand_bits(t, seed_b, bj + lu));
        acc += prod;
        sq += prod * prod;
      }
      sum += acc;
      abs_terms += std::fabs(acc);
    }
    ref.push_back(sum);
    tol.push_back(rel * (std::fabs(sum) + (terms.size() > 1 ? abs_terms : 0.0)) + 1e-2 * std::sqrt(sq) + 1e-6);
  }
}

double DependentCheck::reference(int rank, std::size_t s) const {
  compute(rank);
  return ref_[static_cast<std::size_t>(rank)].at(s);
}

double DependentCheck::tolerance(int rank, std::size_t s) const {
  compute(rank);
  return tol_[static_cast<std::size_t>(rank)].at(s);
}

std::int64_t DependentCheck::compare(int r, const std::vector<std::uint16_t>& got, std::string* first_error) const {
  if (got.size() != size(r))
    throw InputError("dependent check: " + std::to_string(got.size()) + " samples for " + std::to_string(size(r)));
  compute(r);
  const DType t = layout_->pair().gemm.dtype;
  const auto& ref = ref_[static_cast<std::size_t>(r)];
  const auto& tol = tol_[static_cast<std::size_t>(r)];
  std::int64_t bad = 0;
  for (std::size_t s = 0; s < got.size(); ++s) {
    const double v = decode(t, got[s]);
    if (std::fabs(v - ref[s]) <= tol[s]) continue;  // NaN fails too
    ++bad;
    if (first_error && first_error->empty()) {
      std::ostringstream os;
      os << "rank " << r << " output(" << row(r, s) << "," << col(r, s) << ") = " << v << ", expected " << ref[s]
         << " (tolerance " << tol[s] << ")";
      *first_error = os.str();
    }
  }
  return bad;
}

}  // namespace c3::device
