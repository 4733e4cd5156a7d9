// backends/cuda/collectives.cpp: collective buffers, NCCL launches, copy-engine
// collectives (see collectives.hpp).
#include "backends/cuda/collectives.hpp"

#include <algorithm>

#include "backends/cuda/kernels.hpp"

namespace c3::cuda {

namespace {
constexpr std::size_t kElem = device::kElemBytes;  // bf16
}

CollBuffers::CollBuffers(Runtime& rt, const CollPlan& plan, std::uint32_t epoch, Alloc alloc)
    : plan_(plan), epoch_(epoch) {
  if (plan.ranks > rt.count())
    throw CudaFailure("unsupported", "collective over " + std::to_string(plan.ranks) +
                                         " ranks but only " + std::to_string(rt.count()) +
                                         " GPUs are in use");
  for (int r = 0; r < plan.ranks; ++r) {
    Gpu& g = rt.gpu(r);
    send.emplace_back(g.device, plan.send_elems * kElem, alloc);
    recv.emplace_back(g.device, plan.recv_elems * kElem, alloc);
    const auto seed = pattern::seed_for(kRoleCollective, static_cast<std::uint32_t>(r), epoch_);
    C3_CUDA(cudaSetDevice(g.device));
    C3_CUDA(kernels::fill(send.back().as<std::uint16_t>(), plan.send_elems,
                          device::input_fill(plan.kind), seed, 0, g.work.stream));
  }
  rt.sync_all(60);
}

void CollBuffers::poison(Runtime& rt, double timeout_s) {
  for (int r = 0; r < plan_.ranks; ++r) {
    Gpu& g = rt.gpu(r);
    C3_CUDA(cudaSetDevice(g.device));
    C3_CUDA(cudaMemsetAsync(recv[static_cast<std::size_t>(r)].get(), 0xFF,
                            recv[static_cast<std::size_t>(r)].bytes(), g.work.stream));
  }
  rt.sync_all(timeout_s);
}

std::int64_t CollBuffers::check(Runtime& rt, double timeout_s, std::string* first_error) {
  const kernels::CheckKind kind = device::check_kind(plan_.kind);
  for (int r = 0; r < plan_.ranks; ++r) {
    Gpu& g = rt.gpu(r);
    C3_CUDA(cudaSetDevice(g.device));
    unsigned long long init[2] = {0ull, ~0ull};
    C3_CUDA(cudaMemcpyAsync(g.counters.get(), init, sizeof init, cudaMemcpyHostToDevice, g.work.stream));
    kernels::CheckArgs a;
    a.kind = kind;
    a.out = recv[static_cast<std::size_t>(r)].as<std::uint16_t>();
    a.count = plan_.chunk;
    a.ranks = plan_.ranks;
    a.rank = r;
    a.role = kRoleCollective;
    a.epoch = epoch_;
    auto* counters = g.counters.as<unsigned long long>();
    C3_CUDA(kernels::check(a, counters, counters + 1, g.work.stream));
  }
  std::int64_t total = 0;
  for (int r = 0; r < plan_.ranks; ++r) {
    Gpu& g = rt.gpu(r);
    C3_CUDA(cudaSetDevice(g.device));
    unsigned long long host[2] = {0, 0};
    C3_CUDA(cudaMemcpyAsync(host, g.counters.get(), sizeof host, cudaMemcpyDeviceToHost, g.work.stream));
    C3_CUDA(cudaStreamSynchronize(g.work.stream));
    total += static_cast<std::int64_t>(host[0]);
    if (host[0] && first_error && first_error->empty())
      *first_error = "rank " + std::to_string(r) + ": " + std::to_string(host[0]) +
                     " mismatches, first at element " + std::to_string(host[1]);
  }
  (void)timeout_s;
  return total;
}

CheckResult run_check(Gpu& g, const kernels::CheckArgs& args) {
  C3_CUDA(cudaSetDevice(g.device));
  unsigned long long init[2] = {0ull, ~0ull};
  C3_CUDA(cudaMemcpyAsync(g.counters.get(), init, sizeof init, cudaMemcpyHostToDevice, g.work.stream));
  auto* ctr = g.counters.as<unsigned long long>();
  C3_CUDA(kernels::check(args, ctr, ctr + 1, g.work.stream));
  unsigned long long host[2] = {0, 0};
  C3_CUDA(cudaMemcpyAsync(host, ctr, sizeof host, cudaMemcpyDeviceToHost, g.work.stream));
  C3_CUDA(cudaStreamSynchronize(g.work.stream));
  return {host[0], host[1]};
}

void launch_nccl(const CollBuffers& b, const std::vector<ncclComm_t>& comms,
                 const std::vector<Lane*>& lanes, bool alltoall_api) {
  const CollPlan& p = b.plan();
  nccl_group([&] {
    for (int r = 0; r < p.ranks; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      const void* s = b.send[ri].get();
      void* d = b.recv[ri].get();
      cudaStream_t st = lanes[ri]->stream;
      ncclComm_t c = comms[ri];
      switch (p.kind) {
        case CollectiveKind::all_gather:
          C3_NCCL(ncclAllGather(s, d, p.chunk, ncclBfloat16, c, st));
          break;
        case CollectiveKind::reduce_scatter:
          C3_NCCL(ncclReduceScatter(s, d, p.chunk, ncclBfloat16, ncclSum, c, st));
          break;
        case CollectiveKind::all_reduce:
          C3_NCCL(ncclAllReduce(s, d, p.chunk, ncclBfloat16, ncclSum, c, st));
          break;
        case CollectiveKind::all_to_all:
          if (alltoall_api) {
            C3_NCCL(ncclAlltoAll(s, d, p.chunk, ncclBfloat16, c, st));
            break;
          }
          for (int q = 0; q < p.ranks; ++q) {
            const std::size_t off = static_cast<std::size_t>(q) * p.chunk * kElem;
            C3_NCCL(ncclSend(static_cast<const char*>(s) + off, p.chunk, ncclBfloat16, q, c, st));
            C3_NCCL(ncclRecv(static_cast<char*>(d) + off, p.chunk, ncclBfloat16, q, c, st));
          }
          break;
      }
    }
  });
}

void launch_nccl(const std::vector<device::CclCall>& calls, ncclDataType_t type, const std::vector<ncclComm_t>& comms,
                 const std::vector<Lane*>& lanes) {
  nccl_group([&] {
    for (const device::CclCall& c : calls) {
      const auto r = static_cast<std::size_t>(c.rank);
      switch (c.op) {
        case device::CclCall::Op::all_gather:
          C3_NCCL(ncclAllGather(c.send_ptr, c.recv_ptr, c.count, type, comms[r], lanes[r]->stream));
          break;
        case device::CclCall::Op::reduce_scatter:
          C3_NCCL(ncclReduceScatter(c.send_ptr, c.recv_ptr, c.count, type, ncclSum, comms[r], lanes[r]->stream));
          break;
        case device::CclCall::Op::send:
          C3_NCCL(ncclSend(c.send_ptr, c.count, type, c.peer, comms[r], lanes[r]->stream));
          break;
        case device::CclCall::Op::recv:
          C3_NCCL(ncclRecv(c.recv_ptr, c.count, type, c.peer, comms[r], lanes[r]->stream));
          break;
      }
    }
  });
}

void ce_copy(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
             const Lane& lane, int lane_device, const CeOptions& ce) {
  if (bytes == 0) return;
  C3_CUDA(cudaSetDevice(lane_device));
  if (ce.api == CeApi::batch_memcpy) {
    cudaMemcpyAttributes attr{};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.srcLocHint.type = cudaMemLocationTypeDevice;
    attr.srcLocHint.id = src_device;
    attr.dstLocHint.type = cudaMemLocationTypeDevice;
    attr.dstLocHint.id = dst_device;
    attr.flags = ce.prefer_overlap ? cudaMemcpyFlagPreferOverlapWithCompute : 0;
    std::size_t attr_idx = 0;
    void* dsts[] = {dst};
    const void* srcs[] = {src};
    std::size_t sizes[] = {bytes};
    C3_CUDA(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, &attr_idx, 1, lane.stream));
  } else if (src_device == dst_device) {
    C3_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, lane.stream));
  } else if (ce.launch == CeLaunch::graph) {
    // cudaMemcpyPeerAsync cannot be captured (cudaErrorStreamCaptureUnsupported on H200,
    // CUDA 13.0); a cudaMemcpyDefault copy between peer-enabled buffers (unified addressing)
    // is the same copy-engine transfer and can.
    C3_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, lane.stream));
  } else {
    C3_CUDA(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, lane.stream));
  }
}

