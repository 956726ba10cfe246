// How a planned run becomes a command line: sirun for this runtime, mpiexec.hydra
// for MPICH, mpirun for Open MPI on one host; srun on a Slurm cluster.
#pragma once

#include <string>
#include <vector>

#include "profile.hpp"

namespace si::harness {

struct Command {
    std::vector<std::string> argv;
    EnvList env;  // set on top of sibench's own environment

    // "K=V ... argv..." with shell quoting: what runs.csv records and a user can paste.
    [[nodiscard]] std::string display() const;
};

// Where the launchers and binaries are on this host. Empty launcher paths mean not
// found; find_launch_site fills them from PATH.
struct LaunchSite {
    std::string bin_dir;  // <build>/bin
    std::string hydra;    // mpiexec.hydra
    std::string openmpi;  // mpirun.openmpi
};

LaunchSite find_launch_site(const std::string& build_dir);

// This runtime's library under MPICH's names: <bin>/../lib/mpich-abi.
std::string mpich_abi_dir(const std::string& bin_dir);

// The benchmark binary a run needs: <bin>/<benchmark>, .mpich (also for a
// configuration @mpich-abi) or .openmpi; an application study's program itself.
std::string benchmark_binary(const PlannedRun& run, const std::string& bin_dir);

// Why the run cannot start here (binary not built, launcher missing), or "".
std::string missing_reason(const PlannedRun& run, const LaunchSite& site);

// The launcher part of that: sirun not built, mpiexec.hydra or mpirun.openmpi not
// installed; "" when the run's launcher is there.
std::string launcher_missing(const PlannedRun& run, const LaunchSite& site);

// The command for one host. simpi: SI_PROGRESS, SI_HELPERS (smart) and SI_NODE_SIZE =
// pairs, so that rank i and its partner i + pairs sit on two simulated nodes; sirun's
// own --timeout ends a hung job a little before sibench would (launcher "hydra":
// mpiexec.hydra instead, without that timeout); @mpich-abi: sirun --abi mpich (or
// mpich_abi_dir first in LD_LIBRARY_PATH). MPICH: mpiexec.hydra,
// async adding MPIR_CVAR_ASYNC_PROGRESS=1 and SI_BENCH_THREAD_MULTIPLE=1 (MPICH
// starts its progress thread only at MPI_THREAD_MULTIPLE).
Command local_command(const PlannedRun& run, const LaunchSite& site, const std::string& csv_path);

// The -async configurations of MPICH and Open MPI start their progress thread only
// at MPI_THREAD_MULTIPLE: the setting that makes the library grant it to a program
// that asks for less (a suite's or any program's MPI_Init).
void add_thread_level_env(const Config& config, EnvList& env);

// The same launcher and environment around another program (a suite's benchmark and
// its options).
Command launch_command(const PlannedRun& run, const LaunchSite& site,
                       const std::vector<std::string>& program);

// The same run under Slurm: `ranks` ranks on `nodes` nodes, at most `ranks_per_node`
// on each (srun --mpi=pmi2 for simpi and MPICH, pmix for Open MPI). No SI_NODE_SIZE:
// nodes are real.
Command srun_command(const PlannedRun& run, const std::string& bin_dir, int nodes,
                     int ranks_per_node, int ranks, const std::string& csv_path);

}  // namespace si::harness
