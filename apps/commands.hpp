// apps/commands.hpp: the registry of c3advisor's subcommands. Each subcommand
// lives in its own file and has one setup function that adds it to the app and
// returns what runs it. To add one (calibrate, validate, ...): write
// apps/NAME.cpp defining add_NAME, declare it here, list it in kCommands.
#pragma once

#include <CLI/CLI.hpp>

#include <array>
#include <functional>
#include <string>

namespace c3::apps {

/// Runs a parsed subcommand and returns everything it prints on stdout; main
/// writes it only once the whole command succeeded. Throws c3::Error on failure.
using Runner = std::function<std::string()>;

/// Called after a Runner returned, with whether its output reached stdout: a command
/// that keeps work in a temporary file (validate, live) removes it only once written.
using Finisher = std::function<void(bool output_written)>;

struct Command {
  CLI::App* subcommand = nullptr;  ///< owned by the app
  Runner run;
  Finisher finish = nullptr;  ///< optional
};

/// Adds one subcommand to `app`.
using CommandSetup = Command (*)(CLI::App& app);

Command add_advise(CLI::App& app);
Command add_sweep(CLI::App& app);
Command add_plan(CLI::App& app);
Command add_profiles(CLI::App& app);
Command add_calibrate(CLI::App& app);
Command add_measure(CLI::App& app);
Command add_validate(CLI::App& app);
Command add_report(CLI::App& app);
Command add_bench_collective(CLI::App& app);
Command add_scenarios(CLI::App& app);

/// Every subcommand, in the order --help lists them.
inline constexpr std::array<CommandSetup, 10> kCommands{
    add_advise,  add_sweep,    add_plan,   add_profiles,          add_calibrate,
    add_measure, add_validate, add_report, add_bench_collective, add_scenarios};

/// The profile used when --profile is not given.
inline constexpr const char* kDefaultProfile = "mi300x";

}  // namespace c3::apps
