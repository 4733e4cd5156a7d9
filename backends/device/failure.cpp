// backends/device/failure.cpp: named failures and the poisoned-device record (failure.hpp).
#include "backends/device/failure.hpp"

#include <new>
#include <utility>

namespace c3::device {

bool PoisonState::poisoned() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return poisoned_;
}

void PoisonState::poison(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!poisoned_) reason_ = why;
  poisoned_ = true;
}

std::string PoisonState::reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reason_;
}

Measurement failed(const std::string& error, int warmup_runs, std::vector<double> runs_s) {
  Measurement m;
  m.ok = false;
  m.error = error;
  m.warmup_runs = warmup_runs;
  m.runs_s = std::move(runs_s);
  return m;
}

Measurement guarded(const PoisonState& poison, int warmup_runs, const std::function<Measurement()>& body) {
  try {
    if (poison.poisoned()) return failed("device_unusable: " + poison.reason(), warmup_runs);
    return body();
  } catch (const Failure& e) {
    return failed(e.what(), warmup_runs);
  } catch (const std::bad_alloc&) {
    return failed("out_of_memory: host allocation failed", warmup_runs);
  } catch (const std::exception& e) {
    return failed(std::string("error: ") + e.what(), warmup_runs);
  }
}

}  // namespace c3::device
