// io::write_file (c3/io.hpp): the one way c3advisor writes a file, through a temporary
// file beside it, fsync and a rename; a failure names the file and keeps the previous one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

TEST_F(WriteFileTest, ALinkIsWrittenThroughAndStaysALink) {
  const fs::path target = dir_ / "target.json";
  c3::io::write_file(target.string(), "previous\n");
  fs::create_symlink("target.json", dir_ / "link.json");  // relative, as `ln -s` makes it
  c3::io::write_file((dir_ / "link.json").string(), "new\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link.json")));
  EXPECT_EQ(read(target), "new\n");
  // a link whose target does not exist yet creates it
  fs::create_symlink(dir_ / "later.json", dir_ / "dangling.json");
  c3::io::write_file((dir_ / "dangling.json").string(), "created\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "dangling.json")));
  EXPECT_EQ(read(dir_ / "later.json"), "created\n");
  EXPECT_EQ(names(), (std::vector<std::string>{"dangling.json", "later.json", "link.json", "target.json"}));
}

TEST_F(WriteFileTest, ALoopOfLinksIsAnErrorNamingTheFile) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  const std::string path = (dir_ / "a").string();
  try {
    c3::io::write_file(path, "x");
    FAIL() << "no error";
  } catch (const c3::Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + path + ": " + std::strerror(ELOOP));
  }
}

TEST_F(WriteFileTest, ASpecialFileIsWrittenInPlaceNotReplaced) {
  // a FIFO stands for the devices (/dev/null, /dev/stdout): written into, never renamed over
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  c3::io::write_file(fifo.string(), "through the pipe\n");
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(fs::status(fifo)));
  EXPECT_EQ(names(), std::vector<std::string>{"pipe"});
}

TEST_F(WriteFileTest, AnInheritedDescriptorIsWrittenAsItIs) {
  // /dev/fd/N (and /dev/stdout, /proc/self/fd/N): the open descriptor, not a reopened file
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  c3::io::require_writable("/dev/fd/" + std::to_string(fds[1]));
  c3::io::write_file("/dev/fd/" + std::to_string(fds[1]), "down the pipe\n");
  ::close(fds[1]);
  char buffer[64] = {};
  const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
  ::close(fds[0]);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "down the pipe\n");
  EXPECT_THROW(c3::io::require_writable("/dev/fd/987654"), c3::Error);  // not open
}

TEST_F(WriteFileTest, AFifoWithoutReaderIsCheckedWithoutWaiting) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  c3::io::require_writable(fifo.string());  // opening it would wait for a reader
  EXPECT_TRUE(fs::is_fifo(fs::status(fifo)));
}

TEST_F(WriteFileTest, ALinkAnotherUserPlantedInAStickyFolderIsNotFollowed) {
  // fs.protected_symlinks: in a sticky world-writable folder (/tmp) a link owned by neither
  // us nor the folder's owner is not followed (its target could be any file we may write)
  const fs::path shared = dir_ / "shared";
  fs::create_directory(shared);
  fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
  const fs::path victim = dir_ / "victim.txt";
  c3::io::write_file(victim.string(), "mine\n");
  fs::create_symlink(victim, shared / "out.json");
  const uid_t other = ::geteuid() + 4242;
  if (::lchown((shared / "out.json").c_str(), other, static_cast<gid_t>(-1)) != 0)
    GTEST_SKIP() << "cannot give a link to another user here (not root)";
  const std::string path = (shared / "out.json").string();
  try {
    c3::io::write_file(path, "theirs\n");
    ADD_FAILURE() << "followed";
  } catch (const c3::Error& e) {
    EXPECT_NE(std::string(e.what()).find("owned by another user: not followed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(c3::io::require_writable(path), c3::Error);
  EXPECT_EQ(read(victim), "mine\n");
}

}  // namespace

// io::require_no_earlier_data: measure, calibrate, bench-collective and validate refuse to
// replace a file of earlier measurements unless told to resume or overwrite it.
TEST_F(WriteFileTest, AFileWithDataIsRefusedNamingTheOptionAndItsSize) {
  const fs::path file = dir_ / "raw.json";
  c3::io::require_no_earlier_data(file.string(), "--out", "choose");  // none yet
  std::ofstream(file).close();
  c3::io::require_no_earlier_data(file.string(), "--out", "choose");  // empty (mktemp's): nothing to lose
  c3::io::write_file(file.string(), "{\"schema_version\": 1}");
  try {
    c3::io::require_no_earlier_data(file.string(), "--raw", "--resume or --overwrite");
    FAIL() << "a file holding data was not refused";
  } catch (const c3::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--raw " + file.string() + " already holds 21 bytes: --resume or --overwrite");
  }
  EXPECT_EQ(read(file), "{\"schema_version\": 1}");  // untouched
  const fs::path link = dir_ / "link.json";
  fs::create_symlink(file, link);
  EXPECT_THROW(c3::io::require_no_earlier_data(link.string(), "--out", "choose"),
               c3::InputError);                                       // through links
  c3::io::require_no_earlier_data("/dev/null", "--out", "choose");    // a device is no data
  c3::io::require_no_earlier_data(dir_.string(), "--out", "choose");  // a folder: write_file says why
  c3::io::require_no_earlier_data("", "--out", "choose");             // not saved
}
