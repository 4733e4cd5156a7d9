// io/files.cpp: reading whole files, writing them crash-safely, and the library's version.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <string_view>
#include <optional>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "c3/errors.hpp"
#include "c3/io.hpp"

namespace c3::io {

std::string_view version() { return C3_VERSION; }

namespace {

/// `path` opened for reading; ConfigError(path, 0, "", "cannot read: ...") where it cannot be.
std::ifstream open_for_reading(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(path, 0, "", "cannot read: is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, 0, "", std::string("cannot read: ") + std::strerror(errno));
  return in;
}

}  // namespace

void require_readable(const std::string& path) { open_for_reading(path); }

std::string read_file(const std::string& path) {
  std::ifstream in = open_for_reading(path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path, 0, "", "cannot read: I/O error");
  return std::move(text).str();
}

namespace {

/// Closes a file descriptor once (-1: none).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { close(); }
  int get() const { return fd_; }
  /// 0, or the errno of close().
  int close() {
    if (fd_ < 0) return 0;
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

/// Creates a new file beside `path` (never an existing one: O_EXCL), named
/// PATH.tmp.PID.N, with the mode a new file gets (0666 less the umask).
Fd create_temporary(const std::string& path, std::string& tmp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return Fd(fd);
  }
  return Fd(-1);
}

/// All of `text` to `fd`; 0 or an errno.
int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

/// Makes a rename inside `path`'s folder durable; best effort (some file systems refuse).
void sync_folder(const std::string& path) {
  std::string folder = std::filesystem::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  Fd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) ::fsync(dir.get());
}

/// The descriptor a path names when it is one this process inherited: /dev/stdout (1),
/// /dev/stderr (2), /dev/fd/N, /proc/self/fd/N. Written to as it is (a pipe, a file opened
/// for appending by the shell), never reopened or replaced.
std::optional<int> inherited_fd(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.rfind(prefix, 0) != 0) continue;
    int fd = -1;
    const char* first = path.data() + prefix.size();
    const char* last = path.data() + path.size();
    const auto [end, ec] = std::from_chars(first, last, fd);
    if (ec == std::errc() && end == last && first != last) return fd;
  }
  return std::nullopt;
}

/// Whether the kernel would refuse to follow the link `link` (fs.protected_symlinks): in a
/// sticky, world-writable folder (/tmp), a link owned neither by us nor by the folder's owner.
bool protected_link(const std::filesystem::path& link) {
  struct stat l {};
  struct stat dir {};
  const std::filesystem::path folder = link.has_parent_path() ? link.parent_path() : ".";
  if (::lstat(link.c_str(), &l) != 0 || ::stat(folder.c_str(), &dir) != 0) return false;
  const bool sticky_shared = (dir.st_mode & S_ISVTX) != 0 && (dir.st_mode & S_IWOTH) != 0;
  return sticky_shared && l.st_uid != ::geteuid() && l.st_uid != dir.st_uid;
}

/// The file a path names after its symbolic links (at most 40, as the kernel allows), each
/// relative one read from its link's folder; the path itself when it is no link. A link
/// whose target does not exist yet names that target (the write creates it, as a shell's
/// `>` does). A link the kernel would not follow (protected_link) is an error.
std::string through_links(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  for (int hop = 0; hop < 40; ++hop) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p.string();
    if (protected_link(p))
      throw Error("cannot write " + path + ": " + std::strerror(EACCES) + " (" + p.string() +
                  " is a link in a shared sticky folder owned by another user: not followed)");
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) return p.string();
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw Error("cannot write " + path + ": " + std::strerror(ELOOP));
}

/// A path that exists and is neither a regular file nor a folder once the kernel has
/// followed its links (a device such as /dev/null, a FIFO, a socket): written in place,
/// never replaced.
bool is_special(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
         !std::filesystem::is_directory(st);
}

/// `text` written straight into a special file (no temporary file, no rename, no fsync);
/// the kernel follows its links.
void write_in_place(const std::string& path, std::string_view text) {
  Fd out(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  int error = out.get() < 0 ? errno : write_all(out.get(), text);
  const int close_error = out.close();
  if (error == 0) error = close_error;
  if (error != 0) throw Error("cannot write " + path + ": " + std::strerror(error));
}

}  // namespace

void require_writable(const std::string& shown_path) {
  const auto fail = [&](int error) { throw Error("cannot write " + shown_path + ": " + std::strerror(error)); };
  if (const auto fd = inherited_fd(shown_path)) {
    if (::fcntl(*fd, F_GETFL) < 0) fail(errno);
    return;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(shown_path, ec)) fail(EISDIR);
  if (is_special(shown_path)) {  // never opened here: a FIFO would wait for its reader
    if (::access(shown_path.c_str(), W_OK) != 0) fail(errno);
    return;
  }
  const std::string path = through_links(shown_path);
  std::string tmp;  // what write_file needs: a new file beside `path`
  Fd out = create_temporary(path, tmp);
  if (out.get() < 0) fail(errno);
  out.close();
  ::unlink(tmp.c_str());
}

std::uintmax_t data_bytes(const std::string& path) {
  if (path.empty() || inherited_fd(path) || is_special(path)) return 0;  // a pipe, a log, a device: not data
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);  // through links, as write_file writes
  if (ec || !std::filesystem::is_regular_file(status))
    return 0;  // none yet (or a folder: write_file says so)
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  return ec ? 0 : bytes;  // an empty file (mktemp's) holds nothing
}

void require_no_earlier_data(const std::string& path, const std::string& option, const std::string& choices) {
  if (const std::uintmax_t bytes = data_bytes(path); bytes > 0)
    throw InputError(option + " " + path + " already holds " + std::to_string(bytes) + " bytes: " + choices);
}

void write_file(const std::string& shown_path, std::string_view text) {
  const auto fail = [&](int error) { return Error("cannot write " + shown_path + ": " + std::strerror(error)); };
  if (const auto fd = inherited_fd(shown_path)) {
    if (const int error = write_all(*fd, text); error != 0) throw fail(error);
    return;
  }
  if (is_special(shown_path)) return write_in_place(shown_path, text);
  const std::string path = through_links(shown_path);
  std::string tmp;
  Fd out = create_temporary(path, tmp);
  if (out.get() < 0) throw fail(errno);
  int error = write_all(out.get(), text);
  if (error == 0 && ::fsync(out.get()) != 0) error = errno;
  const int close_error = out.close();
  if (error == 0) error = close_error;
  if (error == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    throw fail(error);
  }
  sync_folder(path);
}

}  // namespace c3::io