namespace {

void check_ce(const Runtime& rt, const CollPlan& p) {
  if (!dma_capable(p.kind))
    throw CudaFailure("unsupported", "copy engines cannot reduce: " + std::string(to_string(p.kind)) +
                                         " has no dma transport");
  if (!rt.peer_ok) throw CudaFailure("unsupported", "peer access is not available: " + rt.peer_note);
}

// Issues the variant's transfers (validator::ce_transfers) on the peer streams.
void issue_ce(Runtime& rt, const CollBuffers& b, const CeOptions& ce) {
  const CollPlan& p = b.plan();
  for (const validator::CeTransfer& t : validator::ce_transfers(p.kind, p.ranks, p.chunk * kElem, ce)) {
    const char* src = static_cast<const char*>(b.send[static_cast<std::size_t>(t.src_rank)].get()) + t.src_offset;
    char* dst = static_cast<char*>(b.recv[static_cast<std::size_t>(t.dst_rank)].get()) + t.dst_offset;
    Gpu& owner = rt.gpu(t.owner_rank);
    ce_copy(dst, rt.gpu(t.dst_rank).device, src, rt.gpu(t.src_rank).device, t.bytes,
            owner.peer[static_cast<std::size_t>(t.lane_peer)], owner.device, ce);
  }
}

}  // namespace

