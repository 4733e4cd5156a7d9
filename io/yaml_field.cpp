// io/yaml_field.cpp: see yaml_field.hpp.
#include "io/yaml_field.hpp"

#include <yaml-cpp/eventhandler.h>
#if __has_include(<yaml-cpp/depthguard.h>)
#include <yaml-cpp/depthguard.h>  // YAML::DeepRecursion: yaml-cpp 0.7 and later
#define C3_YAML_DEPTH_GUARD 1
#endif

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <set>
#include <sstream>
#include <system_error>

#include "c3/errors.hpp"

namespace c3::io::detail {
namespace {

int line_of(const YAML::Node& node, int fallback) {
  const int line = node.Mark().line;
  return line >= 0 ? line + 1 : fallback;
}

std::string join(std::initializer_list<std::string_view> names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

/// YAML allows an explicit "+"; from_chars does not.
std::string_view without_plus(std::string_view text) {
  if (text.size() > 1 && text.front() == '+') text.remove_prefix(1);
  return text;
}

template <typename T>
bool parse_whole(std::string_view text, T& out, std::errc& ec) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, out);
  ec = result.ec;
  return result.ec == std::errc() && result.ptr == end && !text.empty();
}

}  // namespace

Field::Field(YAML::Node node, std::string path, int line, const std::string& origin)
    : node_(std::move(node)), path_(std::move(path)), line_(line), origin_(&origin) {}

void Field::fail(const std::string& message) const {
  throw ConfigError(*origin_, line_, path_, message);
}

std::string Field::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string_view Field::kind_name() const {
  switch (node_.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Scalar: return "a scalar";
    default: return "nothing";
  }
}

void Field::expect_map() const {
  if (!node_.IsMap()) fail("expected a mapping, got " + std::string(kind_name()));
}

std::vector<std::pair<std::string, Field>> Field::entries() const {
  expect_map();
  std::vector<std::pair<std::string, Field>> out;
  std::set<std::string> seen;
  for (const auto& item : node_) {
    const int key_line = line_of(item.first, line_);
    if (!item.first.IsScalar()) {
      throw ConfigError(*origin_, key_line, path_, "keys must be plain names");
    }
    const std::string key = item.first.Scalar();
    if (!seen.insert(key).second) {
      throw ConfigError(*origin_, key_line, child_path(key), "duplicate key");
    }
    // The key's line: a block value starts on the next line, an empty value
    // ("key:") carries the mark of the next token.
    out.emplace_back(key, Field(item.second, child_path(key), key_line, *origin_));
  }
  return out;
}

void Field::expect_keys(std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, value] : entries()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      value.fail("unknown key (expected one of: " + join(allowed) + ")");
    }
  }
}

std::optional<Field> Field::find(std::string_view key) const {
  for (auto& [name, value] : entries()) {
    if (name == key) return std::move(value);
  }
  return std::nullopt;
}

Field Field::at(std::string_view key) const {
  if (auto value = find(key)) return *std::move(value);
  throw ConfigError(*origin_, line_, child_path(key), "required key is missing");
}

std::vector<Field> Field::elements() const {
  if (!node_.IsSequence()) fail("expected a sequence, got " + std::string(kind_name()));
  std::vector<Field> out;
  for (const YAML::Node& element : node_) {
    out.emplace_back(element, path_ + "[" + std::to_string(out.size()) + "]",
                     element.IsNull() ? line_ : line_of(element, line_), *origin_);
  }
  return out;
}

std::string Field::text() const {
  if (!node_.IsScalar()) fail("expected a string, got " + std::string(kind_name()));
  return node_.Scalar();
}

std::string Field::plain_scalar(std::string_view expected) const {
  const std::string what(expected);
  if (!node_.IsScalar()) fail("expected " + what + ", got " + std::string(kind_name()));
  const std::string& tag = node_.Tag();
  if (tag == "!") fail("expected " + what + ", got the quoted string '" + node_.Scalar() + "'");
  if (tag != "?") fail("expected " + what + ", got a value tagged " + tag);
  return node_.Scalar();
}

double Field::number() const {
  const std::string text = plain_scalar("a number");
  double value = 0;
  std::errc ec{};
  if (!parse_whole(without_plus(text), value, ec)) {
    if (ec == std::errc::result_out_of_range) fail("number out of range: " + text);
    fail("expected a number, got '" + text + "'");
  }
  if (!std::isfinite(value)) fail("expected a finite number, got '" + text + "'");
  return value;
}

double Field::positive() const {
  const double value = number();
  if (!(value > 0)) fail("must be > 0 (got " + node_.Scalar() + ")");
  return value;
}

double Field::non_negative() const {
  const double value = number();
  if (value < 0) fail("must be >= 0 (got " + node_.Scalar() + ")");
  return value;
}

std::int64_t Field::integer() const {
  const std::string text = plain_scalar("an integer");
  std::int64_t value = 0;
  std::errc ec{};
  if (parse_whole(without_plus(text), value, ec)) return value;
  if (ec == std::errc::result_out_of_range) fail("integer out of range: " + text);
  double as_double = 0;
  if (parse_whole(without_plus(text), as_double, ec)) {
    fail("expected an integer, got the number " + text);
  }
  fail("expected an integer, got '" + text + "'");
}

std::int64_t Field::integer_in(std::int64_t lo, std::int64_t hi) const {
  const std::int64_t value = integer();
  if (value < lo || value > hi) {
    fail("must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (got " +
         std::to_string(value) + ")");
  }
  return value;
}

std::int64_t Field::positive_integer() const {
  const std::int64_t value = integer();
  if (value <= 0) fail("must be > 0 (got " + std::to_string(value) + ")");
  return value;
}

int Field::positive_int() const {
  const std::int64_t value = positive_integer();
  if (value > INT_MAX) fail("integer out of range: " + std::to_string(value));
  return static_cast<int>(value);
}

namespace {

/// Counts documents without building them, to reject a second one. (Counting with
/// YAML::LoadAll is unsafe: yaml-cpp 0.7 yields empty documents without end for
/// some malformed input, e.g. a lone ",".)
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { starts_.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  /// The start of the second document of `text`, if it has one.
  static std::optional<YAML::Mark> second_document(const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentCounter counter;
    for (int document = 0; document < 2 && parser.HandleNextDocument(counter); ++document) {
    }
    if (counter.starts_.size() < 2) return std::nullopt;
    return counter.starts_[1];
  }

 private:
  std::vector<YAML::Mark> starts_;
};

}  // namespace

Field parse_document(std::string_view text, const std::string& origin) {
  const std::string yaml(text);
  YAML::Node root;
  std::optional<YAML::Mark> second;
  try {
    root = YAML::Load(yaml);
    if (!root.IsNull()) second = DocumentCounter::second_document(yaml);
  }
#ifdef C3_YAML_DEPTH_GUARD
  // yaml-cpp stops at a fixed depth with the message "bad file"; say what is wrong.
  catch (const YAML::DeepRecursion& e) {
    throw ConfigError(origin, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                      "nested too deeply (yaml-cpp stops at depth " + std::to_string(e.depth()) + ")");
  }
#endif
  catch (const YAML::Exception& e) {
    throw ConfigError(origin, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", e.msg);
  }
  if (root.IsNull()) throw ConfigError(origin, 0, "", "empty document");
  if (second) {
    throw ConfigError(origin, second->line + 1, "", "expected one YAML document, found more");
  }
  Field out(root, "", line_of(root, 1), origin);
  if (!root.IsMap()) out.fail("the top level must be a mapping");
  return out;
}

}  // namespace c3::io::detail
