// Third-party benchmark suites (the OSU micro-benchmarks, the Intel MPI Benchmarks,
// the NAS Parallel Benchmarks), built from a source directory the user gives, once per
// MPI library, and run in every configuration like sibench's own benchmarks. Each suite
// is one SuiteDriver: what it builds, how a benchmark is called, what its output says.
// The format of their results is documented in harness/README.md ("Third-party suites").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "results.hpp"

namespace si::harness {

enum class SuiteKind { osu, imb, npb };

// "osu", "imb", "npb"; throws std::invalid_argument listing the valid names.
SuiteKind parse_suite_kind(std::string_view name);
std::string suite_kind_name(SuiteKind kind);
inline constexpr std::string_view kSuiteNames = "osu, imb, npb";

// The compiler wrappers of one MPI library. A wrapper that is not there is "" and
// `*_missing` says what was looked for, so that a build can say why it was skipped.
struct Toolchain {
    Runtime runtime = Runtime::simpi;
    std::string library;  // simpi, mpich, openmpi: the work directory's name
    std::string cc, cxx, fc;
    std::string cc_missing, cxx_missing, fc_missing;
};

// This runtime: <bin_dir>/sicc, sicxx, sifort. MPICH: mpicc.mpich, mpicxx.mpich,
// mpif90.mpich; Open MPI: the .openmpi ones, from PATH.
Toolchain find_toolchain(Runtime runtime, const std::string& bin_dir);

// What one build asks for. `work_dir` belongs to the build: sources are copied or
// configured into it, never written in `source`.
struct BuildRequest {
    std::string source;    // the suite's unpacked sources (read only)
    std::string work_dir;  // <work>/<suite>/<library>
    Toolchain toolchain;
    std::vector<std::string> targets;  // target_of() of every benchmark wanted
    bool check = false;                // IMB: built with -DCHECK (defects columns)
};

// The outcome of one target of a build: built (binary), failed (and why, and the log
// that says more) or skipped (a compiler is missing).
struct BuiltTarget {
    std::string target;
    std::string status;  // built, failed, skipped
    std::string binary;
    std::string note;
    std::string log;
};

// What a run's rows carry besides the suite's numbers.
struct RowContext {
    std::string benchmark;  // as the study names it: osu_latency, PingPong, sp.S
    Config config;
    int ranks = 0;
    std::vector<std::string> args;  // the study's options (OSU: -i, -x set the counts)
    std::string host, commit, date;
};

// The rows a run's output gives, or why the run failed although it exited 0 (NPB's
// verification, no table at all); notes say what else is worth knowing (IMB defects,
// a size that timed out).
struct SuiteOutput {
    std::vector<Row> rows;
    std::string failure;
    std::vector<std::string> notes;
};

SuiteOutput parse_osu_output(const std::string& text, const RowContext& context);
SuiteOutput parse_imb_output(const std::string& text, const RowContext& context);
SuiteOutput parse_npb_output(const std::string& text, const RowContext& context);

// NPB's config/make.def for a library: its Fortran and C wrappers, -O2, and for
// GNU Fortran 10 or later -fallow-argument-mismatch -fallow-invalid-boz (0: not GNU
// Fortran).
std::string npb_make_def(const Toolchain& tools, int gfortran_major);

class SuiteDriver {
  public:
    virtual ~SuiteDriver() = default;

    // "" when a study may name `benchmark`, else why not (NPB wants "sp.S").
    [[nodiscard]] virtual std::string check_benchmark(const std::string& benchmark) const = 0;
    // The build target a benchmark needs at a job size: osu_latency, IMB-MPI1, sp.S.4.
    [[nodiscard]] virtual std::string target_of(const std::string& source,
                                                const std::string& benchmark, int ranks) const = 0;
    // Builds every target it can and says, per target, what happened; a target that
    // fails does not stop the others.
    [[nodiscard]] virtual std::vector<BuiltTarget> build(const BuildRequest& request) const = 0;
    // The program and its options, after the launcher's.
    [[nodiscard]] virtual std::vector<std::string> program(
        const std::string& binary, const std::string& benchmark, int ranks,
        const std::vector<std::string>& args) const = 0;
    [[nodiscard]] virtual SuiteOutput parse(const std::string& output,
                                            const RowContext& context) const = 0;
};

const SuiteDriver& suite_driver(SuiteKind kind);

// The drivers, each defined in its suite's file (osu.cpp, imb.cpp, npb.cpp).
const SuiteDriver& osu_driver();
const SuiteDriver& imb_driver();
const SuiteDriver& npb_driver();

// The suites' rows are told apart from sibench's own by their `suite` column.
bool is_third_party_suite(std::string_view suite);

}  // namespace si::harness
