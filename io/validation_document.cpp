// io/validation_document.cpp: reading the document of `validate --json` (c3/io.hpp) as
// far as `report` draws it; every error names the file and the key path.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/json_document.hpp"

namespace c3::io {
namespace {

using Json = nlohmann::ordered_json;

// Checked access: errors name the file and the key path.
class Doc {
 public:
  explicit Doc(std::string path) : path_(std::move(path)) {
    // Checked as every versioned JSON file c3advisor reads (raw measurements, the gate).
    root_ = validator::json::parse_document(validator::json::Reader(path_), read_file(path_));
    if (!root_.is_object() || !root_.contains("summary") || !root_.contains("scenarios"))
      throw ConfigError(path_, 0, "summary",
                        "missing: expected the output of `c3advisor validate --json`");
  }

  const Json& at(const Json& j, const std::string& key, const std::string& where) const {
    if (!j.is_object() || !j.contains(key)) throw ConfigError(path_, 0, where + key, "missing");
    return j[key];
  }
  double number(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_number()) throw ConfigError(path_, 0, where + key, "not a number");
    return v.get<double>();
  }
  std::string string(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_string()) throw ConfigError(path_, 0, where + key, "not a string");
    return v.get<std::string>();
  }
  const Json& root() const { return root_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  Json root_;
};

// The groups of summary.fraction_of_ideal.<section> (`report` draws "all" with them):
// every group's scenarios, then every group's fraction_of_ideal, as the charts read them.
std::vector<ValidationDocument::Group> read_groups(const Doc& d, const Json& fractions,
                                                   const std::string& section) {
  const std::string where = "summary.fraction_of_ideal.";
  std::vector<std::pair<std::string, const Json*>> groups{{"all", &d.at(fractions, "overall", where)}};
  for (const auto& [name, g] : d.at(fractions, section, where).items()) groups.emplace_back(name, &g);
  std::vector<ValidationDocument::Group> out;
  for (const auto& [name, g] : groups)
    out.push_back({name, static_cast<int>(d.number(*g, "scenarios", where + name + ".")), {}});
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const Json& f = d.at(*groups[i].second, "fraction_of_ideal", where + groups[i].first + ".");
    for (const auto& [key, value] : f.items())
      if (value.is_number()) out[i].fraction_of_ideal[key] = value.get<double>();
  }
  return out;
}

}  // namespace

namespace {

ValidationDocument read_validation_document(const std::string& path) {
  const Doc d(path);
  const Json& r = d.root();
  const Json& sm = r["summary"];
  ValidationDocument out;
  out.scenarios = static_cast<int>(d.number(sm, "scenarios", "summary."));
  if (r.contains("backend") && r["backend"].contains("device") && r["backend"]["device"].is_string())
    out.device = r["backend"]["device"].get<std::string>();
  out.profile = r.contains("profile") && r["profile"].is_string() ? r["profile"].get<std::string>()
                                                                  : std::string("?");
  const Json& fractions = d.at(sm, "fraction_of_ideal", "summary.");
  out.by_collective = read_groups(d, fractions, "by_collective");
  out.overall = out.by_collective.front();
  out.by_collective.erase(out.by_collective.begin());
  out.by_overlap = read_groups(d, fractions, "by_overlap");
  out.by_overlap.erase(out.by_overlap.begin());

  const Json& scenarios = r["scenarios"];
  if (!scenarios.is_array()) throw ConfigError(d.path(), 0, "scenarios", "not a list");
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const std::string where = "scenarios[" + std::to_string(i) + "].";
    const Json& strategies = d.at(scenarios[i], "strategies", where);
    for (std::size_t k = 0; k < strategies.size(); ++k) {
      const std::string w = where + "strategies[" + std::to_string(k) + "].";
      const Json& st = strategies[k];
      if (!d.at(st, "predicted_s", w).is_number()) continue;  // not predicted
      ValidationDocument::Prediction p;
      try {
        p.strategy = parse_strategy(d.string(st, "name", w));
      } catch (const InputError& e) {
        throw ConfigError(d.path(), 0, w + "name", e.what());
      }
      p.measured_s = d.number(st, "measured_s", w);
      p.predicted_s = d.number(st, "predicted_s", w);
      out.predictions.push_back(p);
    }
  }
  out.prediction_error_median = d.number(sm, "prediction_error_median", "summary.");
  out.prediction_error_p90 = d.number(sm, "prediction_error_p90", "summary.");
  return out;
}

}  // namespace

// Doc checks the fields the charts need; a value of another JSON type further down
// ("strategies": "x") makes nlohmann throw: a bad document too, named as such.
ValidationDocument load_validation_document(const std::string& path) {
  try {
    return read_validation_document(path);
  } catch (const Json::exception& e) {
    throw ConfigError(path, 0, "", std::string("not a `validate --json` document: ") + e.what());
  }
}

}  // namespace c3::io
