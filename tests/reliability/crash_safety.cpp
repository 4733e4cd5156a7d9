// tests/reliability/crash_safety.cpp: c3advisor's output files survive a killed or
// failing process (docs/cli.md, "Output files").
//
//   c3_crash_safety kill-resume C3ADVISOR WORKDIR KILLS SEED -- MEASURE_ARGS...
//     Runs `c3advisor MEASURE_ARGS --out REF` once uninterrupted (duration D), then KILLS
//     times: starts `MEASURE_ARGS --out OUT` afresh, SIGKILLs it after a delay drawn from a
//     seeded RNG over [0, D] (every other time a `--resume` run is killed as well), and
//     checks after each kill that OUT is absent or a valid raw-measurements file (the
//     library's reader) with no duplicate key and only keys of REF; then `--resume` must
//     complete it: every key of REF exactly once, and every record the killed runs left
//     unchanged.
//   c3_crash_safety unwritable C3ADVISOR WORKDIR -- MEASURE_ARGS...
//     A half-measured OUT in a folder the process cannot write: `--resume` fails (exit
//     code != 0) with an error naming OUT, and OUT is byte for byte what it was.
//   c3_crash_safety full-stdout C3ADVISOR WORKDIR -- VALIDATE_ARGS...
//     A live `validate` without --out (its raw measurements in a temporary file under
//     TMPDIR=WORKDIR/tmp) whose report cannot be written (stdout on /dev/full): it fails,
//     names the temporary file on stderr, and the file holds every measurement; the same
//     command with a writable stdout succeeds and leaves no temporary file. Exit code 77
//     (skipped) where there is no /dev/full.
// Exit code 0 when every check passes; the first failure is printed and exits 1.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "c3/errors.hpp"
#include "io/query.hpp"
#include "io/raw_measurements.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "FAIL: " << message << std::endl;
  std::exit(1);
}

struct Outcome {
  bool killed = false;  ///< SIGKILLed by us before it ended
  int exit_code = -1;   ///< when it ended by itself
  double seconds = 0;
  pid_t pid = 0;
};

/// NULL-terminated char* views of `words`, for exec and posix_spawn (`words` must outlive it).
std::vector<char*> c_strings(std::vector<std::string>& words) {
  std::vector<char*> out;
  for (std::string& w : words) out.push_back(w.data());
  out.push_back(nullptr);
  return out;
}

/// waitpid until it returns: the child's status.
int wait_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return status;
}

/// Runs `exe args` with stdout and stderr to `log`; SIGKILLs it after `kill_after` seconds
/// when given (< 0: waits for it). `as_nobody`: drops root first (fork instead of spawn).
Outcome run(const std::string& exe, const std::vector<std::string>& args, const std::string& log,
            double kill_after, bool as_nobody = false) {
  std::vector<std::string> all{exe};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv = c_strings(all);

  const auto start = Clock::now();
  pid_t pid = 0;
  if (as_nobody) {
    pid = fork();
    if (pid < 0) fail("fork failed");
    if (pid == 0) {
      FILE* out = std::freopen(log.c_str(), "w", stdout);
      if (out == nullptr || dup2(fileno(stdout), 2) < 0) _exit(120);
      if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(121);
      execv(exe.c_str(), argv.data());
      _exit(122);
    }
  } else {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) fail("cannot start " + exe);
  }
  Outcome o;
  o.pid = pid;
  if (kill_after >= 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(kill_after));
    kill(pid, SIGKILL);  // a child that already ended is a zombie until waited: harmless
  }
  const int status = wait_status(pid);
  o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFSIGNALED(status)) {
    if (WTERMSIG(status) != SIGKILL) fail(exe + " died of signal " + std::to_string(WTERMSIG(status)));
    o.killed = true;
  } else {
    o.exit_code = WEXITSTATUS(status);
  }
  return o;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// One record as the file spells it (to compare records exactly).
std::string record_text(const c3::validator::Record& r) {
  c3::validator::RawMeasurements one;
  one.records.push_back(r);
  return c3::validator::raw_measurements_json(one);
}

/// key -> record text of a valid file; fails on an unreadable file or a duplicate key.
std::map<std::string, std::string> load_records(const std::string& path, const std::string& when) {
  c3::validator::RawMeasurements raw;
  try {
    raw = c3::validator::load_raw_measurements(path);
  } catch (const c3::Error& e) {
    fail(when + ": " + path + " is not a valid raw-measurements file: " + e.what());
  }
  std::map<std::string, std::string> records;
  for (const c3::validator::Record& r : raw.records) {
    const std::string key = c3::validator::measurement_key(r.query);
    if (!records.emplace(key, record_text(r)).second) fail(when + ": " + path + " has key " + key + " twice");
  }
  return records;
}

