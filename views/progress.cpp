// views/progress.cpp: progress lines of the measuring commands (c3/views.hpp).
#include <array>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "c3/views.hpp"

namespace c3::validator {

std::string format_run_time(double seconds) {
  std::array<char, 32> text{};
  if (seconds >= 1e-3)
    std::snprintf(text.data(), text.size(), "%.3f ms", seconds * 1e3);
  else
    std::snprintf(text.data(), text.size(), "%.1f us", seconds * 1e6);
  return text.data();
}

std::string step_line(const Step& s) {
  return "[" + std::to_string(s.index) + "/" + std::to_string(s.total) + "] " + s.description + " ... " +
         (s.measurement.ok ? format_run_time(s.measurement.median_s) : "FAILED: " + s.measurement.error) +
         (s.resumed ? " (resumed)" : "");
}

std::string bench_progress_line(const BenchStep& s) {
  const BenchRecord& r = *s.record;
  std::ostringstream os;
  os << "[" << s.index << "/" << s.total << "] " << to_string(r.kind) << " " << r.transport << " "
     << format_size(r.size_bytes) << " ... ";
  if (r.measurement.ok)
    os << format_run_time(r.measurement.median_s) << ", busbw " << std::fixed << std::setprecision(1)
       << busbw_bytes_per_s(r) / 1e9 << " GB/s";
  else
    os << "FAILED: " << r.measurement.error;
  if (s.resumed) os << " (resumed)";
  return os.str();
}

}  // namespace c3::validator
