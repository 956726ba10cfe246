// Starting one rank: its environment, its process group, its PMI socket.
#pragma once

#include <sys/types.h>
#include <signal.h>

#include <string>
#include <vector>

#include "sirun/job.hpp"

namespace si::sirun {

// The environment every rank shares: sirun's own, without the variables of an
// outer launcher (so a sirun started inside a Hydra job does not hand its
// ranks Hydra's PMI_FD), then SI_HELPERS, then --env.
std::vector<std::string> shared_environment(const JobOptions& options);

struct SpawnRequest {
    const JobOptions* options;
    const std::vector<std::string>* environment;  // from shared_environment()
    int rank;
    int stdin_fd;         // becomes the rank's stdin
    sigset_t child_mask;  // the mask to restore before exec
};

struct SpawnedRank {
    pid_t pid = -1;
    int fd = -1;  // sirun's end of the PMI socket, nonblocking, close-on-exec
    const char* failed_call = nullptr;
};

// Forks and execs one rank. Returns pid -1, the call that failed and errno
// set when the socket or the fork failed; a failing exec shows up as the rank
// exiting with 127.
SpawnedRank spawn_rank(const SpawnRequest& request);

}  // namespace si::sirun
