// tests/unit/support/test_io_support.hpp: helpers of the io tests: fixtures, one-line
// edits of them, and catching the ConfigError an edit must cause.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "c3/errors.hpp"

namespace c3::test {

inline std::string source_path(const std::string& relative) {
  return std::string(C3_SOURCE_DIR) + "/" + relative;
}

inline std::string fixture_path(const std::string& name) {
  return source_path("tests/unit/fixtures/" + name);
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read test file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string fixture(const std::string& name) { return read_text(fixture_path(name)); }

/// `text` with its only occurrence of `from` replaced by `to`.
inline std::string replace_once(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos) {
    throw std::logic_error("expected exactly one '" + std::string(from) + "' in the fixture");
  }
  return text.replace(at, from.size(), to);
}

/// 1-based line of the only occurrence of `needle` in `text`.
inline int line_of(const std::string& text, std::string_view needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos || text.find(needle, at + 1) != std::string::npos) {
    throw std::logic_error("expected exactly one '" + std::string(needle) + "' in the text");
  }
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

/// The ConfigError `f` throws; a test failure (and an empty error) if it throws none.
template <typename F>
ConfigError config_error(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError";
  return ConfigError("", 0, "", "");
}

/// One malformed edit of a fixture and where the error must point.
struct BadInput {
  const char* label;
  const char* from;     ///< a unique piece of the fixture
  const char* to;       ///< what replaces it
  const char* key;      ///< expected key path
  const char* line_at;  ///< a unique piece of the edited text on the expected line
  const char* message;  ///< a piece of the expected message
};

inline std::ostream& operator<<(std::ostream& os, const BadInput& c) { return os << c.label; }

/// Applies `c` to `fixture_text`, parses it with `parse(text, origin)` and checks that
/// the ConfigError names `origin`, the key, the line and the message of `c`.
template <typename Parse>
void expect_bad_input(const BadInput& c, const std::string& fixture_text, const char* origin, Parse&& parse) {
  const std::string text = replace_once(fixture_text, c.from, c.to);
  const ConfigError e = config_error([&] { parse(text, origin); });
  EXPECT_EQ(e.file(), origin);
  EXPECT_EQ(e.key(), c.key);
  EXPECT_EQ(e.line(), line_of(text, c.line_at));
  EXPECT_NE(e.message().find(c.message), std::string::npos) << e.what();
}

/// One spoiling edit of a good JSON document and the key path its error must name.
struct BadJson {
  std::string key;
  std::function<void(nlohmann::ordered_json&)> spoil;
};

/// Applies each case to a copy of `good`, parses it with `parse(text, "bad.json")` and
/// checks that a ConfigError names "bad.json" and the case's key.
template <typename Parse>
void expect_bad_json(const nlohmann::ordered_json& good, const std::vector<BadJson>& cases, Parse&& parse) {
  for (const BadJson& c : cases) {
    nlohmann::ordered_json doc = good;
    c.spoil(doc);
    try {
      parse(doc.dump(1), "bad.json");
      ADD_FAILURE() << "no error for " << c.key;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.key(), c.key) << e.what();
      EXPECT_EQ(e.file(), "bad.json");
    }
  }
}

}  // namespace c3::test
