// Collective benchmarks (measure/collective_bench.hpp).
#include "measure/collective_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/json_document.hpp"

namespace c3::validator {
namespace {

using json::Json;
using json::Reader;


bool same_point(const BenchRecord& a, const BenchRecord& b) {
  return a.kind == b.kind && a.transport == b.transport && a.ranks == b.ranks && a.size_bytes == b.size_bytes;
}

Measurement failed(const std::string& error) {
  Measurement m;
  m.error = error;
  return m;
}

Measurement measure_one(Validator& v, const BenchRecord& r) {
  const Collective coll{r.kind, r.size_bytes, r.ranks};
  try {
    if (r.transport == kLibraryTransport) return v.collective(coll, Transport::cu, 0);
    v.set_dma_variant(r.transport);
    return v.collective(coll, Transport::dma, 0);
  } catch (const Error& e) {
    return failed(e.what());
  }
}

void check_options(const BenchOptions& o, const Capabilities& caps) {
  if (o.kinds.empty()) throw InputError("bench-collective: no collective kinds");
  if (o.transports.empty()) throw InputError("bench-collective: no transports");
  if (o.sizes.empty()) throw InputError("bench-collective: no sizes");
  for (const std::int64_t s : o.sizes)
    if (s <= 0) throw InputError("bench-collective: size " + std::to_string(s) + " must be > 0 bytes");
  if (o.ranks < 2) throw InputError("bench-collective: --ranks must be at least 2 (got " + std::to_string(o.ranks) + ")");
  if (caps.gpus > 0 && o.ranks > caps.gpus)
    throw InputError("bench-collective: --ranks " + std::to_string(o.ranks) + ": backend '" + caps.backend +
                     "' has " + std::to_string(caps.gpus) + " GPUs");
  if (o.resume && o.path.empty()) throw InputError("bench-collective: --resume needs --out");
  require_resume_or_overwrite(o.path, o.resume, o.overwrite, "--out");
}

}  // namespace

std::vector<std::int64_t> size_sweep(std::int64_t min_bytes, std::int64_t max_bytes, std::int64_t factor) {
  if (min_bytes < 1) throw InputError("minimum size must be >= 1 byte (got " + std::to_string(min_bytes) + ")");
  if (max_bytes < min_bytes)
    throw InputError("maximum size " + std::to_string(max_bytes) + " is below the minimum " + std::to_string(min_bytes));
  if (factor < 2) throw InputError("step factor must be >= 2 (got " + std::to_string(factor) + ")");
  std::vector<std::int64_t> out;
  for (std::int64_t s = min_bytes;; s *= factor) {
    out.push_back(s);
    if (s > max_bytes / factor) break;  // the next step would pass max (or overflow)
  }
  return out;
}

BenchFile run_bench(Validator& validator, const BenchOptions& o, RawProvenance provenance,
                    const BenchProgress& progress) {
  const Capabilities caps = validator.capabilities();
  check_options(o, caps);
  BenchFile file;
  file.provenance = std::move(provenance);
  std::vector<BenchRecord> previous;
  if (o.resume && io::data_bytes(o.path) > 0) {  // a missing or empty file: nothing to resume
    BenchFile old = load_bench(o.path);
    if (old.provenance.backend != file.provenance.backend || old.provenance.device != file.provenance.device)
      throw InputError("--resume: " + o.path + " was measured with backend '" + old.provenance.backend + "' on '" +
                       old.provenance.device + "', not '" + file.provenance.backend + "' on '" +
                       file.provenance.device + "'");
    previous = std::move(old.records);
  }
  std::vector<BenchRecord> todo;
  for (const CollectiveKind kind : o.kinds)
    for (const std::string& t : o.transports) {
      if (t != kLibraryTransport && !dma_capable(kind)) continue;
      for (const std::int64_t size : o.sizes) todo.push_back(BenchRecord{kind, t, o.ranks, size, {}});
    }
  const std::string variant_before = validator.dma_variant();
  std::size_t index = 0;
  for (BenchRecord& r : todo) {
    const auto old = std::find_if(previous.begin(), previous.end(),
                                  [&](const BenchRecord& p) { return same_point(p, r) && p.measurement.ok; });
    const bool resumed = old != previous.end();
    r.measurement = resumed ? old->measurement : measure_one(validator, r);
    file.records.push_back(r);
    if (!o.path.empty()) io::write_file(o.path, bench_json(file));
    if (progress) progress(BenchStep{++index, todo.size(), &file.records.back(), resumed});
  }
  validator.set_dma_variant(variant_before);  // accepted before the run, so accepted now
  return file;
}

}  // namespace c3::validator
