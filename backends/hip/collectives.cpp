// backends/hip/collectives.cpp: collective buffers, RCCL launches, SDMA collectives
// (collectives.hpp).
#include "backends/hip/collectives.hpp"

namespace c3::hip {

using device::kElemBytes;

CollBuffers::CollBuffers(Runtime& rt, const device::CollPlan& plan, std::uint32_t epoch) : plan_(plan), epoch_(epoch) {
  if (plan.ranks > rt.count())
    throw HipFailure("unsupported", "collective over " + std::to_string(plan.ranks) + " ranks but only " +
                                        std::to_string(rt.count()) + " GPUs are in use");
  for (int r = 0; r < plan.ranks; ++r) {
    Gpu& g = rt.gpu(r);
    send.emplace_back(g.device, plan.send_elems * kElemBytes);
    recv.emplace_back(g.device, plan.recv_elems * kElemBytes);
    const auto seed = pattern::seed_for(device::kRoleCollective, static_cast<std::uint32_t>(r), epoch_);
    C3_HIP(hipSetDevice(g.device));
    C3_HIP(kernels::fill(send.back().as<std::uint16_t>(), plan.send_elems, device::input_fill(plan.kind), seed, 0,
                         g.work.stream));
  }
  rt.sync_all(60);
}

void CollBuffers::poison(Runtime& rt, double timeout_s) {
  for (int r = 0; r < plan_.ranks; ++r) {
    Gpu& g = rt.gpu(r);
    const auto ri = static_cast<std::size_t>(r);
    C3_HIP(hipSetDevice(g.device));
    C3_HIP(hipMemsetAsync(recv[ri].get(), 0xFF, recv[ri].bytes(), g.work.stream));
  }
  rt.sync_all(timeout_s);
}

std::int64_t CollBuffers::check(Runtime& rt, std::string* first_error) {
  std::int64_t total = 0;
  for (int r = 0; r < plan_.ranks; ++r) {
    kernels::CheckArgs a;
    a.kind = device::check_kind(plan_.kind);
    a.out = recv[static_cast<std::size_t>(r)].as<std::uint16_t>();
    a.count = plan_.chunk;
    a.ranks = plan_.ranks;
    a.rank = r;
    a.role = device::kRoleCollective;
    a.epoch = epoch_;
    const CheckResult c = run_check(rt.gpu(r), a);
    total += static_cast<std::int64_t>(c.mismatches);
    if (c.mismatches && first_error && first_error->empty())
      *first_error = "rank " + std::to_string(r) + ": " + std::to_string(c.mismatches) +
                     " mismatches, first at element " + std::to_string(c.first_bad);
  }
  return total;
}

CheckResult run_check(Gpu& g, const kernels::CheckArgs& args) {
  C3_HIP(hipSetDevice(g.device));
  unsigned long long init[2] = {0ull, ~0ull};
  C3_HIP(hipMemcpyAsync(g.counters.get(), init, sizeof init, hipMemcpyHostToDevice, g.work.stream));
  auto* ctr = g.counters.as<unsigned long long>();
  C3_HIP(kernels::check(args, ctr, ctr + 1, g.work.stream));
  unsigned long long host[2] = {0, 0};
  C3_HIP(hipMemcpyAsync(host, ctr, sizeof host, hipMemcpyDeviceToHost, g.work.stream));
  C3_HIP(hipStreamSynchronize(g.work.stream));
  return {host[0], host[1]};
}

void launch_ccl(const CollBuffers& b, const std::vector<Comm>& comms, const std::vector<Lane*>& lanes) {
#if C3_HIP_HAVE_RCCL
  const device::CollPlan& p = b.plan();
  ccl_group([&] {
    for (int r = 0; r < p.ranks; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      const void* s = b.send[ri].get();
      void* d = b.recv[ri].get();
      hipStream_t st = lanes[ri]->stream;
      Comm c = comms[ri];
      switch (p.kind) {
        case CollectiveKind::all_gather:
          C3_CCL(ncclAllGather(s, d, p.chunk, ncclBfloat16, c, st));
          break;
        case CollectiveKind::reduce_scatter:
          C3_CCL(ncclReduceScatter(s, d, p.chunk, ncclBfloat16, ncclSum, c, st));
          break;
        case CollectiveKind::all_reduce:
          C3_CCL(ncclAllReduce(s, d, p.chunk, ncclBfloat16, ncclSum, c, st));
          break;
        case CollectiveKind::all_to_all:
          for (int q = 0; q < p.ranks; ++q) {
            const std::size_t off = static_cast<std::size_t>(q) * p.chunk * kElemBytes;
            C3_CCL(ncclSend(static_cast<const char*>(s) + off, p.chunk, ncclBfloat16, q, c, st));
            C3_CCL(ncclRecv(static_cast<char*>(d) + off, p.chunk, ncclBfloat16, q, c, st));
          }
          break;
      }
    }
  });
#else
  (void)b;
  (void)comms;
  (void)lanes;
  throw HipFailure("unsupported", "this hip backend was built without RCCL");
#endif
}

void launch_ccl(const std::vector<device::CclCall>& calls, DType dtype, const std::vector<Comm>& comms,
                const std::vector<Lane*>& lanes) {
#if C3_HIP_HAVE_RCCL
  const ncclDataType_t type = dtype == DType::fp16 ? ncclFloat16 : ncclBfloat16;
  ccl_group([&] {
    for (const device::CclCall& c : calls) {
      const auto r = static_cast<std::size_t>(c.rank);
      switch (c.op) {
        case device::CclCall::Op::all_gather:
          C3_CCL(ncclAllGather(c.send_ptr, c.recv_ptr, c.count, type, comms[r], lanes[r]->stream));
          break;
        case device::CclCall::Op::reduce_scatter:
          C3_CCL(ncclReduceScatter(c.send_ptr, c.recv_ptr, c.count, type, ncclSum, comms[r], lanes[r]->stream));
          break;
        case device::CclCall::Op::send:
          C3_CCL(ncclSend(c.send_ptr, c.count, type, c.peer, comms[r], lanes[r]->stream));
          break;
        case device::CclCall::Op::recv:
          C3_CCL(ncclRecv(c.recv_ptr, c.count, type, c.peer, comms[r], lanes[r]->stream));
          break;
      }
    }
  });
#else
  (void)calls;
  (void)dtype;
  (void)comms;
  (void)lanes;
  throw HipFailure("unsupported", "this hip backend was built without RCCL");
#endif
}

void check_ce(const Runtime& rt, const device::CollPlan& p, const validator::CeOptions& ce) {
  if (!dma_capable(p.kind))
    throw HipFailure("unsupported", "copy engines cannot reduce: " + std::string(to_string(p.kind)) +
                                        " has no dma transport");
  if (!rt.peer_ok) throw HipFailure("unsupported", "peer access is not available: " + rt.peer_note);
  if (ce.api != validator::CeApi::peer_memcpy)
    throw HipFailure("unsupported", "copy-engine variant " + validator::to_string(ce) +
                                        ": HIP has no batched copy API; the hip backend issues hipMemcpyPeerAsync "
                                        "(ce_*_peer variants)");
  if (ce.launch != validator::CeLaunch::host)
    throw HipFailure("unsupported", "copy-engine variant " + validator::to_string(ce) +
                                        ": graph launch is not implemented in the hip backend");
}

void ce_copy(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes, const Lane& lane,
             int lane_device) {
  if (bytes == 0) return;
  C3_HIP(hipSetDevice(lane_device));
  if (src_device == dst_device)
    C3_HIP(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, lane.stream));
  else
    C3_HIP(hipMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, lane.stream));
}

void launch_ce(Runtime& rt, const CollBuffers& b, const validator::CeOptions& ce) {
  const device::CollPlan& p = b.plan();
  for (const validator::CeTransfer& t : validator::ce_transfers(p.kind, p.ranks, p.chunk * kElemBytes, ce)) {
    const char* src = static_cast<const char*>(b.send[static_cast<std::size_t>(t.src_rank)].get()) + t.src_offset;
    char* dst = static_cast<char*>(b.recv[static_cast<std::size_t>(t.dst_rank)].get()) + t.dst_offset;
    Gpu& owner = rt.gpu(t.owner_rank);
    ce_copy(dst, rt.gpu(t.dst_rank).device, src, rt.gpu(t.src_rank).device, t.bytes,
            owner.peer[static_cast<std::size_t>(t.lane_peer)], owner.device);
  }
}

std::vector<Lane*> ce_lanes(Runtime& rt, int ranks) {
  std::vector<Lane*> lanes;
  for (int i = 0; i < ranks; ++i)
    for (int j = 0; j < ranks; ++j) lanes.push_back(&rt.gpu(i).peer[static_cast<std::size_t>(j)]);
  return lanes;
}

}  // namespace c3::hip
