// io/yaml_field.hpp: checked, typed access to a parsed YAML document. A Field is
// one node with its key path and line; every failed expectation throws
// ConfigError(origin, line, path, message). Nothing here knows the file formats.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace c3::io::detail {

class Field {
 public:
  /// `origin` must outlive the Field (it is the caller's file name).
  Field(YAML::Node node, std::string path, int line, const std::string& origin);

  const std::string& path() const { return path_; }
  int line() const { return line_; }
  const std::string& origin() const { return *origin_; }
  /// Throws ConfigError at this field.
  [[noreturn]] void fail(const std::string& message) const;

  // ---- mappings ----
  /// Checks this is a mapping whose keys are scalars, appear once and are all in
  /// `allowed`.
  void expect_keys(std::initializer_list<std::string_view> allowed) const;
  /// The value of a required key (the mapping is checked first).
  Field at(std::string_view key) const;
  /// The value of an optional key; nullopt when absent.
  std::optional<Field> find(std::string_view key) const;
  /// Every (key, value) of a mapping with unique keys, in file order.
  std::vector<std::pair<std::string, Field>> entries() const;

  // ---- sequences ----
  /// Every element of a sequence (may be empty), with paths "path[i]".
  std::vector<Field> elements() const;

  // ---- scalars ----
  /// A non-null scalar, as written.
  std::string text() const;
  /// A finite number written plainly (a quoted "3" is a string, not a number).
  double number() const;
  /// number() > 0.
  double positive() const;
  /// number() >= 0.
  double non_negative() const;
  /// An integer written plainly; a fraction or an exponent is an error.
  std::int64_t integer() const;
  /// integer() in [lo, hi].
  std::int64_t integer_in(std::int64_t lo, std::int64_t hi) const;
  /// integer() > 0.
  std::int64_t positive_integer() const;
  /// integer() in [1, INT_MAX].
  int positive_int() const;

 private:
  void expect_map() const;
  std::string child_path(std::string_view key) const;
  std::string_view kind_name() const;
  std::string plain_scalar(std::string_view expected) const;

  YAML::Node node_;
  std::string path_;
  int line_;
  const std::string* origin_;
};

/// Parses YAML text whose top level is a mapping. A syntax error, an empty
/// document or another top level becomes ConfigError.
Field parse_document(std::string_view text, const std::string& origin);

}  // namespace c3::io::detail
