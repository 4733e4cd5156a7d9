// Shared JSON helpers of the validator layer (io/json_document.hpp).
#include "io/json_document.hpp"

#include <cmath>
#include <set>
#include <vector>

#include "c3/io.hpp"

namespace c3::validator::json {

Json provenance_json(const RawProvenance& p) {
  Json j;
  j["backend"] = p.backend;
  j["device"] = p.device;
  j["gpus"] = p.gpus;
  j["compute_units"] = p.compute_units;
  j["versions"] = Json::object();
  for (const auto& [component, version] : p.versions) j["versions"][component] = version;
  j["notes"] = p.notes;
  j["git_sha"] = p.git_sha;
  j["date"] = p.date;
  j["command"] = p.command;
  j["c3advisor_version"] = p.c3advisor_version;
  return j;
}

RawProvenance read_provenance(const Reader& r, const Json& j) {
  const std::string path = "provenance";
  RawProvenance p;
  p.backend = r.text(j, "backend", path);
  p.device = r.text(j, "device", path);
  p.gpus = r.count(j, "gpus", path);
  p.compute_units = r.count(j, "compute_units", path);
  for (const auto& [component, version] : r.member(j, "versions", path).items()) {
    if (!version.is_string()) r.fail(path + ".versions." + component, "must be a string");
    p.versions[component] = version.get<std::string>();
  }
  for (const Json& note : r.array(j, "notes", path)) {
    if (!note.is_string()) r.fail(path + ".notes", "must be a list of strings");
    p.notes.push_back(note.get<std::string>());
  }
  p.git_sha = r.text(j, "git_sha", path);
  p.date = r.text(j, "date", path);
  p.command = r.text(j, "command", path);
  p.c3advisor_version = r.text(j, "c3advisor_version", path);
  return p;
}

namespace {

/// A container open while parsing: an object's keys so far and its current key, or the
/// number of an array's elements so far.
struct OpenContainer {
  bool object = false;
  std::set<std::string> keys;
  std::string key;
  std::size_t elements = 0;
};

/// The key path of `key` in the innermost open object, spelled as Reader's.
std::string key_path(const std::vector<OpenContainer>& open, const std::string& key) {
  std::string path;
  for (std::size_t i = 0; i + 1 < open.size(); ++i)
    path = open[i].object ? Reader::join(path, open[i].key)
                          : path + "[" + std::to_string(open[i].elements) + "]";
  return Reader::join(path, key);
}

}  // namespace

Json parse_strict(const Reader& r, std::string_view json_text) {
  std::vector<OpenContainer> open;
  const auto element_done = [&open] {
    if (!open.empty() && !open.back().object) ++open.back().elements;
  };
  const Json::parser_callback_t check = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        open.push_back({event == Json::parse_event_t::object_start, {}, {}, 0});
        break;
      case Json::parse_event_t::key: {
        OpenContainer& object = open.back();
        object.key = parsed.get<std::string>();
        if (!object.keys.insert(object.key).second) r.fail(key_path(open, object.key), "duplicate key");
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        open.pop_back();
        element_done();
        break;
      case Json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  };
  return Json::parse(json_text, check);
}

Json parse_document(const Reader& r, std::string_view json_text) {
  Json doc;
  try {
    doc = parse_strict(r, json_text);
  } catch (const Json::exception& e) {
    // parse_error, and out_of_range for a number beyond a double ("1e400").
    r.fail("", std::string("not valid JSON: ") + e.what());
  }
  if (r.integer(doc, "schema_version", "") != io::kSchemaVersion)
    r.fail("schema_version", "unsupported (this build reads " + std::to_string(io::kSchemaVersion) + ")");
  return doc;
}

void put_measurement(Json& j, const Measurement& m, const char* median_key) {
  j["ok"] = m.ok;
  j["error"] = m.error;
  j[median_key] = m.median_s;
  j["min_s"] = m.min_s;
  j["max_s"] = m.max_s;
  j["runs_s"] = m.runs_s;
  j["warmup_runs"] = m.warmup_runs;
  j["verified"] = m.verified;
  if (m.gemm_kernel.known()) {
    const GemmKernel& g = m.gemm_kernel;
    j["gemm_kernel"] = {{"algo_id", g.algo_id},     {"tile_id", g.tile_id}, {"tile_m", g.tile_m},
                        {"tile_n", g.tile_n},       {"split_k", g.split_k}, {"stages_id", g.stages_id},
                        {"ctas", g.ctas},           {"waves", g.waves},     {"sm_target", g.sm_target}};
  }
  if (m.host_launch_s > 0) j["host_launch_s"] = m.host_launch_s;
  if (!m.timeline.empty()) j["timeline"] = timeline_json(m.timeline);
}

Json timeline_json(const std::vector<TimelineMark>& marks) {
  Json out = Json::array();
  for (const TimelineMark& t : marks) {
    Json mark = {{"stream", t.stream}, {"rank", t.rank}, {"index", t.index}, {"end_s", t.end_s}};
    if (t.peer >= 0) mark["peer"] = t.peer;
    out.push_back(std::move(mark));
  }
  return out;
}

Measurement read_measurement(const Reader& r, const Json& j, const std::string& path, const char* median_key) {
  Measurement m;
  m.ok = r.boolean(j, "ok", path);
  m.error = r.text(j, "error", path);
  m.median_s = r.number(j, median_key, path);
  m.min_s = r.number(j, "min_s", path);
  m.max_s = r.number(j, "max_s", path);
  const Json& runs = r.array(j, "runs_s", path);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].is_number()) r.fail(path + ".runs_s[" + std::to_string(i) + "]", "must be a number");
    m.runs_s.push_back(runs[i].get<double>());
  }
  m.warmup_runs = r.count(j, "warmup_runs", path);
  m.verified = r.boolean(j, "verified", path);
  if (j.contains("gemm_kernel")) {  // optional: written by backends that know the kernel
    const std::string kp = Reader::join(path, "gemm_kernel");
    const Json& g = j.at("gemm_kernel");
    if (!g.is_object()) r.fail(kp, "must be an object");
    GemmKernel& k = m.gemm_kernel;
    k.algo_id = r.small_integer(g, "algo_id", kp);
    k.tile_id = r.small_integer(g, "tile_id", kp);
    k.tile_m = r.small_integer(g, "tile_m", kp);
    k.tile_n = r.small_integer(g, "tile_n", kp);
    k.split_k = r.small_integer(g, "split_k", kp);
    k.stages_id = r.small_integer(g, "stages_id", kp);
    k.ctas = r.integer(g, "ctas", kp);
    k.waves = r.number(g, "waves", kp);
    k.sm_target = r.small_integer(g, "sm_target", kp);
    if (k.tile_m <= 0 || k.tile_n <= 0 || k.split_k <= 0 || k.ctas <= 0 || !(k.waves >= 0))
      r.fail(kp, "tile_m, tile_n, split_k and ctas must be > 0 and waves >= 0");
  }
  if (j.contains("host_launch_s")) {  // optional: written by programs that time the launch call
    m.host_launch_s = r.number(j, "host_launch_s", path);
    if (!(m.host_launch_s >= 0 && std::isfinite(m.host_launch_s)))
      r.fail(Reader::join(path, "host_launch_s"), "must be a finite number >= 0");
  }
  if (j.contains("timeline")) {  // optional: a dependent pair's traced runs (trace=N)
    const Json& marks = r.array(j, "timeline", path);
    for (std::size_t i = 0; i < marks.size(); ++i) {
      const std::string mp = path + ".timeline[" + std::to_string(i) + "]";
      if (!marks[i].is_object()) r.fail(mp, "must be an object");
      TimelineMark t;
      t.stream = r.text(marks[i], "stream", mp);
      if (t.stream != "gemm" && t.stream != "collective" && t.stream != "copy")
        r.fail(Reader::join(mp, "stream"), "must be gemm, collective or copy, got '" + t.stream + "'");
      t.rank = r.small_integer(marks[i], "rank", mp);
      t.index = r.small_integer(marks[i], "index", mp);
      if (marks[i].contains("peer")) t.peer = r.small_integer(marks[i], "peer", mp);
      t.end_s = r.number(marks[i], "end_s", mp);
      if (t.rank < 0 || t.index < 0 || (t.stream == "copy") != (t.peer >= 0))
        r.fail(mp, "rank and index must be >= 0, and peer given (>= 0) exactly for a copy");
      if (!(t.end_s >= 0 && std::isfinite(t.end_s))) r.fail(Reader::join(mp, "end_s"), "must be a finite number >= 0");
      m.timeline.push_back(std::move(t));
    }
  }
  if (m.ok && !(m.median_s > 0 && std::isfinite(m.median_s)))
    r.fail(Reader::join(path, median_key), "must be > 0 when ok");
  const auto time = [](double t) { return t >= 0 && std::isfinite(t); };
  if (m.ok && !time(m.min_s)) r.fail(Reader::join(path, "min_s"), "must be >= 0 when ok");
  if (m.ok && !time(m.max_s)) r.fail(Reader::join(path, "max_s"), "must be >= 0 when ok");
  for (std::size_t i = 0; m.ok && i < m.runs_s.size(); ++i)
    if (!time(m.runs_s[i])) r.fail(path + ".runs_s[" + std::to_string(i) + "]", "must be >= 0 when ok");
  return m;
}

void write_atomically(const std::string& path, const std::string& text) { io::write_file(path, text); }

}  // namespace c3::validator::json
