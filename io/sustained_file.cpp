// The sustained-GEMM file (c3/measurements.hpp, docs/formats.md "Sustained GEMMs"):
// written by scripts/gpu-jobs/torch_sustained.py, read by calibrate --sustained.
#include <string>

#include "c3/io.hpp"
#include "c3/measurements.hpp"
#include "io/json_document.hpp"

namespace c3::validator {
namespace {

using json::Json;
using json::Reader;

constexpr std::string_view kFileType = "sustained_gemms";

std::int64_t dimension(const Reader& r, const Json& j, const std::string& name, const std::string& path) {
  const std::int64_t v = r.integer(j, name, path);
  if (v <= 0) r.fail(path + "." + name, "must be > 0");
  return v;
}

double time_s(const Reader& r, const Json& j, const std::string& name, const std::string& path, bool ok) {
  const double v = r.number(j, name, path);
  if (ok && !(v > 0 && v < 1e6)) r.fail(path + "." + name, "must be a time > 0 s of an ok record");
  return v;
}

SustainedRecord read_record(const Reader& r, const Json& j, const std::string& path) {
  SustainedRecord rec;
  rec.gemm.m = dimension(r, j, "m", path);
  rec.gemm.n = dimension(r, j, "n", path);
  rec.gemm.k = dimension(r, j, "k", path);
  rec.gemm.dtype = r.parsed(j, "dtype", path, parse_dtype);
  rec.ok = r.boolean(j, "ok", path);
  rec.verified = r.boolean(j, "verified", path);
  rec.error = r.text(j, "error", path);
  rec.burst_s = time_s(r, j, "burst_s", path, rec.ok);
  rec.sustained_s = time_s(r, j, "sustained_s", path, rec.ok);
  return rec;
}

}  // namespace

SustainedFile parse_sustained(std::string_view json_text, const std::string& origin) {
  return json::parse_typed_records<SustainedFile>(Reader(origin), json_text, kFileType,
                                                  "a file of scripts/gpu-jobs/torch_sustained.py", read_record);
}

SustainedFile load_sustained(const std::string& path) { return parse_sustained(io::read_file(path), path); }

}  // namespace c3::validator
