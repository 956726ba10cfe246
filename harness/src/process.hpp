// Running one command the way a sweep needs it: output into a log file, its own
// process group (so a timeout or Ctrl-C ends launcher and ranks together), a time
// limit, and the elapsed time.
#pragma once

#include <string>
#include <vector>

#include "launch.hpp"

namespace si::harness {

struct ProcessResult {
    int exit_status = -1;      // the exit code, 128 + signal when killed by one, -1: not started
    bool timed_out = false;    // sibench ended it at the time limit
    bool interrupted = false;  // sibench ended it because the user pressed Ctrl-C
    double seconds = 0;
    std::string error;  // why it could not start
};

// Runs `command` with stdout and stderr appended to `log_path`, in `cwd` when not
// empty. At `timeout_s` (0: none) the process group gets SIGTERM, 5 s later SIGKILL.
ProcessResult run_process(const Command& command, const std::string& log_path, double timeout_s,
                          const std::string& cwd = "");

// The same with stdout alone into `stdout_path` (a program whose output is data:
// HTML, TOML), stderr appended to `log_path`.
ProcessResult run_process_to(const Command& command, const std::string& stdout_path,
                             const std::string& log_path, double timeout_s,
                             const std::string& cwd = "");

// Installs a SIGINT/SIGTERM handler that makes run_process end its child and return
// with `interrupted`, and interrupted_by_user() true from then on.
void install_interrupt_handler();
bool interrupted_by_user();

// `name` looked up in PATH (or as a path when it holds a '/'); "" when not found.
std::string find_program(const std::string& name);

// The first `max_lines` lines of a program's stdout and stderr ("" when it cannot run):
// versions of git, MPICH, gnuplot for machine.txt.
std::string capture_output(const std::vector<std::string>& argv, int max_lines = 1);

// The last `lines` lines of a file, to show why a run failed.
std::string tail_file(const std::string& path, int lines);

}  // namespace si::harness