/// Every record of `before` is in `after`, unchanged.
void check_kept(const std::map<std::string, std::string>& before, const std::map<std::string, std::string>& after,
                const std::string& when) {
  for (const auto& [key, text] : before) {
    const auto it = after.find(key);
    if (it == after.end()) fail(when + ": the record " + key + " of the killed run is gone");
    if (it->second != text) fail(when + ": the record " + key + " of the killed run changed:\n" + text + "now:\n" + it->second);
  }
}

void check_subset(const std::map<std::string, std::string>& part, const std::map<std::string, std::string>& ref,
                  const std::string& when) {
  for (const auto& entry : part)
    if (!ref.contains(entry.first)) fail(when + ": key " + entry.first + " is not one of the uninterrupted run's");
}

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

int kill_resume(const std::string& exe, const fs::path& dir, int kills, unsigned seed,
                const std::vector<std::string>& measure) {
  const std::string ref = (dir / "reference.json").string();
  const std::string out = (dir / "killed.json").string();
  const std::string log = (dir / "run.log").string();

  const Outcome full = run(exe, with(measure, {"--out", ref}), log, -1);
  if (full.exit_code != 0) fail("the uninterrupted run failed:\n" + read_text(log));
  const auto reference = load_records(ref, "uninterrupted run");
  const double duration = full.seconds;
  std::cout << "uninterrupted run: " << reference.size() << " records in " << duration << " s; seed " << seed
            << std::endl;

  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> delay(0.0, duration);
  int interrupted = 0;  // kills that left a partial file
  for (int i = 0; i < kills; ++i) {
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
      if (e.path().filename().string().starts_with("killed.json")) fs::remove(e.path());
    std::map<std::string, std::string> kept;  // what the killed runs left
    // Every other round a --resume run is killed too, before the one that completes.
    const int rounds = i % 2 == 0 ? 1 : 2;
    for (int k = 0; k < rounds; ++k) {
      const double after = delay(rng);
      const std::string when = "round " + std::to_string(i + 1) + ", kill " + std::to_string(k + 1) + " at " +
                               std::to_string(after) + " s";
      const std::vector<std::string> args = k == 0 ? with(measure, {"--out", out}) : with(measure, {"--out", out, "--resume"});
      const Outcome o = run(exe, args, log, after);
      if (!o.killed && o.exit_code != 0) fail(when + ": the run failed:\n" + read_text(log));
      std::string state = "absent";
      if (fs::exists(out)) {
        const auto now = load_records(out, when);
        check_subset(now, reference, when);
        check_kept(kept, now, when);
        kept = now;
        state = std::to_string(now.size()) + "/" + std::to_string(reference.size()) + " records";
        if (o.killed && now.size() < reference.size()) ++interrupted;
      }
      std::cout << when << ": " << (o.killed ? "killed" : "had ended") << ", file " << state << std::endl;
    }
    const std::string when = "round " + std::to_string(i + 1) + ", --resume";
    const Outcome done = run(exe, with(measure, {"--out", out, "--resume"}), log, -1);
    if (done.exit_code != 0) fail(when + ": failed:\n" + read_text(log));
    const auto final_records = load_records(out, when);
    check_kept(kept, final_records, when);
    for (const auto& entry : reference)
      if (!final_records.contains(entry.first)) fail(when + ": key " + entry.first + " is missing");
    check_subset(final_records, reference, when);
    const std::string own_tmp = "killed.json.tmp." + std::to_string(done.pid) + ".";
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
      if (e.path().filename().string().starts_with(own_tmp)) fail(when + ": left " + e.path().string());
  }
  if (interrupted == 0) fail("no kill interrupted a run: the run is too fast for this test");
  std::cout << "ok: " << interrupted << " kills left a partial file; every --resume completed it" << std::endl;
  return 0;
}

int unwritable(const std::string& exe, const fs::path& dir, const std::vector<std::string>& measure) {
  const fs::path ro = dir / "read-only";
  const std::string out = (ro / "raw.json").string();
  const std::string log = (dir / "unwritable.log").string();
  fs::create_directories(ro);
  // A half-measured file: the first half of an uninterrupted run's records.
  const std::string full = (dir / "full.json").string();
  if (run(exe, with(measure, {"--out", full}), log, -1).exit_code != 0) fail("the run failed:\n" + read_text(log));
  c3::validator::RawMeasurements raw = c3::validator::load_raw_measurements(full);
  raw.records.resize(raw.records.size() / 2);
  c3::validator::save_raw_measurements(out, raw);
  const std::string before = read_text(out);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec);
  const Outcome o = run(exe, with(measure, {"--out", out, "--resume"}), log, -1, /*as_nobody=*/true);
  fs::permissions(ro, fs::perms::owner_all, fs::perm_options::add);
  const std::string message = read_text(log);
  if (o.exit_code == 121) fail("cannot drop root to test a read-only folder");
  if (o.exit_code == 0) fail("writing into a read-only folder succeeded:\n" + message);
  if (message.find("c3advisor: error: cannot write " + out + ": ") == std::string::npos)
    fail("the error does not name " + out + ":\n" + message);
  if (read_text(out) != before) fail(out + " changed");
  for (const fs::directory_entry& e : fs::directory_iterator(ro))
    if (e.path() != fs::path(out)) fail("left " + e.path().string());
  std::cout << "ok: exit code " << o.exit_code << ", " << message.substr(message.rfind("c3advisor: error:"))
            << out << " unchanged" << std::endl;
  return 0;
}

