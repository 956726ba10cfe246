// Slurm sweeps for clusters: one job script per node count that runs a profile's
// studies with srun --mpi=pmi2 and SI_TRANSPORT=auto, plus manifest.csv (the planned
// runs) and a README. Needs no Slurm to generate; `sibench plot DIR` collects.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profile.hpp"
#include "results.hpp"

namespace si::harness {

struct SbatchOptions {
    std::vector<int> nodes;                   // one job script per count
    std::vector<int> ranks_per_node;          // scaling studies: all; others: the first
    std::optional<std::vector<int>> helpers;  // replaces the profile's helper counts
    std::string partition;
    std::string time;       // HH:MM:SS (or D-HH:MM:SS)
    std::string account;    // optional
    std::string build_dir;  // absolute: where bin/ is on the cluster
    std::string out_dir;    // absolute: shared file system
    std::string sibench;    // how the README calls sibench
    std::string commit;
    MatrixFilter filter;
    // Leave out runs whose binary is missing from build_dir/bin (set when that
    // directory exists where sibench runs).
    bool check_binaries = false;
};

struct SbatchPlan {
    std::vector<std::pair<std::string, std::string>> files;  // name in out_dir -> content
    std::vector<RunRecord> manifest;
    std::vector<std::string> left_out;  // runs not planned, and why
};

// Throws std::invalid_argument naming the option when one is invalid.
SbatchPlan plan_sbatch(const Profile& profile, const SbatchOptions& options);

// Writes the plan into options.out_dir (scripts executable, logs/ raw/ status/ made),
// plus manifest.csv and a copy of the profile.
void write_sbatch(const SbatchPlan& plan, const SbatchOptions& options,
                  const std::string& profile_path);

// Whether a run directory came from `sibench sbatch`, and folding its status/<id>
// files ("exit_status start end", written by the job scripts) into the manifest.
bool is_sbatch_dir(const std::string& dir);
std::vector<RunRecord> read_sbatch_status(const std::string& dir);

}  // namespace si::harness
