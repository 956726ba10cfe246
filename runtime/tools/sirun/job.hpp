// One sirun job: starts the ranks, serves their PMI-1 requests, watches them,
// and ends all of them together when one fails, on a timeout, or on a signal.
//
// Rules the tests hold the job to:
//   - every rank runs in its own process group, which is what gets signalled,
//     so processes a rank starts (helpers) end with it;
//   - the first failure decides the exit status and is reported on one line;
//     the others get SIGTERM, and SIGKILL 0.5 s later;
//   - sirun is a child subreaper, so it also waits for orphaned descendants
//     and returns only when they are gone (or, at worst, SIGKILLed);
//   - shared-memory objects named /dev/shm/si-<kvsname>-* are removed at the end.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace si::sirun {

struct JobOptions {
    int ranks = 0;
    int helpers = -1;              // -1: leave SI_HELPERS alone
    int ghosts = -1;               // -1: leave SI_GHOSTS alone
    double timeout_seconds = 0;    // 0: no limit
    std::vector<std::string> env;  // K=V for the ranks, applied last
    std::string program_path;      // resolved, see resolve_program()
    std::vector<std::string> argv; // argv[0] as the user wrote it
    // Per rank, the CPUs it is bound to before exec (--bind core); an empty
    // list, or no entry at all, leaves that rank's affinity as sirun's.
    std::vector<std::vector<int>> rank_cpus;
};

struct JobResult {
    int exit_code = 0;
    int signal = 0;  // nonzero: sirun was told to stop by this signal and should die of it
};

// Where execve() will find name (a path, or a name searched in PATH).
// Throws si::Error saying whether it is missing, a directory or not executable.
std::string resolve_program(const std::string& name);

// Runs the job to its end. Throws si::Error only when the job cannot be
// started at all (before any rank exists).
JobResult run_job(const JobOptions& options);

// Removes every /dev/shm/si-<job_id>-* object; returns how many.
int remove_job_segments(std::string_view job_id);

}  // namespace si::sirun
