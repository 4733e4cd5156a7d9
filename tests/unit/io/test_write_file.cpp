// io::write_file (c3/io.hpp): the one way c3advisor writes a file, through a temporary
// file beside it, fsync and a rename; a failure names the file and keeps the previous one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "c3/errors.hpp"
#include "c3/io.hpp"

namespace {

namespace fs = std::filesystem;

/// A fresh folder of its own under the system's temporary folder, removed at the end.
class WriteFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("c3-write-file-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  /// The names in the folder, to see that no temporary file is left.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

TEST_F(WriteFileTest, WritesAndReplacesLeavingNoTemporaryFile) {
  const std::string path = (dir_ / "out.json").string();
  c3::io::write_file(path, "first, longer text\n");
  EXPECT_EQ(read(path), "first, longer text\n");
  c3::io::write_file(path, "second\n");
  EXPECT_EQ(read(path), "second\n");
  c3::io::write_file(path, "");
  EXPECT_EQ(read(path), "");
  EXPECT_EQ(names(), std::vector<std::string>{"out.json"});
}

TEST_F(WriteFileTest, MissingFolderIsAnErrorNamingTheFile) {
  const std::string path = (dir_ / "no" / "such" / "out.json").string();
  try {
    c3::io::write_file(path, "x");
    FAIL() << "no error";
  } catch (const c3::Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + path + ": No such file or directory");
  }
}

TEST_F(WriteFileTest, ReadOnlyFolderKeepsThePreviousFile) {
  const std::string path = (dir_ / "profile.yaml").string();
  c3::io::write_file(path, "previous\n");
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                            fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  // root writes anywhere: try as nobody (the effective user only, restored below).
  const bool root = ::geteuid() == 0;
  if (root && ::seteuid(65534) != 0) GTEST_SKIP() << "cannot drop root";
  std::string message;
  try {
    c3::io::write_file(path, "new\n");
  } catch (const c3::Error& e) {
    message = e.what();
  }
  if (root) ASSERT_EQ(::seteuid(0), 0);
  EXPECT_EQ(message, "cannot write " + path + ": Permission denied");
  EXPECT_EQ(read(path), "previous\n");
  EXPECT_EQ(names(), std::vector<std::string>{"profile.yaml"});
}

TEST_F(WriteFileTest, AFolderInTheWayIsAnErrorAndNoTemporaryFileIsLeft) {
  const fs::path folder = dir_ / "chart.svg";
  fs::create_directories(folder / "inside");
  try {
    c3::io::write_file(folder.string(), "<svg/>");
    FAIL() << "no error";
  } catch (const c3::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot write " + folder.string() + ": ", 0), 0u) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(folder / "inside"));
  EXPECT_EQ(names(), std::vector<std::string>{"chart.svg"});
}

}  // namespace