void launch_ce(Runtime& rt, const CollBuffers& b, const CeOptions& ce) {
  check_ce(rt, b.plan());
  issue_ce(rt, b, ce);
}

CeCollective::CeCollective(Runtime& rt, const CollBuffers& buffers, const CeOptions& ce)
    : rt_(rt), buffers_(buffers), ce_(ce) {
  check_ce(rt, buffers.plan());
  if (ce.launch == CeLaunch::graph) capture();
}

// Captures the transfers into one graph: the first rank's local stream is the origin; every
// other peer stream joins the capture through an event (fork) and the origin waits for all
// of them at the end (join), so that a launch on the origin completes with the last copy.
void CeCollective::capture() {
  const int ranks = buffers_.plan().ranks;
  Lane& origin = rt_.gpu(0).peer[0];
  std::vector<Lane*> others;
  for (Lane* l : ce_lanes(rt_, ranks))
    if (l != &origin) others.push_back(l);
  auto make_event = [&](int device) {
    C3_CUDA(cudaSetDevice(device));
    cudaEvent_t e = nullptr;
    C3_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    events_.push_back({device, e});
    return e;
  };
  const cudaEvent_t fork = make_event(rt_.gpu(0).device);
  C3_CUDA(cudaSetDevice(rt_.gpu(0).device));
  C3_CUDA(cudaStreamBeginCapture(origin.stream, cudaStreamCaptureModeRelaxed));
  cudaGraph_t graph = nullptr;
  try {
    C3_CUDA(cudaEventRecord(fork, origin.stream));
    for (Lane* l : others) {
      C3_CUDA(cudaSetDevice(rt_.gpu(l->gpu).device));
      C3_CUDA(cudaStreamWaitEvent(l->stream, fork, 0));
    }
    issue_ce(rt_, buffers_, ce_);
    for (Lane* l : others) {
      const cudaEvent_t join = make_event(rt_.gpu(l->gpu).device);
      C3_CUDA(cudaSetDevice(rt_.gpu(l->gpu).device));
      C3_CUDA(cudaEventRecord(join, l->stream));
      C3_CUDA(cudaSetDevice(rt_.gpu(0).device));
      C3_CUDA(cudaStreamWaitEvent(origin.stream, join, 0));
    }
  } catch (...) {
    cudaSetDevice(rt_.gpu(0).device);
    cudaStreamEndCapture(origin.stream, &graph);
    if (graph) cudaGraphDestroy(graph);
    release();
    throw;
  }
  C3_CUDA(cudaSetDevice(rt_.gpu(0).device));
  C3_CUDA(cudaStreamEndCapture(origin.stream, &graph));
  const cudaError_t e = cudaGraphInstantiate(&exec_, graph, 0);
  cudaGraphDestroy(graph);
  if (e != cudaSuccess) {
    exec_ = nullptr;
    release();
    C3_CUDA(e);
  }
}

