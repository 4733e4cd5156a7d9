// backends/device/options.cpp: GPU backends' option text (options.hpp).
#include "backends/device/options.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "backends/device/patterns.hpp"
#include "c3/errors.hpp"

namespace c3::device {

std::vector<std::pair<std::string, std::string>> option_items(const std::string& arg, const std::string& backend) {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream ss(arg);
  std::string item;
  bool first = true;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      if (!first) throw InputError(backend + " backend: unexpected '" + item + "' (want key=value)");
      out.emplace_back("gpus", item);
    } else {
      out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    first = false;
  }
  return out;
}

bool parse_bool(const std::string& v, const std::string& key, const std::string& backend) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  throw InputError(backend + " backend option " + key + ": expected 0/1, got '" + v + "'");
}

int parse_int(const std::string& v, const std::string& key, int lo, const std::string& backend) {
  try {
    std::size_t used = 0;
    const int x = std::stoi(v, &used);
    if (used != v.size() || x < lo) throw std::invalid_argument(v);
    return x;
  } catch (const std::exception&) {
    throw InputError(backend + " backend option " + key + ": expected an integer >= " + std::to_string(lo) +
                     ", got '" + v + "'");
  }
}

FaultSpec parse_fault(const std::string& v, const std::vector<std::string>& known, const std::string& backend) {
  const auto at = v.find('@');
  FaultSpec f;
  f.name = v.substr(0, at);
  if (at == std::string::npos || std::find(known.begin(), known.end(), f.name) == known.end()) {
    std::string list;
    for (std::size_t i = 0; i < known.size(); ++i)
      list += (i == 0 ? "" : i + 1 == known.size() ? " or " : ", ") + known[i] + "@N";
    throw InputError(backend + " backend option fault: " + list + " (the N-th measurement), got '" + v + "'");
  }
  f.at = parse_int(v.substr(at + 1), "fault measurement", 1, backend);
  return f;
}

std::size_t placement_pad_bytes(std::uint64_t epoch, int gpu, int pad_mib) {
  if (pad_mib <= 0) return 0;
  constexpr std::size_t kPage = std::size_t{2} << 20;                       // the driver's large-page granule
  const std::uint64_t pages = static_cast<std::uint64_t>(pad_mib) / 2 + 1;  // 0 .. pad_mib / 2 pages
  return static_cast<std::size_t>(
             pattern::mix64(epoch * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(gpu)) % pages) *
         kPage;
}

}  // namespace c3::device
