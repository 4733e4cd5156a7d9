// tests/unit/support/temp_dir.hpp: a temporary directory of one test's own, so that tests
// run in parallel (ctest -j, two checkouts at once) never share a file.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

namespace c3::test {

/// A fresh directory under std::filesystem::temp_directory_path(), named after the running
/// test, the process id and a per-process counter; removed with its contents when it goes.
/// A test (or fixture) holds one and asks it for file names: `tmp.file("raw.json")`.
class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / unique_name()) {
    std::filesystem::remove_all(path_);  // a leftover of a killed run with the same pid
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// The path of `name` in this directory (the file itself is not created).
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static std::string unique_name() {
    static std::atomic<unsigned> counter{0};
    std::string test = "no_test";
    if (const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info())
      test = std::string(info->test_suite_name()) + "." + info->name();
    for (char& c : test)  // parameterized names hold '/'
      if (c == '/' || c == '\\' || c == ' ') c = '_';
    return "c3_" + test + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  }

  std::filesystem::path path_;
};

}  // namespace c3::test
