// io/files.cpp: reading and writing whole files, and the library's version.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/json_document.hpp"

namespace c3::io {

std::string_view version() { return C3_VERSION; }

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(path, 0, "", "cannot read: is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, 0, "", std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path, 0, "", "cannot read: I/O error");
  return std::move(text).str();
}

void write_file(const std::string& path, const std::string& text) {
  validator::json::write_atomically(path, text);
}

}  // namespace c3::io
