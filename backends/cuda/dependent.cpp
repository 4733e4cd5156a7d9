// backends/cuda/dependent.cpp: dependent pairs on every rank, undecomposed or in pieces
// (dependent.hpp). The schedule (which rows each step moves, which rows each GEMM job
// computes) is validator::dependent_schedule's; this file only issues it: NCCL or copy
// engines for the steps, RowGemm for the jobs, events between the two streams.
#include "backends/cuda/dependent.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include "c3/errors.hpp"
#include "backends/cuda/collectives.hpp"
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/row_gemm.hpp"
#include "backends/device/gemm_check.hpp"

namespace c3::cuda {
namespace {

using validator::DepBuffer;
using validator::DepGemm;
using validator::DepStep;
using validator::RowCopy;
using validator::RowTerm;

// Pattern roles (seed_for) of the dependent runner's inputs; distinct from GemmRunner's and
// the collectives', so that data from the wrong buffer cannot pass a check.
constexpr std::uint32_t kRoleDepA = 21;
constexpr std::uint32_t kRoleDepB = 22;
constexpr std::uint32_t kRoleDepSend = 23;

std::uint32_t role_of(DepBuffer b) { return b == DepBuffer::send ? kRoleDepSend : kRoleDepA; }

ncclDataType_t nccl_type(DType t) { return t == DType::fp16 ? ncclFloat16 : ncclBfloat16; }

[[noreturn]] void unsupported(const std::string& why) { throw CudaFailure("unsupported", why); }

// An event in `ctx` (nullptr: the primary context of `device`); recorded on a stream of that
// context, waited on from any stream (cuStreamWaitEvent takes events of other contexts).
CUevent make_event(int device, CUcontext ctx) {
  if (!ctx) C3_CUDA(cudaSetDevice(device));
  ScopedContext scope(ctx);
  CUevent e = nullptr;
  C3_CU(driver().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
  return e;
}

void record(CUevent e, const Lane& lane, int device) {
  if (!lane.ctx) C3_CUDA(cudaSetDevice(device));
  ScopedContext scope(lane.ctx);
  C3_CU(driver().cuEventRecord(e, lane.stream));
}

void wait(const Lane& lane, CUevent e) { C3_CU(driver().cuStreamWaitEvent(lane.stream, e, 0)); }

void destroy_events(std::vector<CUevent>& events) noexcept {
  for (CUevent e : events)
    if (e) driver().cuEventDestroy(e);
  events.clear();
}

using device::decode;
using device::operand_bits;

}  // namespace

struct DependentRun::Rank {
  int device = 0;
  DeviceBuffer a, send, staged, out, b, idx, samples;
  std::unique_ptr<RowGemm> gemm;
  Lane* gemm_lane = nullptr;
  Lane* comm_lane = nullptr;       // the NCCL steps' stream (cu); nullptr on copy engines
  std::vector<CUevent> step_done;  // cu, collective_feeds_gemm: after step s on comm_lane
  std::vector<CUevent> gemm_done;  // gemm_feeds_collective: after GEMM job j on gemm_lane
  std::vector<std::int64_t> sample_row, sample_col;
  std::vector<double> ref, tol;    // host reference per sample (computed at the first check)
  ~Rank() {
    destroy_events(step_done);
    destroy_events(gemm_done);
  }
};

std::int64_t DependentRun::width(DepBuffer b) const { return b == DepBuffer::a || b == DepBuffer::send ? k_ : n_; }

std::uint16_t* DependentRun::row_ptr(int rank, DepBuffer b, std::int64_t row) const {
  const Rank& r = *ranks_.at(static_cast<std::size_t>(rank));
  const DeviceBuffer& buf = b == DepBuffer::a ? r.a : b == DepBuffer::send ? r.send : b == DepBuffer::staged ? r.staged : r.out;
  return buf.as<std::uint16_t>() + row * width(b);
}

DependentRun::DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
                           bool nccl_ce_selected)
    : rt_(rt), pair_(pair), opt_(options) {
  const Collective& c = pair.collective;
  if (pair.dependency == Dependency::none) unsupported("an independent pair has no dependent schedule");
  try {
    validate_dependency(pair.gemm, c, pair.dependency);
  } catch (const InputError& e) {
    unsupported(e.what());
  }
  if (pair.gemm.dtype != DType::bf16 && pair.gemm.dtype != DType::fp16)
    unsupported("dependent pairs run in bf16 or fp16 (got " + std::string(to_string(pair.gemm.dtype)) + ")");
  if (c.ranks > rt.count())
    unsupported(std::to_string(c.ranks) + " ranks but " + std::to_string(rt.count()) + " GPUs");
  serial_ = how.order == LaunchOrder::serial;
  if (!serial_ && how.order != LaunchOrder::collective_first)
    unsupported("a dependent pair runs serial or decomposed (chunked), not concurrently as one piece");
  if (serial_ && how.chunks != 1) unsupported("a serial plan takes no chunks");
  if (!serial_ && how.chunks < 2) unsupported("a decomposed schedule needs at least 2 chunks");
  dma_ = !serial_ && how.transport == Transport::dma;
  if (dma_) {
    if (!dma_capable(c.kind)) unsupported(std::string(to_string(c.kind)) + " has no dma transport (copy engines cannot reduce)");
    if (!rt.peer_ok) unsupported("peer access is not available: " + rt.peer_note);
    if (nccl_ce_selected)
      unsupported("dma variant nccl_ce moves whole collectives only; the pieces of a decomposed schedule run on the "
                  "ce_* variants");
    if (how.collective_cus > 0) unsupported("pieces on copy engines take no SM partition");
  }
  try {
    sched_ = validator::dependent_schedule(pair.dependency, c.kind, pair.gemm.m, c.ranks, serial_ ? 1 : how.chunks);
  } catch (const InputError& e) {
    unsupported(e.what());
  }
  n_ = pair.gemm.n;
  k_ = pair.gemm.k;
  const std::int64_t m = pair.gemm.m;
  const int R = c.ranks;
  const std::int64_t block = validator::block_rows(m, R);
  const bool feeds = pair.dependency == Dependency::collective_feeds_gemm;
  const bool hi = opt_.collective_high_priority;
  const auto fill_kind = pair.gemm.dtype == DType::fp16 ? kernels::FillKind::gemm_fp16 : kernels::FillKind::gemm_bf16;
  const auto bytes = [](std::int64_t elems) { return static_cast<std::size_t>(elems) * 2; };

  int ctas = 0;
  for (int r = 0; r < R; ++r) {
    Gpu& g = rt.gpu(r);
    auto rank = std::make_unique<Rank>();
    rank->device = g.device;
    if (serial_) {  // one stream: the collective and the GEMM in dependency order
      rank->gemm_lane = rank->comm_lane = &g.work;
    } else if (dma_) {
      rank->gemm_lane = &g.work;
    } else if (how.collective_cus > 0) {  // the pieces' NCCL in a partition, the GEMM in the rest (as rp)
      Partition& p = rt.partition(r, how.collective_cus);
      rank->gemm_lane = &p.rest.lane;
      rank->comm_lane = opt_.partition_collective ? (hi ? &p.group.lane_hi : &p.group.lane) : (hi ? &g.coll_hi : &g.coll);
      ctas = how.collective_cus;
    } else {
      rank->gemm_lane = &g.work;
      rank->comm_lane = hi ? &g.coll_hi : &g.coll;
    }
    // Buffers: inputs from patterns, everything else NaN until written.
    rank->a = DeviceBuffer(g.device, bytes(m * k_));
    if (sched_.uses(DepBuffer::send)) rank->send = DeviceBuffer(g.device, bytes(m * k_));
    if (sched_.uses(DepBuffer::staged)) rank->staged = DeviceBuffer(g.device, bytes(m * n_));
    rank->out = DeviceBuffer(g.device, bytes(sched_.out_rows * n_));
    rank->b = DeviceBuffer(g.device, bytes(n_ * k_));
    C3_CUDA(cudaSetDevice(g.device));
    for (const DeviceBuffer* buf : {&rank->a, &rank->send, &rank->staged, &rank->out})
      if (buf->bytes()) C3_CUDA(cudaMemsetAsync(buf->get(), 0xFF, buf->bytes(), g.work.stream));
    const auto seed = [&](std::uint32_t role) { return pattern::seed_for(role, static_cast<std::uint32_t>(r), opt_.epoch); };
    C3_CUDA(kernels::fill(rank->b.as<std::uint16_t>(), static_cast<std::size_t>(n_ * k_), fill_kind,
                          pattern::seed_for(kRoleDepB, 0, opt_.epoch), 0, g.work.stream));
    if (feeds && c.kind == CollectiveKind::all_gather)  // its own shard: rows [r block, (r+1) block) of A
      C3_CUDA(kernels::fill(rank->a.as<std::uint16_t>() + r * block * k_, static_cast<std::size_t>(block * k_),
                            fill_kind, seed(kRoleDepA), static_cast<std::uint64_t>(r * block * k_), g.work.stream));
    else if (feeds)
      C3_CUDA(kernels::fill(rank->send.as<std::uint16_t>(), static_cast<std::size_t>(m * k_), fill_kind,
                            seed(kRoleDepSend), 0, g.work.stream));
    else
      C3_CUDA(kernels::fill(rank->a.as<std::uint16_t>(), static_cast<std::size_t>(m * k_), fill_kind, seed(kRoleDepA),
                            0, g.work.stream));
    rank->gemm = std::make_unique<RowGemm>(g.device, pair.gemm.dtype, n_, k_, rank->b.as<std::uint16_t>());
    ranks_.push_back(std::move(rank));
    gpus_.push_back(r);
  }
  rt.sync_all(60);

  // GEMM plans now (outside the timed runs), events, communicators.
  const auto piece = [&](int r, const DepGemm& j) {
    return RowGemm::Piece{row_ptr(r, j.a_buffer, j.a_row), j.a_stride, row_ptr(r, j.out_buffer, j.out_row),
                          j.out_stride, j.rows, j.count};
  };
  for (int r = 0; r < R; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    for (const DepGemm& j : sched_.gemms[static_cast<std::size_t>(r)]) rank.gemm->prepare(piece(r, j));
    if (serial_) continue;
    if (feeds && !dma_)
      for (int s = 0; s < sched_.steps; ++s) rank.step_done.push_back(make_event(rank.device, rank.comm_lane->ctx));
    if (!feeds)
      for (std::size_t j = 0; j < sched_.gemms[static_cast<std::size_t>(r)].size(); ++j)
        rank.gemm_done.push_back(make_event(rank.device, rank.gemm_lane->ctx));
  }
  if (dma_ && feeds)
    for (const DepStep& st : sched_.comm) {
      copy_done_.emplace_back();
      for (const RowCopy& cp : st.copies) {
        const int owner = opt_.ce.direction == CeDirection::push ? cp.src_rank : cp.dst_rank;
        copy_done_.back().push_back(make_event(rt.gpu(owner).device, nullptr));
      }
    }
  if (!dma_) {
    comms_ = rt.comms(R, ctas);
    watch_ = comms_;
  }
  std::set<Lane*> lanes;
  for (auto& rank : ranks_) {
    lanes.insert(rank->gemm_lane);
    if (rank->comm_lane) lanes.insert(rank->comm_lane);
  }
  if (dma_)
    for (Lane* l : ce_lanes(rt, R)) lanes.insert(l);
  lanes_.assign(lanes.begin(), lanes.end());

  // Samples of every rank's output: the first and last row of every piece, the corners,
  // then hashed positions.
  const std::int64_t group = serial_ ? block : validator::piece_rows(m, sched_.chunks);
  for (int r = 0; r < R; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    const auto add = [&](std::int64_t i, std::int64_t j) {
      rank.sample_row.push_back(i);
      rank.sample_col.push_back(j);
    };
    const std::int64_t last = sched_.out_rows - 1;
    std::uint64_t h = opt_.epoch * 7919ull + static_cast<std::uint64_t>(r);
    const auto below = [&](std::int64_t bound) {  // a hashed index in [0, bound)
      return static_cast<std::int64_t>(pattern::mix64(++h) % static_cast<std::uint64_t>(bound));
    };
    for (std::int64_t g0 = 0; g0 < sched_.out_rows; g0 += group) {
      add(g0, below(n_));
      add(g0 + group - 1, below(n_));
    }
    add(0, 0);
    add(last, n_ - 1);
    add(0, n_ - 1);
    add(last, 0);
    for (int s = 0; s < opt_.check_samples; ++s) {
      const std::int64_t i = below(sched_.out_rows);
      add(i, below(n_));
    }
    std::vector<std::int64_t> idx(rank.sample_row.size());
    for (std::size_t s = 0; s < idx.size(); ++s) idx[s] = rank.sample_row[s] * n_ + rank.sample_col[s];
    rank.idx = DeviceBuffer(rank.device, idx.size() * sizeof(std::int64_t));
    rank.samples = DeviceBuffer(rank.device, idx.size() * sizeof(std::uint16_t));
    C3_CUDA(cudaSetDevice(rank.device));
    C3_CUDA(cudaMemcpy(rank.idx.get(), idx.data(), idx.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  }

  // What ran.
  Rank& r0 = *ranks_.front();
  const RowGemm::Piece first = piece(0, sched_.gemms.front().front());
  report_.chunks = sched_.chunks;
  report_.steps = sched_.steps;
  report_.size_bytes = c.size_bytes;
  report_.transport = dma_ ? to_string(CeOptions{opt_.ce.api, opt_.ce.direction, 1, opt_.ce.prefer_overlap})
                           : std::string("nccl");
  report_.gemm_sms = r0.gemm_lane->sms;
  report_.collective_sms = r0.comm_lane ? r0.comm_lane->sms : 0;
  report_.collective_ctas = ctas;
  report_.gemm_algo = r0.gemm->describe(first);
  report_.first_kernel = r0.gemm->kernel(first);
  std::ostringstream note;
  note << to_string(pair.dependency) << " " << to_string(c.kind) << ", ";
  if (serial_) {
    note << "undecomposed on one stream: " << (feeds ? "the whole collective, then the GEMM of all " : "the GEMM of all ")
         << m << " rows" << (feeds ? "" : ", then the whole collective");
  } else {
    note << sched_.chunks << " chunks of " << validator::piece_rows(m, sched_.chunks) << " rows in " << sched_.steps
         << " steps on " << report_.transport << (ctas > 0 ? " (" + std::to_string(ctas) + " CTAs)" : "") << ": "
         << (feeds ? "the GEMM computes the local " + std::to_string(block) +
                         " rows first, then each step's pieces after the step (one strided-batched GEMM per run "
                         "of peers)"
                   : "each step's GEMM (one strided-batched GEMM of the step's piece of every rank's block), "
                     "then that step's collective");
  }
  report_.note = note.str();
}

DependentRun::~DependentRun() {
  for (auto& events : copy_done_) destroy_events(events);
}

void DependentRun::wait_for_step(int r, int step) {
  if (serial_) return;  // one stream
  Rank& rank = *ranks_[static_cast<std::size_t>(r)];
  if (!dma_) {
    wait(*rank.gemm_lane, rank.step_done[static_cast<std::size_t>(step)]);
    return;
  }
  const DepStep& st = sched_.comm[static_cast<std::size_t>(step)];
  for (std::size_t ci = 0; ci < st.copies.size(); ++ci)
    if (st.copies[ci].dst_rank == r) wait(*rank.gemm_lane, copy_done_[static_cast<std::size_t>(step)][ci]);
}

void DependentRun::launch_gemm(int r, std::size_t j) {
  Rank& rank = *ranks_[static_cast<std::size_t>(r)];
  const DepGemm& job = sched_.gemms[static_cast<std::size_t>(r)][j];
  if (job.waits_for_step >= 0) wait_for_step(r, job.waits_for_step);
  rank.gemm->launch({row_ptr(r, job.a_buffer, job.a_row), job.a_stride, row_ptr(r, job.out_buffer, job.out_row),
                     job.out_stride, job.rows, job.count},
                    *rank.gemm_lane);
  if (!rank.gemm_done.empty()) record(rank.gemm_done[j], *rank.gemm_lane, rank.device);
}

void DependentRun::launch_step(int step) {
  const DepStep& st = sched_.comm[static_cast<std::size_t>(step)];
  const bool drop = opt_.drop_last_step && step + 1 == static_cast<int>(sched_.comm.size());
  const int w = st.waits_for_gemm;
  if (dma_) {
    const bool push = opt_.ce.direction == CeDirection::push;
    CeOptions ce = opt_.ce;
    ce.launch = CeLaunch::host;
    for (std::size_t ci = 0; ci < st.copies.size(); ++ci) {
      const RowCopy& cp = st.copies[ci];
      const int owner = push ? cp.src_rank : cp.dst_rank;
      Gpu& g = rt_.gpu(owner);
      Lane& lane = g.peer[static_cast<std::size_t>(push ? cp.dst_rank : cp.src_rank)];
      if (w >= 0) wait(lane, ranks_[static_cast<std::size_t>(cp.src_rank)]->gemm_done[static_cast<std::size_t>(w)]);
      if (!drop)
        ce_copy(row_ptr(cp.dst_rank, cp.dst, cp.dst_row), rt_.gpu(cp.dst_rank).device,
                row_ptr(cp.src_rank, cp.src, cp.src_row), rt_.gpu(cp.src_rank).device,
                static_cast<std::size_t>(cp.rows * width(cp.src)) * 2, lane, g.device, ce);
      if (!copy_done_.empty()) record(copy_done_[static_cast<std::size_t>(step)][ci], lane, g.device);
    }
    return;
  }
  const int R = sched_.ranks;
  if (!serial_ && w >= 0)
    for (auto& rank : ranks_) wait(*rank->comm_lane, rank->gemm_done[static_cast<std::size_t>(w)]);
  if (!drop) {
    const ncclDataType_t type = nccl_type(pair_.gemm.dtype);
    const auto stream = [&](int r) { return ranks_[static_cast<std::size_t>(r)]->comm_lane->stream; };
    const auto comm = [&](int r) { return comms_[static_cast<std::size_t>(r)]; };
    C3_NCCL(ncclGroupStart());
    try {
      switch (st.op) {
        case DepStep::Op::all_gather:  // in place: each rank's block of A is its send buffer
          for (int r = 0; r < R; ++r)
            C3_NCCL(ncclAllGather(row_ptr(r, DepBuffer::a, r * st.rows), row_ptr(r, DepBuffer::a, 0),
                                  static_cast<std::size_t>(st.rows * k_), type, comm(r), stream(r)));
          break;
        case DepStep::Op::reduce_scatter:
          for (int r = 0; r < R; ++r)
            C3_NCCL(ncclReduceScatter(row_ptr(r, DepBuffer::staged, st.src_row), row_ptr(r, DepBuffer::out, st.dst_row),
                                      static_cast<std::size_t>(st.rows * n_), type, ncclSum, comm(r), stream(r)));
          break;
        case DepStep::Op::copies:
          for (const RowCopy& cp : st.copies) {
            const auto count = static_cast<std::size_t>(cp.rows * width(cp.src));
            C3_NCCL(ncclSend(row_ptr(cp.src_rank, cp.src, cp.src_row), count, type, cp.dst_rank, comm(cp.src_rank),
                             stream(cp.src_rank)));
            C3_NCCL(ncclRecv(row_ptr(cp.dst_rank, cp.dst, cp.dst_row), count, type, cp.src_rank, comm(cp.dst_rank),
                             stream(cp.dst_rank)));
          }
          break;
      }
    } catch (...) {
      ncclGroupEnd();
      throw;
    }
    C3_NCCL(ncclGroupEnd());
  }
  for (auto& rank : ranks_)
    if (!rank->step_done.empty()) record(rank->step_done[static_cast<std::size_t>(step)], *rank->comm_lane, rank->device);
}

void DependentRun::launch() {
  const int steps = static_cast<int>(sched_.comm.size());
  const int R = sched_.ranks;
  if (pair_.dependency == Dependency::collective_feeds_gemm) {
    // The collective first and one step ahead (in host order) of the GEMM jobs waiting for
    // it: step 0, the local jobs, step 1, the jobs of step 0, ...
    std::vector<std::size_t> next(static_cast<std::size_t>(R), 0);
    for (int s = 0; s <= steps; ++s) {
      if (s < steps) launch_step(s);
      for (int r = 0; r < R; ++r) {
        const auto& jobs = sched_.gemms[static_cast<std::size_t>(r)];
        auto& j = next[static_cast<std::size_t>(r)];
        while (j < jobs.size() && jobs[j].waits_for_step <= s - 1) launch_gemm(r, j++);
      }
    }
    return;
  }
  // The GEMM feeds the collective: each step right after the GEMM job it moves.
  const std::size_t jobs = sched_.gemms.front().size();
  int next_step = 0;
  for (std::size_t j = 0; j < jobs; ++j) {
    for (int r = 0; r < R; ++r) launch_gemm(r, j);
    while (next_step < steps && sched_.comm[static_cast<std::size_t>(next_step)].waits_for_gemm <= static_cast<int>(j))
      launch_step(next_step++);
  }
  while (next_step < steps) launch_step(next_step++);
}

void DependentRun::poison(double timeout_s) {
  const std::int64_t block = validator::block_rows(sched_.m, sched_.ranks);
  const bool feeds = pair_.dependency == Dependency::collective_feeds_gemm;
  for (int r = 0; r < sched_.ranks; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    const cudaStream_t s = rt_.gpu(r).work.stream;
    C3_CUDA(cudaSetDevice(rank.device));
    const auto nan = [&](DepBuffer b, std::int64_t row, std::int64_t rows) {
      if (rows > 0)
        C3_CUDA(cudaMemsetAsync(row_ptr(r, b, row), 0xFF, static_cast<std::size_t>(rows * width(b)) * 2, s));
    };
    nan(DepBuffer::out, 0, sched_.out_rows);
    if (feeds && sched_.kind == CollectiveKind::all_gather) {  // every row but its own shard
      nan(DepBuffer::a, 0, r * block);
      nan(DepBuffer::a, (r + 1) * block, sched_.m - (r + 1) * block);
    } else if (feeds) {
      nan(DepBuffer::a, 0, sched_.m);
    } else {
      nan(DepBuffer::staged, 0, sched_.m);
    }
  }
  rt_.sync_all(timeout_s);
}

std::int64_t DependentRun::check_moved_rows(double timeout_s, std::string* first_error) {
  (void)timeout_s;
  if (pair_.dependency != Dependency::collective_feeds_gemm) return 0;
  const std::int64_t block = validator::block_rows(sched_.m, sched_.ranks);
  const bool a2a = sched_.kind == CollectiveKind::all_to_all;
  std::int64_t bad = 0;
  for (int r = 0; r < sched_.ranks; ++r) {
    Gpu& g = rt_.gpu(r);
    C3_CUDA(cudaSetDevice(g.device));
    for (int p = 0; p < sched_.ranks; ++p) {
      // A decomposed all_to_all reads the own block from the send buffer: nothing lands there.
      if (a2a && p == r && !serial_) continue;
      kernels::CheckArgs args;
      args.kind = kernels::CheckKind::operand;
      args.out = row_ptr(r, DepBuffer::a, p * block);
      args.count = static_cast<std::size_t>(block * k_);
      args.fp16 = pair_.gemm.dtype == DType::fp16;
      // all_gather: rank p's shard, rows p block.. of A; all_to_all: rank p's send block r.
      args.copy_seed = pattern::seed_for(a2a ? kRoleDepSend : kRoleDepA, static_cast<std::uint32_t>(p), opt_.epoch);
      args.copy_offset = static_cast<std::uint64_t>((a2a ? r : p) * block * k_);
      const CheckResult c = run_check(g, args);
      bad += static_cast<std::int64_t>(c.mismatches);
      if (c.mismatches && first_error && first_error->empty())
        *first_error = "rank " + std::to_string(r) + ": A rows from rank " + std::to_string(p) + ": " +
                       std::to_string(c.mismatches) + " elements wrong, first in row " +
                       std::to_string(p * block + static_cast<std::int64_t>(c.first_bad) / k_);
    }
  }
  return bad;
}

std::int64_t DependentRun::check_samples(std::string* first_error) {
  const DType t = pair_.gemm.dtype;
  const std::uint64_t seed_b = pattern::seed_for(kRoleDepB, 0, opt_.epoch);
  // Output rounding (bf16: 2^-8 relative, fp16: 2^-11) and, for a reduction, the rounding
  // of each rank's term and of the sum; plus 1% of the products' norm (GemmRunner's rule).
  const double rel = t == DType::fp16 ? 1.0 / 1024 : 1.0 / 128;
  std::int64_t bad = 0;
  for (int r = 0; r < sched_.ranks; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    const std::size_t S = rank.sample_row.size();
    if (rank.ref.empty()) {
      for (std::size_t s = 0; s < S; ++s) {
        const std::vector<RowTerm> terms = validator::out_row_terms(sched_, r, rank.sample_row[s]);
        double sum = 0, abs_terms = 0, sq = 0;
        const auto bj = static_cast<std::uint64_t>(rank.sample_col[s] * k_);
        for (const RowTerm& term : terms) {
          const std::uint64_t seed = pattern::seed_for(role_of(term.buffer), static_cast<std::uint32_t>(term.rank), opt_.epoch);
          const auto ai = static_cast<std::uint64_t>(term.row * k_);
          double acc = 0;
          for (std::int64_t l = 0; l < k_; ++l) {
            const auto lu = static_cast<std::uint64_t>(l);
            const double prod = decode(t, operand_bits(t, seed, ai + lu)) * decode(t, operand_bits(t, seed_b, bj + lu));
            acc += prod;
            sq += prod * prod;
          }
          sum += acc;
          abs_terms += std::fabs(acc);
        }
        rank.ref.push_back(sum);
        rank.tol.push_back(rel * (std::fabs(sum) + (terms.size() > 1 ? abs_terms : 0.0)) + 1e-2 * std::sqrt(sq) + 1e-6);
      }
    }
    Gpu& g = rt_.gpu(r);
    C3_CUDA(cudaSetDevice(g.device));
    C3_CUDA(kernels::gather16(rank.out.as<std::uint16_t>(), rank.idx.as<std::int64_t>(), rank.samples.as<std::uint16_t>(),
                              static_cast<int>(S), g.work.stream));
    std::vector<std::uint16_t> got(S);
    C3_CUDA(cudaMemcpyAsync(got.data(), rank.samples.get(), S * sizeof(std::uint16_t), cudaMemcpyDeviceToHost,
                            g.work.stream));
    C3_CUDA(cudaStreamSynchronize(g.work.stream));
    for (std::size_t s = 0; s < S; ++s) {
      const double v = decode(t, got[s]);
      if (std::fabs(v - rank.ref[s]) <= rank.tol[s]) continue;  // NaN fails too
      ++bad;
      if (first_error && first_error->empty()) {
        std::ostringstream os;
        os << "rank " << r << " output(" << rank.sample_row[s] << "," << rank.sample_col[s] << ") = " << v
           << ", expected " << rank.ref[s] << " (tolerance " << rank.tol[s] << ")";
        *first_error = os.str();
      }
    }
  }
  return bad;
}

std::int64_t DependentRun::verify(double timeout_s, std::string* first_error) {
  return check_moved_rows(timeout_s, first_error) + check_samples(first_error);
}

}  // namespace c3::cuda
