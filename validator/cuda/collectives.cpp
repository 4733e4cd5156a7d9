// validator/cuda/collectives.cpp: collective buffers, NCCL launches, copy-engine
// collectives (see collectives.hpp).
#include "validator/cuda/collectives.hpp"

#include <algorithm>

#include "validator/cuda/kernels.hpp"
#include "validator/cuda/patterns.hpp"

namespace c3::cuda {

namespace {
constexpr std::size_t kElem = 2;  // bf16
}

CollPlan plan_collective(CollectiveKind kind, std::int64_t size_bytes, int ranks) {
  if (ranks < 1) throw CudaFailure("unsupported", "a collective needs at least one rank");
  if (size_bytes <= 0) throw CudaFailure("unsupported", "collective size must be positive");
  CollPlan p;
  p.kind = kind;
  p.ranks = ranks;
  const auto n = static_cast<std::size_t>(ranks);
  const auto elems = static_cast<std::size_t>(size_bytes) / kElem;
  switch (kind) {
    case CollectiveKind::all_gather:  // size = gathered output per rank
      p.chunk = elems / n;
      p.send_elems = p.chunk;
      p.recv_elems = p.chunk * n;
      p.size_bytes = static_cast<std::int64_t>(p.recv_elems * kElem);
      break;
    case CollectiveKind::all_to_all:  // size = send buffer per rank
      p.chunk = elems / n;
      p.send_elems = p.chunk * n;
      p.recv_elems = p.chunk * n;
      p.size_bytes = static_cast<std::int64_t>(p.send_elems * kElem);
      break;
    case CollectiveKind::reduce_scatter:  // size = input per rank
      p.chunk = elems / n;
      p.send_elems = p.chunk * n;
      p.recv_elems = p.chunk;
      p.size_bytes = static_cast<std::int64_t>(p.send_elems * kElem);
      break;
    case CollectiveKind::all_reduce:  // size = buffer per rank
      p.chunk = elems;
      p.send_elems = elems;
      p.recv_elems = elems;
      p.size_bytes = static_cast<std::int64_t>(elems * kElem);
      break;
  }
  if (p.chunk == 0)
    throw CudaFailure("unsupported", "collective of " + std::to_string(size_bytes) +
                                         " bytes is smaller than one bf16 element per rank");
  return p;
}

CollBuffers::CollBuffers(Runtime& rt, const CollPlan& plan, std::uint32_t epoch)
    : plan_(plan), epoch_(epoch) {
  if (plan.ranks > rt.count())
    throw CudaFailure("unsupported", "collective over " + std::to_string(plan.ranks) +
                                         " ranks but only " + std::to_string(rt.count()) +
                                         " GPUs are in use");
  const bool reduction =
      plan.kind == CollectiveKind::reduce_scatter || plan.kind == CollectiveKind::all_reduce;
  for (int r = 0; r < plan.ranks; ++r) {
    Gpu& g = rt.gpu(r);
    send.emplace_back(g.device, plan.send_elems * kElem);
    recv.emplace_back(g.device, plan.recv_elems * kElem);
    const auto seed = pattern::seed_for(kRoleCollective, static_cast<std::uint32_t>(r), epoch_);
    C3_CUDA(cudaSetDevice(g.device));
    C3_CUDA(kernels::fill(send.back().as<std::uint16_t>(), plan.send_elems,
                          reduction ? kernels::FillKind::small_int : kernels::FillKind::random_bits,
                          seed, 0, g.work.stream));
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
  kernels::CheckKind kind = kernels::CheckKind::all_gather;
  switch (plan_.kind) {
    case CollectiveKind::all_gather:
      kind = kernels::CheckKind::all_gather;
      break;
    case CollectiveKind::all_to_all:
      kind = kernels::CheckKind::all_to_all;
      break;
    case CollectiveKind::reduce_scatter:
      kind = kernels::CheckKind::reduce_scatter;
      break;
    case CollectiveKind::all_reduce:
      kind = kernels::CheckKind::all_reduce;
      break;
  }
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

void launch_nccl(const CollBuffers& b, const std::vector<ncclComm_t>& comms,
                 const std::vector<Lane*>& lanes) {
  const CollPlan& p = b.plan();
  C3_NCCL(ncclGroupStart());
  try {
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
          for (int q = 0; q < p.ranks; ++q) {
            const std::size_t off = static_cast<std::size_t>(q) * p.chunk * kElem;
            C3_NCCL(ncclSend(static_cast<const char*>(s) + off, p.chunk, ncclBfloat16, q, c, st));
            C3_NCCL(ncclRecv(static_cast<char*>(d) + off, p.chunk, ncclBfloat16, q, c, st));
          }
          break;
      }
    }
  } catch (...) {
    ncclGroupEnd();
    throw;
  }
  C3_NCCL(ncclGroupEnd());
}

void ce_copy(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
             const Lane& lane, int lane_device, const CeOptions& ce, int chunks) {
  if (bytes == 0) return;
  C3_CUDA(cudaSetDevice(lane_device));
  chunks = std::max(1, chunks);
  const std::size_t piece = ((bytes / static_cast<std::size_t>(chunks)) + 15) & ~std::size_t{15};
  std::vector<void*> dsts;
  std::vector<const void*> srcs;
  std::vector<std::size_t> sizes;
  for (std::size_t off = 0; off < bytes; off += piece) {
    dsts.push_back(static_cast<char*>(dst) + off);
    srcs.push_back(static_cast<const char*>(src) + off);
    sizes.push_back(std::min(piece, bytes - off));
  }
  if (ce.api == CeApi::batch_memcpy) {
    cudaMemcpyAttributes attr{};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.srcLocHint.type = cudaMemLocationTypeDevice;
    attr.srcLocHint.id = src_device;
    attr.dstLocHint.type = cudaMemLocationTypeDevice;
    attr.dstLocHint.id = dst_device;
    attr.flags = ce.prefer_overlap ? cudaMemcpyFlagPreferOverlapWithCompute : 0;
    std::size_t attr_idx = 0;
    C3_CUDA(cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), dsts.size(), &attr,
                                 &attr_idx, 1, lane.stream));
    return;
  }
  for (std::size_t i = 0; i < dsts.size(); ++i) {
    if (src_device == dst_device)
      C3_CUDA(cudaMemcpyAsync(dsts[i], srcs[i], sizes[i], cudaMemcpyDeviceToDevice, lane.stream));
    else
      C3_CUDA(cudaMemcpyPeerAsync(dsts[i], dst_device, srcs[i], src_device, sizes[i], lane.stream));
  }
}

