// Several processes' measurement files merged into one ground truth (io/replay_files.hpp).
#include "io/replay_files.hpp"

#include <algorithm>
#include <map>

#include "c3/errors.hpp"
#include "io/query.hpp"

namespace c3::validator {
namespace {

// The merge of one key's measurements, one per file that has it, in file order (not empty).
Measurement median_of_measurements(const std::vector<const Measurement*>& measured) {
  std::vector<const Measurement*> ok;
  for (const Measurement* m : measured)
    if (m->ok) ok.push_back(m);
  if (ok.empty()) return *measured.front();  // failed everywhere: the first file's error
  Measurement out;
  out.ok = true;
  out.min_s = ok.front()->min_s;
  out.max_s = ok.front()->max_s;
  out.verified = true;
  for (const Measurement* m : ok) {
    out.runs_s.push_back(m->median_s);
    out.min_s = std::min(out.min_s, m->min_s);
    out.max_s = std::max(out.max_s, m->max_s);
    out.verified = out.verified && m->verified;
  }
  out.median_s = median_of(out.runs_s);
  out.warmup_runs = ok.front()->warmup_runs;
  out.gemm_kernel = ok.front()->gemm_kernel;
  out.host_launch_s = ok.front()->host_launch_s;
  return out;
}

}  // namespace

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<std::string> replay_files(const std::string& arg) {
  if (arg.empty()) throw InputError("replay needs a measurements file: --backend replay:FILE");
  std::vector<std::string> files;
  std::size_t start = 0;
  while (true) {
    const std::size_t plus = arg.find('+', start);
    const std::string part = arg.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    if (part.empty())
      throw InputError("replay:" + arg +
                       ": an empty file name (expected replay:FILE or replay:FILE1+FILE2[+FILE3...])");
    files.push_back(part);
    if (plus == std::string::npos) return files;
    start = plus + 1;
  }
}

RawMeasurements median_over_processes(std::vector<RawMeasurements> files,
                                      const std::vector<std::string>& names) {
  if (files.empty() || names.size() != files.size())
    throw InputError("median_over_processes needs one name per file and at least one file (got " +
                     std::to_string(files.size()) + " files, " + std::to_string(names.size()) + " names)");
  // Each key's record in each file that has it (a key twice in one file is refused).
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Record*>> by_key;
  for (std::size_t f = 0; f < files.size(); ++f) {
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < files[f].records.size(); ++i) {
      const Record& r = files[f].records[i];
      const std::string key = measurement_key(r.query);
      if (!seen.emplace(key, i).second)
        throw ConfigError(names[f], 0, "records[" + std::to_string(i) + "].key",
                          "duplicate measurement '" + key + "'");
      std::vector<const Record*>& records = by_key[key];
      if (records.empty()) order.push_back(key);
      records.push_back(&r);
    }
  }
  RawMeasurements out;
  out.provenance = files.front().provenance;
  out.provenance.notes.push_back("replay: the median over " + std::to_string(files.size()) +
                                 " processes' files: " + joined_names(names));
  for (const RawMeasurements& f : files)
    if (!f.peers.empty()) {
      out.peers = f.peers;
      break;
    }
  for (const std::string& key : order) {
    const std::vector<const Record*>& records = by_key.at(key);
    std::vector<const Measurement*> measured;
    for (const Record* r : records) measured.push_back(&r->measurement);
    out.records.push_back({records.front()->query, median_of_measurements(measured)});
  }
  return out;
}

RawMeasurements load_replay_files(const std::string& arg) {
  const std::vector<std::string> names = replay_files(arg);
  if (names.size() == 1) return load_raw_measurements(names.front());
  std::vector<RawMeasurements> files;
  for (const std::string& name : names) files.push_back(load_raw_measurements(name));
  return median_over_processes(std::move(files), names);
}

}  // namespace c3::validator