/// Runs `exe args` with stdout on `out_path`, stderr to `log` and TMPDIR=`tmp`; its exit code.
int run_with_stdout(const std::string& exe, const std::vector<std::string>& args, const std::string& out_path,
                    const std::string& log, const std::string& tmp) {
  std::vector<std::string> all{exe};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv = c_strings(all);
  std::vector<std::string> env_text{"TMPDIR=" + tmp};
  for (char** e = environ; *e != nullptr; ++e)
    if (!std::string(*e).starts_with("TMPDIR=")) env_text.emplace_back(*e);
  std::vector<char*> env = c_strings(env_text);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) fail("cannot start " + exe);
  const int status = wait_status(pid);
  if (!WIFEXITED(status)) fail(exe + " did not exit normally");
  return WEXITSTATUS(status);
}

int full_stdout(const std::string& exe, const fs::path& dir, const std::vector<std::string>& validate) {
  if (!fs::exists("/dev/full")) {
    std::cout << "skipped: no /dev/full" << std::endl;
    return 77;
  }
  const fs::path tmp = dir / "tmp";
  fs::create_directories(tmp);
  const std::string log = (dir / "full-stdout.log").string();
  const int code = run_with_stdout(exe, validate, "/dev/full", log, tmp.string());
  const std::string message = read_text(log);
  if (code == 0) fail("a report written to /dev/full succeeded:\n" + message);
  if (message.find("c3advisor: error: cannot write the output") == std::string::npos)
    fail("no error about the output:\n" + message);
  const std::string kept = "the raw measurements so far are kept in ";
  const auto at = message.find(kept);
  if (at == std::string::npos) fail("the kept file is not named:\n" + message);
  const std::string path = message.substr(at + kept.size(), message.find('\n', at) - at - kept.size());
  if (!fs::exists(path)) fail(path + " was named but is gone");
  if (fs::path(path).parent_path() != tmp) fail(path + " is not under " + tmp.string());
  const std::size_t records = c3::validator::load_raw_measurements(path).records.size();
  if (records == 0) fail(path + " holds no measurement");
  // Written: the temporary file is removed.
  const std::string report = (dir / "report.txt").string();
  const fs::path again = dir / "tmp-again";
  fs::create_directories(again);
  if (run_with_stdout(exe, validate, report, log, again.string()) != 0)
    fail("the same validate failed:\n" + read_text(log));
  if (read_text(report).empty()) fail("the same validate printed nothing");
  if (!fs::is_empty(again)) fail("a written report left its temporary file in " + again.string());
  std::cout << "ok: exit code " << code << ", " << records << " measurements kept in " << path
            << "; written, no file left" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const auto separator = std::find(args.begin(), args.end(), "--");
  if (args.size() < 3 || separator == args.end()) {
    std::cerr << "usage: c3_crash_safety kill-resume C3ADVISOR WORKDIR KILLS SEED -- MEASURE_ARGS...\n"
                 "       c3_crash_safety unwritable C3ADVISOR WORKDIR -- MEASURE_ARGS...\n"
                 "       c3_crash_safety full-stdout C3ADVISOR WORKDIR -- VALIDATE_ARGS...\n";
    return 2;
  }
  const std::vector<std::string> measure(separator + 1, args.end());
  const std::string exe = fs::absolute(args[1]).string();
  const fs::path dir = fs::absolute(args[2]);
  if (fs::exists(dir))  // a read-only folder a failed run left
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
      if (e.is_directory()) fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add);
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (args[0] == "kill-resume" && separator - args.begin() == 5) {
    const char* seed = std::getenv("C3_KILL_SEED");  // to replay another sequence of delays
    return kill_resume(exe, dir, std::stoi(args[3]),
                       seed != nullptr ? static_cast<unsigned>(std::stoul(seed)) : static_cast<unsigned>(std::stoul(args[4])),
                       measure);
  }
  if (args[0] == "unwritable" && separator - args.begin() == 3) return unwritable(exe, dir, measure);
  if (args[0] == "full-stdout" && separator - args.begin() == 3) return full_stdout(exe, dir, measure);
  std::cerr << "c3_crash_safety: bad arguments\n";
  return 2;
}
