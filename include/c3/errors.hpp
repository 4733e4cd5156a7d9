// c3/errors.hpp: the exceptions c3advisor throws. The library never prints and
// never exits; apps/ maps ConfigError and InputError to exit code 2 and everything
// else to exit code 1.
#pragma once

#include <stdexcept>
#include <string>

namespace c3 {

/// Base of every exception thrown by c3advisor.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// A value given by the caller is invalid (zero or negative size, unknown name,
/// a point outside a table's range, ...). Exit code 2 in the CLI.
class InputError : public Error {
 public:
  explicit InputError(const std::string& what) : Error(what) {}
};

/// A configuration file (profile, scenarios, trace, measurements) is malformed.
/// Carries the file, the 1-based line (0 when unknown) and the key path
/// ("tables.gemm_slowdown.compute_bound[2]"). what() is "file:line: key: message".
class ConfigError : public InputError {
 public:
  ConfigError(std::string file, int line, std::string key, std::string message)
      : InputError(format(file, line, key, message)),
        file_(std::move(file)),
        line_(line),
        key_(std::move(key)),
        message_(std::move(message)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

 private:
  static std::string format(const std::string& file, int line, const std::string& key,
                            const std::string& message) {
    std::string out = file.empty() ? std::string("<input>") : file;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
    if (!key.empty()) out += key + ": ";
    out += message;
    return out;
  }
  std::string file_;
  int line_;
  std::string key_;
  std::string message_;
};

/// A validator backend failed (GPU error, NCCL failure, timeout, missing file).
/// Exit code 1 in the CLI.
class BackendError : public Error {
 public:
  explicit BackendError(const std::string& what) : Error(what) {}
};

}  // namespace c3
