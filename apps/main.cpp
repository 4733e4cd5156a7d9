// apps/main.cpp: c3advisor's entry point. Parses the command line, runs the chosen
// subcommand and maps errors to exit codes: 0 success, 2 bad input (command line,
// files, values), 1 any other failure. Output is written whole or not at all.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <vector>

#include "apps/commands.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/validator.hpp"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

int fail(const std::string& message, int code) {
  std::cerr << "c3advisor: error: " << message << "\n";
  return code;
}

int write_stdout(const std::string& text) {
  std::cout << text << std::flush;
  return std::cout ? 0 : fail("cannot write the output", kExitFailure);
}

int run(int argc, char** argv) {
  c3::register_builtin_backends();
  CLI::App app{"c3advisor: advice for running a GEMM and a collective concurrently on GPUs.",
               "c3advisor"};
  app.set_version_flag("--version", std::string(c3::io::version()));
  app.footer("Run 'c3advisor SUBCOMMAND --help' for a subcommand's options and examples.");
  std::vector<c3::apps::Command> commands;
  for (const c3::apps::CommandSetup setup : c3::apps::kCommands) commands.push_back(setup(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // one line, as every other error: CLI11's message and where the options are listed
    return fail(std::string(e.what()) + " (see c3advisor --help, or c3advisor SUBCOMMAND --help)", kExitBadInput);
  }
  std::string names;
  for (const c3::apps::Command& command : commands) {
    if (command.subcommand->parsed()) {
      const int code = write_stdout(command.run());
      if (command.finish) command.finish(code == 0);
      return code;
    }
    names += (names.empty() ? "" : ", ") + command.subcommand->get_name();
  }
  return fail("a subcommand is required (" + names + "); see c3advisor --help", kExitBadInput);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const c3::InputError& e) {  // ConfigError is an InputError
    return fail(e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    return fail(e.what(), kExitFailure);
  } catch (...) {
    return fail("unknown failure", kExitFailure);
  }
}
