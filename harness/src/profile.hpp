// Run matrices as data: a profile (TOML) lists studies, each a benchmark with its
// configurations, pair counts, sizes and counts; expand_matrix turns it into the runs.
// The format is documented in harness/README.md ("Profiles").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.hpp"

namespace si::harness {

using EnvList = std::vector<std::pair<std::string, std::string>>;

// A profile that cannot be read or says something invalid; what() names the file and
// the key.
class ProfileError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// What an application study of any program (kind = "app") reads from the
// program's output as its figure of merit: the first capture group of `pattern`
// (ECMAScript) in the last line that matches.
struct MeritSpec {
    std::string pattern;  // empty: the wall time only
    std::string unit;     // shown with the value: "Mop/s", "ns/day", "s"
    bool higher_is_better = true;
};

// One [[study]]: a benchmark over configurations x pair counts.
struct Study {
    std::string name;       // unique in the profile; names logs, raw CSVs and figures
    std::string benchmark;  // binary in <build>/bin (and <name>.mpich, <name>.openmpi)
    // As listed; a simpi-smart template (helpers 0) stands for one per `helpers`.
    std::vector<Config> configs;
    std::vector<int> helpers = {1};
    std::vector<int> pairs = {1};  // ranks = 2 x pairs; pairs span two simulated nodes
    // An application study (apps/nas-sp) runs jobs of these sizes instead of pairs,
    // all ranks on one node, and takes no sizes, iterations or warm-up from [defaults].
    std::vector<int> ranks;
    std::vector<std::uint64_t> sizes;  // --sizes; empty: min/max or the benchmark's own
    std::uint64_t min_size = 0;        // --min-size when non-zero
    std::uint64_t max_size = 0;        // --max-size when non-zero
    int iterations = -1;               // --iterations when >= 0
    int warmup = -1;                   // --warmup when >= 0
    double timeout_s = 600;            // per run
    std::vector<std::string> args;     // appended to the benchmark's options
    EnvList env;                       // added to every run's environment
    // A scaling study: under `sibench sbatch` it runs at every --ranks-per-node; the
    // others run at the first one only.
    bool scaling = false;
    // Largest job the benchmark accepts (pingpong: 2); 0: any. Runs above it are left
    // out of the matrix, here and under sbatch.
    int max_ranks = 0;
    // This runtime's runs record SI_TRACE; each gets a `sibench trace` report.
    bool trace = false;
    // How this runtime's runs start on one machine: "sirun", or "hydra" (MPICH's
    // mpiexec.hydra, which this runtime's PMI-1 client also speaks).
    std::string launcher = "sirun";
    // Every configuration runs this many times, round by round (run ids end in
    // .round<N> when above 1); figures and summary give the median over the rounds and
    // their min..max.
    int rounds = 1;
    // A third-party suite's study (osu, imb, npb; "" for sibench's own benchmarks):
    // its `benchmarks` at each of `ranks`, built from `source` (which --source
    // replaces) once per MPI library. IMB with `check` is built with -DCHECK.
    std::string suite;
    std::vector<std::string> benchmarks;
    std::string source;
    bool check = false;
    // "mpi" (a benchmark or application started by a launcher), "gbench": a
    // Google Benchmark program run once, directly, its JSON turned into rows
    // (gbench.hpp); its options come from `args` only; or "app": any MPI program
    // (`program`, absolute, with `args`) timed from launch to exit in each
    // configuration that can run its build (program_study.hpp).
    std::string kind = "mpi";
    std::string program;
    MeritSpec merit;
};

// [plots]: which study feeds which figure, and the sizes figures and summary pick.
struct PlotSpec {
    std::string overlap = "overlap";
    std::string latency = "latency";
    std::string progression = "progression";
    std::string scalability = "scalability";
    std::string memory = "memory";
    std::string pingpong = "pingpong";
    std::string latency_threads = "latency_threads";
    std::string dtype = "dtype";
    std::vector<std::uint64_t> progression_sizes = {64 << 10, 1 << 20};
    std::vector<std::uint64_t> scalability_sizes = {32 << 10, 256 << 10};
    std::vector<std::uint64_t> summary_sizes = {64 << 10, 256 << 10, 1 << 20};
    // Rows of the ping-pong table (those the study measured, and its largest size).
    std::vector<std::uint64_t> pingpong_sizes = {8, 1 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20};

    // The studies drawn and tabulated like ping-pong (metrics of pingpong_measurements()).
    std::vector<std::string> pingpong_like() const { return {pingpong, latency_threads}; }
};

struct Profile {
    std::string name;
    std::string description;
    std::vector<Study> studies;
    PlotSpec plots;
};

// Parses a profile; `origin` (the file name) prefixes every error.
Profile parse_profile_text(const std::string& text, const std::string& origin);
Profile parse_profile_file(const std::string& path);

// harness/profiles of the source tree sibench was built from.
std::string default_profile_dir();

// "quick" -> <profile_dir>/quick.toml; a path (with '/' or ending in .toml) is taken
// as it is. Throws ProfileError listing the profiles found.
std::string find_profile(std::string_view name_or_path,
                         const std::string& profile_dir = default_profile_dir());

// One benchmark execution.
struct PlannedRun {
    // "<study>.<config>.p<pairs>" (an application study: ".r<ranks>"), and
    // ".round<N>" with rounds: the log's and raw CSV's name
    std::string id;
    std::string study;
    std::string benchmark;
    Config config;
    int pairs = 1;                  // 0 in an application study
    int job_ranks = 0;              // an application study's job size
    std::vector<std::string> args;  // the benchmark's options, without --csv
    EnvList env;                    // the study's environment
    double timeout_s = 600;
    bool scaling = false;
    int max_ranks = 0;
    bool trace = false;
    int round = 0;                   // 1..Study::rounds when the study has several, else 0
    std::string launcher = "sirun";  // Study::launcher
    // A suite's run: Study::suite, source and check; `benchmark` is then one of the
    // suite's (osu_latency, PingPong, sp.S).
    std::string suite;
    std::string suite_source;
    bool suite_check = false;
    std::string kind = "mpi";  // Study::kind
    std::string program;       // Study::program
    MeritSpec merit;           // Study::merit

    [[nodiscard]] int ranks() const { return job_ranks > 0 ? job_ranks : 2 * pairs; }
};

// Which part of the matrix to run: empty lists mean everything.
struct MatrixFilter {
    std::vector<std::string> studies;         // study names
    std::vector<std::string> configs;         // names or prefixes: "simpi-smart" takes every -hN
    std::optional<std::vector<int>> helpers;  // replaces every study's helper list
    std::optional<int> rounds;                // replaces every study's rounds
    // Leave out simpi-smart with more helpers than pairs (see expand_matrix); sbatch
    // turns it off and applies the same rule per ranks-per-node itself.
    bool cap_helpers_at_pairs = true;
};

// Studies in profile order; in each, pair counts (or job sizes) ascending, then
// rounds, then configurations in the order listed (smart templates expanded by
// helper count).
// simpi-smart with more helpers than a node's ranks (pairs, or an application's job
// size) is left out: the runtime caps SI_HELPERS at a node's ranks. Throws ProfileError when the
// filter names a study the profile lacks.
std::vector<PlannedRun> expand_matrix(const Profile& profile, const MatrixFilter& filter = {});

// The benchmark options a study implies: --sizes or --min-size/--max-size,
// --iterations, --warmup, then the study's args.
std::vector<std::string> benchmark_args(const Study& study);

}  // namespace si::harness