void CeCollective::launch() {
  if (!exec_) {
    issue_ce(rt_, buffers_, ce_);
    return;
  }
  C3_CUDA(cudaSetDevice(rt_.gpu(0).device));
  C3_CUDA(cudaGraphLaunch(exec_, rt_.gpu(0).peer[0].stream));
}

void CeCollective::release() noexcept {
  if (exec_) cudaGraphExecDestroy(exec_);
  exec_ = nullptr;
  for (const auto& [device, e] : events_) {
    cudaSetDevice(device);
    cudaEventDestroy(e);
  }
  events_.clear();
}

CeCollective::~CeCollective() { release(); }

std::vector<Lane*> ce_lanes(Runtime& rt, int ranks) {
  std::vector<Lane*> lanes;
  for (int i = 0; i < ranks; ++i)
    for (int j = 0; j < ranks; ++j) lanes.push_back(&rt.gpu(i).peer[static_cast<std::size_t>(j)]);
  return lanes;
}

DmaCollective::DmaCollective(Runtime& rt, const CollBuffers& buffers, const CeOptions& ce, bool nccl_ce,
                             std::vector<Lane*> nccl_lanes)
    : rt_(rt), buffers_(buffers), nccl_lanes_(std::move(nccl_lanes)) {
  const CollPlan& p = buffers.plan();
  check_ce(rt, p);
  if (!nccl_ce) {
    ce_ = std::make_unique<CeCollective>(rt, buffers, ce);
    return;
  }
  comms_ = rt.comms(p.ranks, kCtaPolicyZero);
  windows_.assign(static_cast<std::size_t>(2 * p.ranks), nullptr);
  // Registration is collective: every rank's calls in one group.
  C3_NCCL(ncclGroupStart());
  ncclResult_t first = ncclSuccess;
  for (int r = 0; r < p.ranks; ++r) {
    const auto ri = static_cast<std::size_t>(r);
    cudaSetDevice(rt.gpu(r).device);
    for (int which = 0; which < 2; ++which) {
      const DeviceBuffer& buf = which == 0 ? buffers.send[ri] : buffers.recv[ri];
      const ncclResult_t res = ncclCommWindowRegister(comms_[ri], buf.get(), buf.bytes(),
                                                      &windows_[2 * ri + static_cast<std::size_t>(which)],
                                                      NCCL_WIN_COLL_SYMMETRIC);
      if (res != ncclSuccess && first == ncclSuccess) first = res;
    }
  }
  const ncclResult_t end = ncclGroupEnd();
  if (first == ncclSuccess && end != ncclSuccess) first = end;
  if (first != ncclSuccess) {
    windows_.clear();  // what was registered goes with the communicators
    throw_nccl(first, "ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC)", __FILE__, __LINE__);
  }
}

DmaCollective::~DmaCollective() {
  if (windows_.empty() || device_poisoned()) return;
  ncclGroupStart();
  for (std::size_t i = 0; i < windows_.size(); ++i)
    if (windows_[i]) ncclCommWindowDeregister(comms_[i / 2], windows_[i]);
  ncclGroupEnd();
}

void DmaCollective::launch() {
  if (ce_)
    ce_->launch();
  else
    launch_nccl(buffers_, comms_, nccl_lanes_, /*alltoall_api=*/true);
}

std::vector<Lane*> DmaCollective::lanes() const {
  return ce_ ? ce_lanes(rt_, buffers_.plan().ranks) : nccl_lanes_;
}

std::vector<ncclComm_t> DmaCollective::watch() const { return comms_; }

}  // namespace c3::cuda