void launch_ce(Runtime& rt, const CollBuffers& b, const CeOptions& ce) {
  const CollPlan& p = b.plan();
  if (p.kind != CollectiveKind::all_gather && p.kind != CollectiveKind::all_to_all)
    throw CudaFailure("unsupported", "copy engines cannot reduce: " + std::string(to_string(p.kind)) +
                                         " has no dma transport");
  if (!rt.peer_ok) throw CudaFailure("unsupported", "peer access is not available: " + rt.peer_note);
  const std::size_t chunk_bytes = p.chunk * kElem;
  // Issue order: for each source i, its peers starting at i+1 (a rotation, so that the
  // first transfers of different GPUs go to different targets).
  for (int i = 0; i < p.ranks; ++i) {
    for (int step = 0; step < p.ranks; ++step) {
      const int j = (i + step) % p.ranks;  // target
      const auto ii = static_cast<std::size_t>(i);
      const auto jj = static_cast<std::size_t>(j);
      const char* src = static_cast<const char*>(b.send[ii].get());
      char* dst = static_cast<char*>(b.recv[jj].get());
      if (p.kind == CollectiveKind::all_gather) {
        dst += ii * chunk_bytes;  // target j's slot for source i
      } else {                    // all_to_all: source i's chunk for j lands in j's slot i
        src += jj * chunk_bytes;
        dst += ii * chunk_bytes;
      }
      const int src_dev = rt.gpu(i).device;
      const int dst_dev = rt.gpu(j).device;
      const bool pull = ce.direction == CeDirection::pull && i != j;
      const int owner = pull ? j : i;
      const int other = pull ? i : j;
      const Lane& lane = rt.gpu(owner).peer[static_cast<std::size_t>(other)];
      ce_copy(dst, dst_dev, src, src_dev, chunk_bytes, lane, rt.gpu(owner).device, ce, ce.chunks);
    }
  }
}

std::vector<Lane*> ce_lanes(Runtime& rt, int ranks) {
  std::vector<Lane*> lanes;
  for (int i = 0; i < ranks; ++i)
    for (int j = 0; j < ranks; ++j) lanes.push_back(&rt.gpu(i).peer[static_cast<std::size_t>(j)]);
  return lanes;
}

std::string to_string(const CeOptions& o) {
  std::string s = o.direction == CeDirection::push ? "ce_push" : "ce_pull";
  s += o.api == CeApi::peer_memcpy ? "_peer" : "_batch";
  if (o.chunks > 1) s += "_c" + std::to_string(o.chunks);
  if (o.prefer_overlap) s += "_ovl";
  return s;
}

}  // namespace c3::cuda
