// backends/device/options.hpp: the option text of a GPU backend ("2,warmup=1,runs=3,
// timeout=30,fault=oom@5", after "cuda:" or "hip:") split into keys and values, and the
// value parsers, so that every GPU backend names bad options the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace c3::device {

/// The key=value items of `arg`, in order; a first item without '=' is the GPU count
/// (key "gpus"). Empty items are skipped. Throws InputError ("<backend> backend: unexpected
/// 'x' (want key=value)") for a later item without '='.
std::vector<std::pair<std::string, std::string>> option_items(const std::string& arg, const std::string& backend);

/// "1/true/on/yes" or "0/false/off/no". Throws InputError naming the backend and key.
bool parse_bool(const std::string& value, const std::string& key, const std::string& backend);
/// A whole integer >= lo. Throws InputError naming the backend and key.
int parse_int(const std::string& value, const std::string& key, int lo, const std::string& backend);

/// A fault injection "name@N" (the N-th measurement of the process fails through `name`).
struct FaultSpec {
  std::string name;
  long at = 0;
};
/// Parses "name@N" where name is one of `known` (listed in the error as "a@N, b@N or c@N").
/// Throws InputError.
FaultSpec parse_fault(const std::string& value, const std::vector<std::string>& known, const std::string& backend);

/// The placement pad of one measurement on one GPU (backend option `pad=MIB`, docs/device.md):
/// a whole number of 2 MiB pages in [0, pad_mib] MiB, drawn from (epoch, gpu) so that every
/// measurement's buffers start at another offset and a rerun draws the same. 0 when pad_mib <= 0.
std::size_t placement_pad_bytes(std::uint64_t epoch, int gpu, int pad_mib);

}  // namespace c3::device
