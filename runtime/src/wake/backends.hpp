// The wake-up backends, chosen with SI_WAKE:
//   futex  FUTEX_WAIT/FUTEX_WAKE on the word itself, which lives in the node
//          region shared by ranks and helpers; needs no privileges.
//   kmod   the si_wake kernel module (kmod/): the sleeper waits in its own
//          slot of /dev/si_wake, and wakers name the slot by the id the
//          sleeper published in the node region (Backend::attach_*).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/config.hpp"
#include "wake/wake_word.hpp"

namespace si::wake {

// Why `choice` cannot work on this machine (kmod: no usable /dev/si_wake), or
// nothing. The runtime asks once at MPI_Init and falls back to futex, so that
// every process of a node, helpers included, uses the same backend.
std::optional<std::string> backend_unavailable(config::WakeBackend choice);

// Throws si::Error if `choice` is unavailable. `job_token`: kmod joins the
// job's token (node::Region::wake_token), so that only the job's processes
// wake each other; 0 joins none.
std::unique_ptr<Backend> make_backend(config::WakeBackend choice, std::uint64_t job_token = 0);

}  // namespace si::wake
