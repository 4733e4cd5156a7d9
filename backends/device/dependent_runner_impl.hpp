// backends/device/dependent_runner_impl.hpp: the member definitions of DependentRunner<V>
// (dependent_runner.hpp). Included only by a vendor's dependent.cpp, which instantiates
// DependentRunner<V> explicitly; V's calls are the vendor's, everything else is here once.
#pragma once

#include <algorithm>
#include <set>

#include "backends/device/dependent_runner.hpp"
#include "backends/device/failure.hpp"

namespace c3::device {

template <class V>
struct DependentRunner<V>::Rank {
  int device = 0;
  typename V::Buffer a, send, staged, out, b, idx, samples;
  std::unique_ptr<typename V::Gemm> gemm;
  Lane* gemm_lane = nullptr;
  Lane* comm_lane = nullptr;                 // the collective steps' stream (cu); nullptr on copy engines
  std::vector<typename V::Event> step_done;  // cu, collective_feeds_gemm: after step s on comm_lane
  std::vector<typename V::Event> gemm_done;  // gemm_feeds_collective: after GEMM job j on gemm_lane
  static void destroy(std::vector<typename V::Event>& events) noexcept {
    for (typename V::Event e : events)
      if (e) V::Calls::destroy_event(e);
    events.clear();
  }
  ~Rank() {
    destroy(step_done);
    destroy(gemm_done);
  }
  typename V::Buffer& buffer(validator::DepBuffer which) {
    using validator::DepBuffer;
    return which == DepBuffer::a        ? a
           : which == DepBuffer::send   ? send
           : which == DepBuffer::staged ? staged
                                        : out;
  }
};

template <class V>
struct DependentRunner<V>::TraceLane {
  Lane* lane = nullptr;
  int device = 0;
  typename V::Event start{};
};

template <class V>
struct DependentRunner<V>::TraceMark {
  TimelineMark mark;
  std::size_t lane = 0;  // its stream's entry in trace_lanes_
  typename V::Event end{};
  std::vector<double> ends_s;  // one per traced run
};

template <class V>
std::uint16_t* DependentRunner<V>::row_ptr(int rank, validator::DepBuffer b, std::int64_t row) const {
  Rank& r = *ranks_.at(static_cast<std::size_t>(rank));
  return r.buffer(b).template as<std::uint16_t>() + row * layout_.width(b);
}

template <class V>
DependentRunner<V>::DependentRunner(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how,
                                    const DependentOptions& options, const DependentSupport& support)
    : rt_(rt), layout_(pair, how, options, support), check_(layout_), sched_(layout_.schedule()) {
  using validator::DepBuffer;
  using Piece = typename V::Gemm::Piece;
  V::Calls::refuse(layout_);
  const Collective& c = pair.collective;
  const std::int64_t n = layout_.n(), k = layout_.k();
  const int R = c.ranks;
  const auto bytes = [](std::int64_t elems) { return static_cast<std::size_t>(elems) * 2; };

  for (int r = 0; r < R; ++r) {
    typename V::Gpu& g = rt.gpu(r);
    auto rank = std::make_unique<Rank>();
    rank->device = g.device;
    typename V::Partition* p =
        layout_.partition_cus() > 0 ? &rt.partition(r, layout_.partition_cus()) : nullptr;
    rank->gemm_lane = V::Calls::lane_of(layout_.gemm_role(), false, g, p);
    rank->comm_lane = V::Calls::lane_of(layout_.comm_role(), layout_.comm_high_priority(), g, p);
    // Buffers: inputs from patterns, everything else NaN until written.
    for (DepBuffer b : {DepBuffer::a, DepBuffer::send, DepBuffer::staged, DepBuffer::out})
      if (layout_.rows(b) > 0)
        rank->buffer(b) = typename V::Buffer(g.device, bytes(layout_.rows(b) * layout_.width(b)));
    rank->b = typename V::Buffer(g.device, bytes(n * k));
    V::Calls::set_device(g.device);
    for (const typename V::Buffer* buf : {&rank->a, &rank->send, &rank->staged, &rank->out})
      if (buf->bytes()) V::Calls::nan_fill(buf->get(), buf->bytes(), g.work);
    V::Calls::fill(rank->b.template as<std::uint16_t>(), static_cast<std::size_t>(n * k), layout_.fill_kind(),
                   layout_.b_seed(), 0, g.work);
    ranks_.push_back(std::move(rank));
    for (const RowFill& f : layout_.input_fills(r))
      V::Calls::fill(row_ptr(r, f.range.buffer, f.range.row),
                     static_cast<std::size_t>(f.range.rows * layout_.width(f.range.buffer)), f.kind, f.seed,
                     f.offset, g.work);
    Rank& added = *ranks_.back();
    added.gemm = std::make_unique<typename V::Gemm>(g.device, pair.gemm.dtype, n, k,
                                                    added.b.template as<std::uint16_t>());
    gpus_.push_back(r);
  }
  rt.sync_all(60);

  // GEMM plans now (outside the timed runs), events, communicators.
  const auto piece = [&](int r, const validator::DepGemm& j) {
    return Piece{row_ptr(r, j.a_buffer, j.a_row),
                 j.a_stride,
                 row_ptr(r, j.out_buffer, j.out_row),
                 j.out_stride,
                 j.rows,
                 j.count};
  };
  for (int r = 0; r < R; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    for (const validator::DepGemm& j : sched_.gemms[static_cast<std::size_t>(r)])
      rank.gemm->prepare(piece(r, j));
    if (layout_.step_events())
      for (int s = 0; s < sched_.steps; ++s)
        rank.step_done.push_back(V::Calls::make_event(rank.device, rank.comm_lane));
    if (layout_.gemm_events())
      for (std::size_t j = 0; j < sched_.gemms[static_cast<std::size_t>(r)].size(); ++j)
        rank.gemm_done.push_back(V::Calls::make_event(rank.device, rank.gemm_lane));
  }
  if (layout_.copy_events())
    for (const validator::DepStep& st : sched_.comm) {
      copy_done_.emplace_back();
      for (const validator::RowCopy& cp : st.copies) {
        const int owner =
            layout_.options().ce.direction == validator::CeDirection::push ? cp.src_rank : cp.dst_rank;
        copy_done_.back().push_back(V::Calls::make_event(rt.gpu(owner).device, nullptr));
      }
    }
  if (!layout_.dma()) {
    comms_ = rt.comms(R, layout_.ctas());
    for (int s = 0; s < static_cast<int>(sched_.comm.size()); ++s) {
      ccl_calls_.push_back(layout_.ccl_calls(s));
      for (CclCall& call : ccl_calls_.back()) {
        if (call.op != CclCall::Op::recv) call.send_ptr = row_ptr(call.rank, call.send.buffer, call.send.row);
        if (call.op != CclCall::Op::send) call.recv_ptr = row_ptr(call.rank, call.recv.buffer, call.recv.row);
      }
    }
    for (auto& rank : ranks_) comm_lanes_.push_back(rank->comm_lane);
  }
  std::set<Lane*> lanes;
  for (auto& rank : ranks_) {
    lanes.insert(rank->gemm_lane);
    if (rank->comm_lane) lanes.insert(rank->comm_lane);
  }
  if (layout_.dma())
    for (Lane* l : V::Calls::ce_lanes(rt, R)) lanes.insert(l);
  lanes_.assign(lanes.begin(), lanes.end());

  // The sampled output positions of every rank, on its GPU.
  for (int r = 0; r < R; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    const std::vector<std::int64_t> idx = check_.indices(r);
    rank.idx = typename V::Buffer(rank.device, idx.size() * sizeof(std::int64_t));
    rank.samples = typename V::Buffer(rank.device, idx.size() * sizeof(std::uint16_t));
    V::Calls::set_device(rank.device);
    V::Calls::to_device(rank.idx.get(), idx.data(), idx.size() * sizeof(std::int64_t));
  }

  // What ran.
  Rank& r0 = *ranks_.front();
  const Piece first = piece(0, sched_.gemms.front().front());
  report_.chunks = sched_.chunks;
  report_.steps = sched_.steps;
  report_.size_bytes = c.size_bytes;
  report_.transport = layout_.transport(V::Calls::ccl_name());
  report_.gemm_sms = V::Calls::compute_units(*r0.gemm_lane);
  report_.collective_sms = r0.comm_lane ? V::Calls::compute_units(*r0.comm_lane) : 0;
  report_.collective_ctas = layout_.ctas();
  report_.gemm_algo = r0.gemm->describe(first);
  report_.first_kernel = r0.gemm->kernel(first);
  report_.note = layout_.note(report_.transport);
}

template <class V>
DependentRunner<V>::~DependentRunner() {
  for (auto& events : copy_done_) Rank::destroy(events);
  for (TraceLane& t : trace_lanes_)
    if (t.start) V::Calls::destroy_event(t.start);
  for (TraceMark& t : trace_marks_)
    if (t.end) V::Calls::destroy_event(t.end);
}

template <class V>
void DependentRunner<V>::trace_start() {
  if (trace_lanes_.empty()) {
    const auto add = [&](Lane* lane, int device) {
      if (!lane) return;
      for (const TraceLane& t : trace_lanes_)
        if (t.lane == lane) return;
      trace_lanes_.push_back({lane, device, {}});
      trace_lanes_.back().start = V::Calls::make_timing_event(device, lane);
    };
    for (int r = 0; r < sched_.ranks; ++r) {
      Rank& rank = *ranks_[static_cast<std::size_t>(r)];
      add(rank.gemm_lane, rank.device);
      add(rank.comm_lane, rank.device);
      if (layout_.dma())  // every copy-engine stream, the own index's (local copies) too
        for (Lane& peer : rt_.gpu(r).peer) add(&peer, rank.device);
    }
  }
  for (TraceLane& t : trace_lanes_) V::Calls::record(t.start, *t.lane, t.device);
  trace_next_ = 0;
}

template <class V>
void DependentRunner<V>::trace_mark(Lane& lane, int device, const char* stream, int rank, int index, int peer) {
  if (trace_next_ == trace_marks_.size()) {  // the first traced run makes the marks
    const auto started = std::find_if(trace_lanes_.begin(), trace_lanes_.end(),
                                      [&](const TraceLane& l) { return l.lane == &lane; });
    if (started == trace_lanes_.end())
      throw Failure("error", "trace: a " + std::string(stream) + " job of rank " + std::to_string(rank) +
                                 " ran on a stream without a start event");
    TraceMark t;
    t.mark = {stream, rank, index, peer, 0.0};
    t.lane = static_cast<std::size_t>(started - trace_lanes_.begin());
    t.end = V::Calls::make_timing_event(device, &lane);
    trace_marks_.push_back(std::move(t));
  }
  TraceMark& t = trace_marks_[trace_next_++];
  V::Calls::record(t.end, lane, device);
}

template <class V>
std::vector<TimelineMark> DependentRunner<V>::trace(int runs, double timeout_s) {
  for (int run = 0; run < runs; ++run) {
    rt_.sync_all(timeout_s);
    trace_start();
    tracing_ = true;
    try {
      launch();
    } catch (...) {
      tracing_ = false;
      throw;
    }
    tracing_ = false;
    rt_.sync_all(timeout_s);
    for (TraceMark& t : trace_marks_) t.ends_s.push_back(V::Calls::elapsed_s(trace_lanes_[t.lane].start, t.end));
  }
  std::vector<TimelineMark> out;
  for (const TraceMark& t : trace_marks_) {
    out.push_back(t.mark);
    out.back().end_s = std::max(0.0, summarize_runs(t.ends_s, 0, false).median_s);
  }
  return out;
}

template <class V>
void DependentRunner<V>::wait_for_step(int r, int step) {
  if (layout_.serial()) return;  // one stream
  Rank& rank = *ranks_[static_cast<std::size_t>(r)];
  if (!layout_.dma()) {
    V::Calls::wait(*rank.gemm_lane, rank.step_done[static_cast<std::size_t>(step)]);
    return;
  }
  const validator::DepStep& st = sched_.comm[static_cast<std::size_t>(step)];
  for (std::size_t ci = 0; ci < st.copies.size(); ++ci)
    if (st.copies[ci].dst_rank == r)
      V::Calls::wait(*rank.gemm_lane, copy_done_[static_cast<std::size_t>(step)][ci]);
}

template <class V>
void DependentRunner<V>::launch_gemm(int r, std::size_t j) {
  Rank& rank = *ranks_[static_cast<std::size_t>(r)];
  const validator::DepGemm& job = sched_.gemms[static_cast<std::size_t>(r)][j];
  if (job.waits_for_step >= 0) wait_for_step(r, job.waits_for_step);
  rank.gemm->launch({row_ptr(r, job.a_buffer, job.a_row), job.a_stride,
                     row_ptr(r, job.out_buffer, job.out_row), job.out_stride, job.rows, job.count},
                    *rank.gemm_lane);
  if (!rank.gemm_done.empty()) V::Calls::record(rank.gemm_done[j], *rank.gemm_lane, rank.device);
  if (tracing_) trace_mark(*rank.gemm_lane, rank.device, "gemm", r, static_cast<int>(j), -1);
}

template <class V>
void DependentRunner<V>::launch_step(int step) {
  const validator::DepStep& st = sched_.comm[static_cast<std::size_t>(step)];
  const DependentOptions& opt = layout_.options();
  const bool drop = opt.drop_last_step && step + 1 == static_cast<int>(sched_.comm.size());
  const int w = st.waits_for_gemm;
  if (layout_.dma()) {  // one copy per RowCopy on its issuer's stream to that peer
    const bool push = opt.ce.direction == validator::CeDirection::push;
    for (std::size_t ci = 0; ci < st.copies.size(); ++ci) {
      const validator::RowCopy& cp = st.copies[ci];
      const int owner = push ? cp.src_rank : cp.dst_rank;
      typename V::Gpu& g = rt_.gpu(owner);
      Lane& lane = g.peer[static_cast<std::size_t>(push ? cp.dst_rank : cp.src_rank)];
      if (w >= 0)
        V::Calls::wait(lane,
                       ranks_[static_cast<std::size_t>(cp.src_rank)]->gemm_done[static_cast<std::size_t>(w)]);
      if (!drop)
        V::Calls::ce_copy(row_ptr(cp.dst_rank, cp.dst, cp.dst_row), rt_.gpu(cp.dst_rank).device,
                          row_ptr(cp.src_rank, cp.src, cp.src_row), rt_.gpu(cp.src_rank).device,
                          static_cast<std::size_t>(cp.rows * layout_.width(cp.src)) * 2, lane, g.device,
                          opt.ce);
      if (!copy_done_.empty())
        V::Calls::record(copy_done_[static_cast<std::size_t>(step)][ci], lane, g.device);
      if (tracing_) trace_mark(lane, g.device, "copy", owner, step, push ? cp.dst_rank : cp.src_rank);
    }
    return;
  }
  if (!layout_.serial() && w >= 0)
    for (auto& rank : ranks_) V::Calls::wait(*rank->comm_lane, rank->gemm_done[static_cast<std::size_t>(w)]);
  if (!drop)
    V::Calls::ccl(ccl_calls_[static_cast<std::size_t>(step)], layout_.pair().gemm.dtype, comms_, comm_lanes_);
  for (auto& rank : ranks_)
    if (!rank->step_done.empty())
      V::Calls::record(rank->step_done[static_cast<std::size_t>(step)], *rank->comm_lane, rank->device);
  if (tracing_)
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      trace_mark(*ranks_[r]->comm_lane, ranks_[r]->device, "collective", static_cast<int>(r), step, -1);
}

template <class V>
void DependentRunner<V>::launch() {
  for (const DependentAction& a : layout_.actions()) {
    if (a.kind == DependentAction::Kind::step)
      launch_step(static_cast<int>(a.index));
    else
      launch_gemm(a.rank, a.index);
  }
}

template <class V>
void DependentRunner<V>::poison(double timeout_s) {
  for (int r = 0; r < sched_.ranks; ++r) {
    const Lane& work = rt_.gpu(r).work;
    V::Calls::set_device(ranks_[static_cast<std::size_t>(r)]->device);
    for (const RowRange& nan : layout_.poison_ranges(r))
      V::Calls::nan_fill(row_ptr(r, nan.buffer, nan.row),
                         static_cast<std::size_t>(nan.rows * layout_.width(nan.buffer)) * 2, work);
  }
  rt_.sync_all(timeout_s);
}

template <class V>
std::int64_t DependentRunner<V>::check_moved_rows(std::string* first_error) {
  std::int64_t bad = 0;
  for (MovedRowsCheck c : layout_.moved_row_checks()) {
    c.args.out = row_ptr(c.rank, validator::DepBuffer::a, c.row);
    const auto res = V::Calls::run_check(rt_.gpu(c.rank), c.args);
    bad += static_cast<std::int64_t>(res.mismatches);
    if (res.mismatches && first_error && first_error->empty())
      *first_error = layout_.moved_rows_error(c, res.mismatches, res.first_bad);
  }
  return bad;
}

template <class V>
std::int64_t DependentRunner<V>::check_samples(std::string* first_error) {
  std::int64_t bad = 0;
  for (int r = 0; r < sched_.ranks; ++r) {
    Rank& rank = *ranks_[static_cast<std::size_t>(r)];
    const std::size_t S = check_.size(r);
    typename V::Gpu& g = rt_.gpu(r);
    V::Calls::set_device(g.device);
    V::Calls::gather16(rank.out.template as<std::uint16_t>(), rank.idx.template as<std::int64_t>(),
                       rank.samples.template as<std::uint16_t>(), static_cast<int>(S), g.work);
    std::vector<std::uint16_t> got(S);
    V::Calls::to_host(got.data(), rank.samples.get(), S * sizeof(std::uint16_t), g.work);
    bad += check_.compare(r, got, first_error);
  }
  return bad;
}

template <class V>
std::int64_t DependentRunner<V>::verify(std::string* first_error) {
  return check_moved_rows(first_error) + check_samples(first_error);
}

}  // namespace c3::device
