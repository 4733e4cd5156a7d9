// backends/cuda/dependent.cpp: dependent pairs on every rank, undecomposed or in pieces
// (dependent.hpp). The schedule (which rows each step moves, which rows each GEMM job
// computes) is validator::dependent_schedule's, everything else that is not a CUDA call
// device::DependentLayout's; this file only issues it: NCCL or copy engines for the
// steps, RowGemm for the jobs, events between the two streams.
#include "backends/cuda/dependent.hpp"

#include <set>

#include "c3/errors.hpp"
#include "backends/cuda/collectives.hpp"
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/row_gemm.hpp"

namespace c3::cuda {
namespace {

using validator::DepBuffer;
using validator::DepGemm;
using validator::DepStep;
using validator::RowCopy;

ncclDataType_t nccl_type(DType t) { return t == DType::fp16 ? ncclFloat16 : ncclBfloat16; }

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

}  // namespace

struct DependentRun::Rank {
  int device = 0;
  DeviceBuffer a, send, staged, out, b, idx, samples;
  std::unique_ptr<RowGemm> gemm;
  Lane* gemm_lane = nullptr;
  Lane* comm_lane = nullptr;       // the NCCL steps' stream (cu); nullptr on copy engines
  std::vector<CUevent> step_done;  // cu, collective_feeds_gemm: after step s on comm_lane
  std::vector<CUevent> gemm_done;  // gemm_feeds_collective: after GEMM job j on gemm_lane
  ~Rank() {
    destroy_events(step_done);
    destroy_events(gemm_done);
  }
  DeviceBuffer& buffer(DepBuffer b) { return b == DepBuffer::a ? a : b == DepBuffer::send ? send : b == DepBuffer::staged ? staged : out; }
};

std::uint16_t* DependentRun::row_ptr(int rank, DepBuffer b, std::int64_t row) const {
  Rank& r = *ranks_.at(static_cast<std::size_t>(rank));
  return r.buffer(b).as<std::uint16_t>() + row * layout_.width(b);
}

DependentRun::DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
                           bool nccl_ce_selected)
    : rt_(rt),
      layout_(pair, how, options, {rt.count(), rt.peer_ok, rt.peer_note, nccl_ce_selected, kNcclCeVariant}),
      check_(layout_),
      sched_(layout_.schedule()) {
  const Collective& c = pair.collective;
  const std::int64_t n = layout_.n(), k = layout_.k();
  const int R = c.ranks;
  const auto bytes = [](std::int64_t elems) { return static_cast<std::size_t>(elems) * 2; };

  for (int r = 0; r < R; ++r) {
    Gpu& g = rt.gpu(r);
    auto rank = std::make_unique<Rank>();
    rank->device = g.device;
    Partition* p = layout_.partition_cus() > 0 ? &rt.partition(r, layout_.partition_cus()) : nullptr;
    rank->gemm_lane = lane_of(layout_.gemm_role(), false, g, p);
    rank->comm_lane = lane_of(layout_.comm_role(), layout_.comm_high_priority(), g, p);
    // Buffers: inputs from patterns, everything else NaN until written.
    for (DepBuffer b : {DepBuffer::a, DepBuffer::send, DepBuffer::staged, DepBuffer::out})
      if (layout_.rows(b) > 0) rank->buffer(b) = DeviceBuffer(g.device, bytes(layout_.rows(b) * layout_.width(b)));
    rank->b = DeviceBuffer(g.device, bytes(n * k));
    C3_CUDA(cudaSetDevice(g.device));
    for (const DeviceBuffer* buf : {&rank->a, &rank->send, &rank->staged, &rank->out})
      if (buf->bytes()) C3_CUDA(cudaMemsetAsync(buf->get(), 0xFF, buf->bytes(), g.work.stream));
    C3_CUDA(kernels::fill(rank->b.as<std::uint16_t>(), static_cast<std::size_t>(n * k), layout_.fill_kind(),
                          layout_.b_seed(), 0, g.work.stream));
    ranks_.push_back(std::move(rank));
    for (const device::RowFill& f : layout_.input_fills(r))
      C3_CUDA(kernels::fill(row_ptr(r, f.range.buffer, f.range.row),
                            static_cast<std::size_t>(f.range.rows * layout_.width(f.range.buffer)), f.kind, f.seed,
                            f.offset, g.work.stream));
    Rank& added = *ranks_.back();
    added.gemm = std::make_unique<RowGemm>(g.device, pair.gemm.dtype, n, k, added.b.as<std::uint16_t>());
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
    if (layout_.step_events())
      for (int s = 0; s < sched_.steps; ++s) rank.step_done.push_back(make_event(rank.device, rank.comm_lane->ctx));
    if (layout_.gemm_events())
      for (std::size_t j = 0; j < sched_.gemms[static_cast<std::size_t>(r)].size(); ++j)
        rank.gemm_done.push_back(make_event(rank.device, rank.gemm_lane->ctx));
  }
  if (layout_.copy_events())
    for (const DepStep& st : sched_.comm) {
      copy_done_.emplace_back();
      for (const RowCopy& cp : st.copies) {
        const int owner = layout_.options().ce.direction == CeDirection::push ? cp.src_rank : cp.dst_rank;
        copy_done_.back().push_back(make_event(rt.gpu(owner).device, nullptr));
      }
    }
  if (!layout_.dma()) {
    comms_ = rt.comms(R, layout_.ctas());
    watch_ = comms_;
  }
  std::set<Lane*> lanes;
  for (auto& rank : ranks_) {
    lanes.insert(rank->gemm_lane);
    if (rank->comm_lane) lanes.insert(rank->comm_lane);
  }
  if (layout_.dma())
    for (Lane* l : ce_lanes(rt, R)) lanes.insert(l);
  lanes_.assign(lanes.begin(), lanes.end());

  // The sampled output positions of every rank, on its GPU.
  for (int r = 0; r < R; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    const std::vector<std::int64_t> idx = check_.indices(r);
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
  report_.transport = layout_.transport("nccl");
  report_.gemm_sms = r0.gemm_lane->sms;
  report_.collective_sms = r0.comm_lane ? r0.comm_lane->sms : 0;
  report_.collective_ctas = layout_.ctas();
  report_.gemm_algo = r0.gemm->describe(first);
  report_.first_kernel = r0.gemm->kernel(first);
  report_.note = layout_.note(report_.transport);
}

DependentRun::~DependentRun() {
  for (auto& events : copy_done_) destroy_events(events);
}

void DependentRun::wait_for_step(int r, int step) {
  if (layout_.serial()) return;  // one stream
  Rank& rank = *ranks_[static_cast<std::size_t>(r)];
  if (!layout_.dma()) {
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
  const DependentOptions& opt = layout_.options();
  const bool drop = opt.drop_last_step && step + 1 == static_cast<int>(sched_.comm.size());
  const int w = st.waits_for_gemm;
  if (layout_.dma()) {
    const bool push = opt.ce.direction == CeDirection::push;
    CeOptions ce = opt.ce;
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
                static_cast<std::size_t>(cp.rows * layout_.width(cp.src)) * 2, lane, g.device, ce);
      if (!copy_done_.empty()) record(copy_done_[static_cast<std::size_t>(step)][ci], lane, g.device);
    }
    return;
  }
  const int R = sched_.ranks;
  if (!layout_.serial() && w >= 0)
    for (auto& rank : ranks_) wait(*rank->comm_lane, rank->gemm_done[static_cast<std::size_t>(w)]);
  if (!drop) {
    const ncclDataType_t type = nccl_type(layout_.pair().gemm.dtype);
    const auto stream = [&](int r) { return ranks_[static_cast<std::size_t>(r)]->comm_lane->stream; };
    const auto comm = [&](int r) { return comms_[static_cast<std::size_t>(r)]; };
    C3_NCCL(ncclGroupStart());
    try {
      switch (st.op) {
        case DepStep::Op::all_gather:  // in place: each rank's block of A is its send buffer
          for (int r = 0; r < R; ++r)
            C3_NCCL(ncclAllGather(row_ptr(r, DepBuffer::a, r * st.rows), row_ptr(r, DepBuffer::a, 0),
                                  static_cast<std::size_t>(st.rows * layout_.k()), type, comm(r), stream(r)));
          break;
        case DepStep::Op::reduce_scatter:
          for (int r = 0; r < R; ++r)
            C3_NCCL(ncclReduceScatter(row_ptr(r, DepBuffer::staged, st.src_row), row_ptr(r, DepBuffer::out, st.dst_row),
                                      static_cast<std::size_t>(st.rows * layout_.n()), type, ncclSum, comm(r),
                                      stream(r)));
          break;
        case DepStep::Op::copies:
          for (const RowCopy& cp : st.copies) {
            const auto count = static_cast<std::size_t>(cp.rows * layout_.width(cp.src));
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
  for (const device::DependentAction& a : layout_.actions()) {
    if (a.kind == device::DependentAction::Kind::step)
      launch_step(static_cast<int>(a.index));
    else
      launch_gemm(a.rank, a.index);
  }
}

void DependentRun::poison(double timeout_s) {
  for (int r = 0; r < sched_.ranks; ++r) {
    const cudaStream_t s = rt_.gpu(r).work.stream;
    C3_CUDA(cudaSetDevice(ranks_[static_cast<std::size_t>(r)]->device));
    for (const device::RowRange& nan : layout_.poison_ranges(r))
      C3_CUDA(cudaMemsetAsync(row_ptr(r, nan.buffer, nan.row), 0xFF,
                              static_cast<std::size_t>(nan.rows * layout_.width(nan.buffer)) * 2, s));
  }
  rt_.sync_all(timeout_s);
}

std::int64_t DependentRun::check_moved_rows(std::string* first_error) {
  std::int64_t bad = 0;
  for (device::MovedRowsCheck c : layout_.moved_row_checks()) {
    Gpu& g = rt_.gpu(c.rank);
    C3_CUDA(cudaSetDevice(g.device));
    c.args.out = row_ptr(c.rank, DepBuffer::a, c.row);
    const CheckResult res = run_check(g, c.args);
    bad += static_cast<std::int64_t>(res.mismatches);
    if (res.mismatches && first_error && first_error->empty())
      *first_error = layout_.moved_rows_error(c, res.mismatches, res.first_bad);
  }
  return bad;
}

std::int64_t DependentRun::check_samples(std::string* first_error) {
  std::int64_t bad = 0;
  for (int r = 0; r < sched_.ranks; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    const std::size_t S = check_.size(r);
    Gpu& g = rt_.gpu(r);
    C3_CUDA(cudaSetDevice(g.device));
    C3_CUDA(kernels::gather16(rank.out.as<std::uint16_t>(), rank.idx.as<std::int64_t>(), rank.samples.as<std::uint16_t>(),
                              static_cast<int>(S), g.work.stream));
    std::vector<std::uint16_t> got(S);
    C3_CUDA(cudaMemcpyAsync(got.data(), rank.samples.get(), S * sizeof(std::uint16_t), cudaMemcpyDeviceToHost,
                            g.work.stream));
    C3_CUDA(cudaStreamSynchronize(g.work.stream));
    bad += check_.compare(r, got, first_error);
  }
  return bad;
}

std::int64_t DependentRun::verify(double timeout_s, std::string* first_error) {
  (void)timeout_s;
  return check_moved_rows(first_error) + check_samples(first_error);
}

}  // namespace c3::cuda
