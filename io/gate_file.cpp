// io/gate_file.cpp: the accuracy gate file (c3/io.hpp; data/accuracy-gate.json).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <limits>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/json_document.hpp"

namespace c3::io {
namespace {

using Json = nlohmann::ordered_json;

Json read_gate_file(const std::string& path) {
  Json doc;
  try {
    doc = validator::json::parse_document(validator::json::Reader(path), read_file(path));
  } catch (const ConfigError& e) {
    if (e.key() != "schema_version") throw;
    throw ConfigError(path, 0, e.key(),
                      e.message() +
                          "; a gate file written before 2026-11-29 has none: add \"schema_version\": 1");
  }
  if (!doc.contains("checks") || !doc["checks"].is_object())
    throw ConfigError(path, 0, "checks", "missing, or not a mapping of check names");
  return doc;
}

}  // namespace

namespace {

// Check `name` of a gate file's document (read from `path`); it must be there.
GateCheck read_check(const Json& doc, const std::string& path, const std::string& name,
                     const MetricDirection& higher_is_better) {
  const Json& check = doc.at("checks").at(name);
  const std::string base = "checks." + name;
  GateCheck out;
  if (!check.is_object() || !check.contains("thresholds") || !check.at("thresholds").is_array())
    throw ConfigError(path, 0, base + ".thresholds", "missing, or not a list");
  const Json& list = check.at("thresholds");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& t = list[i];
    const std::string key = base + ".thresholds[" + std::to_string(i) + "]";
    if (!t.is_object() || !t.contains("metric") || !t.at("metric").is_string())
      throw ConfigError(path, 0, key + ".metric", "missing, or not a string");
    GateThreshold g;
    g.metric = t.at("metric").get<std::string>();
    bool higher = false;
    try {
      higher = higher_is_better(g.metric);
    } catch (const InputError& e) {
      throw ConfigError(path, 0, key + ".metric", e.what());
    }
    const char* limit_key = higher ? "at_least" : "at_most";
    if (!t.contains(limit_key) || !t.at(limit_key).is_number())
      throw ConfigError(path, 0, key + "." + limit_key,
                        std::string("missing, or not a number (") + g.metric + " needs " +
                            limit_key + ")");
    g.limit = t.at(limit_key).get<double>();
    if (t.contains("tolerance")) {
      if (!t.at("tolerance").is_number() || t.at("tolerance").get<double>() < 0)
        throw ConfigError(path, 0, key + ".tolerance", "must be a number >= 0");
      g.tolerance = t.at("tolerance").get<double>();
    }
    out.thresholds.push_back(g);
  }
  if (check.contains("scenarios")) {
    const Json& n = check.at("scenarios");
    if (!n.is_number_integer() || n.get<long long>() < 1 ||
        n.get<long long>() > std::numeric_limits<int>::max())
      throw ConfigError(path, 0, base + ".scenarios", "must be a positive integer");
    out.scenarios = n.get<int>();
  }
  if (check.contains("split")) {
    if (!check.at("split").is_string()) throw ConfigError(path, 0, base + ".split", "not a string");
    out.split = check.at("split").get<std::string>();
  }
  return out;
}

Json read_gate_file_if_any(const std::string& path) {
  return std::filesystem::exists(path) ? read_gate_file(path) : Json::object();
}

// Check `name` of `doc` (a gate file as read, or an empty object for none); nullopt when absent.
std::optional<GateCheck> check_in(const Json& doc, const std::string& path, const std::string& name,
                                  const MetricDirection& higher_is_better) {
  if (!doc.contains("checks") || !doc.at("checks").contains(name)) return std::nullopt;
  return read_check(doc, path, name, higher_is_better);
}

}  // namespace

GateCheck load_gate_check(const std::string& path, const std::string& name,
                          const MetricDirection& higher_is_better) {
  const Json doc = read_gate_file(path);
  const Json& checks = doc.at("checks");
  if (!checks.contains(name)) {
    std::string names;
    for (const auto& [k, v] : checks.items()) names += (names.empty() ? "" : ", ") + k;
    throw ConfigError(path, 0, "checks",
                      "no check named '" + name + "' (it has: " + names + "); choose one with --gate-check");
  }
  return read_check(doc, path, name, higher_is_better);
}

std::optional<GateCheck> find_gate_check(const std::string& path, const std::string& name,
                                         const MetricDirection& higher_is_better) {
  return check_in(read_gate_file_if_any(path), path, name, higher_is_better);
}

namespace {

// `doc`: the gate file as read (an empty object for a new file).
void write_check(const Json& doc, const std::string& path, const std::string& name, const GateCheck& check,
                 const MetricDirection& higher_is_better) {
  Json list = Json::array();
  for (std::size_t i = 0; i < check.thresholds.size(); ++i) {
    const GateThreshold& t = check.thresholds[i];
    list.push_back(Json{{"metric", t.metric},
                        {higher_is_better(t.metric) ? "at_least" : "at_most", t.limit},
                        {"reached", check.reached.at(i)},
                        {"tolerance", t.tolerance}});
  }
  Json out;
  out["schema_version"] = kSchemaVersion;
  out["description"] =
      "Accuracy gate (scripts/accuracy-gate.sh, docs/accuracy.md): `c3advisor validate ... --gate "
      "FILE --gate-check NAME` fails when a summary metric is worse than its limit. Each limit is "
      "the value reached when the check was last written, worsened by its tolerance. Rewrite "
      "with scripts/accuracy-gate.sh --update.";
  Json checks = doc.contains("checks") ? doc["checks"] : Json::object();
  checks[name] = Json{{"command", check.command}, {"scenarios", check.scenarios}};
  if (!check.split.empty()) checks[name]["split"] = check.split;
  checks[name]["thresholds"] = list;
  out["checks"] = checks;
  write_file(path, out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
}

}  // namespace

void save_gate_check(const std::string& path, const std::string& name, const GateCheck& check,
                     const MetricDirection& higher_is_better) {
  write_check(read_gate_file_if_any(path), path, name, check, higher_is_better);
}

bool update_gate_check(const std::string& path, const std::string& name,
                       const MetricDirection& higher_is_better,
                       const std::function<GateCheck(const std::optional<GateCheck>&)>& make) {
  const Json doc = read_gate_file_if_any(path);
  const std::optional<GateCheck> earlier = check_in(doc, path, name, higher_is_better);
  write_check(doc, path, name, make(earlier), higher_is_better);
  return !earlier;
}

}  // namespace c3::io
