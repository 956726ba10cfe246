// What the suites' builds have in common: finding an MPI library's compiler wrappers,
// copying sources into a work directory, running one step with its log, explaining a
// failure from that log, and the build report (build.csv) each build leaves.
#pragma once

#include <string>
#include <vector>

#include "launch.hpp"
#include "suites/suite.hpp"

namespace si::harness {

// Copies `from` into `to` (made when missing), replacing only files whose copy is
// older: a rerun copies nothing, and the object files a build left in `to` stay.
void copy_source_tree(const std::string& from, const std::string& to);

// Runs `argv` in `cwd` (environment: sibench's plus `env`) with stdout and stderr
// appended to `log`, after a "$ command" line. True when it exited 0.
bool run_build_step(const std::vector<std::string>& argv, const EnvList& env,
                    const std::string& cwd, const std::string& log);

// Parallel jobs for make: the cores this process may use.
std::string make_jobs();

// The first line of `log` that mentions `name` and looks like a compiler or linker
// error ("error:" in any case, "undefined reference"), trimmed; "" when there is none.
std::string first_error_about(const std::string& log, const std::string& name);

// Why a target did not build: first_error_about(log, name), else the log's last line
// that is not make's own "***" summary, else "did not build".
std::string build_failure(const std::string& log, const std::string& name);

// build.csv of a work directory: target,status,binary,note,log.
void write_build_report(const std::string& path, const std::vector<BuiltTarget>& targets);
std::vector<BuiltTarget> read_build_report(const std::string& path);

// Every target skipped for the same reason (a missing compiler).
std::vector<BuiltTarget> skip_targets(const std::vector<std::string>& targets,
                                      const std::string& reason);

}  // namespace si::harness
