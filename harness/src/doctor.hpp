// sibench doctor: the preflight a user runs first on a login or compute node.
// What the runtime would find (si_probe: CPUs and placement, the locked-memory
// limit, RDMA ports and the GID it would use, the wake-up module), what the
// node offers around it (process managers, baseline MPI libraries, the CPU
// frequency governor, SMT), and a two-rank job over shared memory and, where a
// device is up, over verbs. Each check says fine, worth knowing, or blocking,
// and what to do.
#pragma once

#include <string>
#include <vector>

namespace si::harness {

struct DoctorCheck {
    enum class Status { ok, note, warn, fail };
    std::string name;
    Status status = Status::ok;
    std::string detail;
    std::string fix;  // empty when nothing is to be done
};

struct DoctorOptions {
    std::string bin_dir;     // <build>/bin: si_probe, sirun, the smoke programs
    bool need_verbs = false; // a missing or unusable RDMA port blocks (multi-node runs)
    bool need_kmod = false;  // a missing si_wake module blocks (SI_WAKE=kmod)
    bool jobs = true;        // run the two-rank smoke jobs
    int ranks = 0;           // ranks per node to place (0: one per core)
    std::string scratch;     // where logs go (a temporary folder when empty)
};

// The checks read from si_probe's TOML (separate so that tests can feed it).
std::vector<DoctorCheck> checks_from_probe(const std::string& probe_toml_path,
                                           const DoctorOptions& options);

std::vector<DoctorCheck> run_doctor(const DoctorOptions& options);

// A table: check, status, what was found, what to do.
std::string format_doctor(const std::vector<DoctorCheck>& checks);

// 1 when any check blocks a run, else 0.
int doctor_exit_code(const std::vector<DoctorCheck>& checks);

}  // namespace si::harness
