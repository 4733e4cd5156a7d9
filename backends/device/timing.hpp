// backends/device/timing.hpp: the timing loop of one run across GPUs, with its watchdog,
// written once over the vendor's event calls (a template: the vendor's lanes keep their
// own types, no cast, no virtual call between launches).
//
// One run: on every GPU used, a start event on its timing stream; every lane (a stream the
// run launches on) waits for it; the launch; every lane records its done event and the
// timing stream waits for it; an end event per GPU. Then the host polls the end events
// until all completed, checks the collective library's asynchronous errors every 50 ms,
// and gives up after `timeout_s` (the vendor then poisons the device and throws).
//
// A gated run (a vendor that is GatedVendor and whose gated() is true) first puts a blocking
// kernel on every GPU's timing stream, before the start event; the host queues the whole run
// behind it and then releases every GPU at once (nvbench's blocking kernel). The run's time
// then leaves out the host's launch pacing and the skew between the GPUs' launches.
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "backends/device/runner.hpp"

namespace c3::device {

/// Host time in seconds (steady clock).
inline double now_s() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

/// How often a run's poll checks the collective library's asynchronous errors.
inline constexpr double kAsyncCheckPeriod_s = 0.05;

/// The vendor calls of a timed run (cuda: backends/cuda/runtime.cpp; hip:
/// backends/hip/runtime.cpp). Each throws the vendor's Failure on an API error;
/// timed_out() must throw (after poisoning the device).
template <class V, class Lane>
concept TimedVendor = requires(V v, int gpu, Lane& lane, const std::string& why) {
  v.check_usable();          // throws "device_unusable" once poisoned
  v.record_start(gpu);       // start event on GPU gpu's timing stream
  v.wait_start(lane);        // lane waits for its GPU's start event
  v.join(lane);              // lane records its done event; its GPU's timing stream waits for it
  v.record_end(gpu);         // end event on the timing stream
  { v.end_ready(gpu) } -> std::same_as<bool>;   // end event completed (throws on error)
  { v.watches_async() } -> std::same_as<bool>;  // there are communicators to watch
  v.check_async();           // throws on an asynchronous collective error
  v.timed_out(why);          // [[noreturn]]: poisons, aborts communicators, throws "timeout"
  { v.elapsed_s(gpu) } -> std::same_as<double>;  // end - start on GPU gpu
};

/// The vendor calls of a gated run (see the file comment); a vendor without them runs
/// ungated.
template <class V>
concept GatedVendor = requires(V v, int gpu) {
  { v.gated() } -> std::same_as<bool>;  // this run is gated
  v.hold(gpu);                          // the blocking kernel on GPU gpu's timing stream
  v.release();                          // releases every held GPU (once per gated run)
  v.check_gate();                       // after the run: throws if a blocking kernel gave up waiting
};

/// Runs `launch` once, timed on `gpus` through `lanes` (see the file comment). Returns the
/// device time (max over GPUs of end - start) and the host time (launch call to observed
/// completion).
template <class V, class Lane>
  requires TimedVendor<V, Lane>
RunTime timed_run(V& v, const std::vector<int>& gpus, const std::vector<Lane*>& lanes,
                  const std::function<void()>& launch, double timeout_s) {
  v.check_usable();
  bool gated = false;
  if constexpr (GatedVendor<V>) gated = v.gated();
  // Released however this run ends: a launch that throws must not leave a GPU held.
  struct Release {
    V& v;
    bool on;
    void now() {
      if constexpr (GatedVendor<V>)
        if (on) v.release();
      on = false;
    }
    ~Release() {
      try {
        now();
      } catch (...) {
      }
    }
  } release{v, gated};
  if constexpr (GatedVendor<V>)
    if (gated)
      for (int g : gpus) v.hold(g);
  for (int g : gpus) v.record_start(g);
  for (Lane* l : lanes) v.wait_start(*l);
  const double t0 = now_s();
  launch();
  for (Lane* l : lanes) v.join(*l);
  for (int g : gpus) v.record_end(g);
  release.now();
  double last_async_check = t0;
  for (;;) {
    bool all = true;
    for (int g : gpus)
      if (!v.end_ready(g)) {
        all = false;
        break;
      }
    if (all) break;
    const double t = now_s();
    if (v.watches_async() && t - last_async_check > kAsyncCheckPeriod_s) {
      last_async_check = t;
      v.check_async();
    }
    if (t - t0 > timeout_s) v.timed_out("run did not complete within " + std::to_string(timeout_s) + " s");
    std::this_thread::yield();
  }
  if constexpr (GatedVendor<V>)
    if (gated) v.check_gate();
  RunTime out;
  out.host_s = now_s() - t0;
  for (int g : gpus) out.device_s = std::max(out.device_s, v.elapsed_s(g));
  return out;
}

/// Polls `ready()` (true: done; it throws on an error) until it returns true; once
/// now_s() passes `deadline_s`, calls `expired()`, which must throw. The watchdog of
/// draining streams and waiting for one event.
template <class Ready, class Expired>
void poll_until(Ready&& ready, double deadline_s, Expired&& expired) {
  for (;;) {
    if (ready()) return;
    if (now_s() > deadline_s) expired();
    std::this_thread::yield();
  }
}

}  // namespace c3::device
