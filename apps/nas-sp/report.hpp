// Verification of a finished run against the reference norms, and its report: the
// NPB-style text on stdout and an optional tidy CSV for the benchmark harness.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/context.hpp"
#include "problem.hpp"

namespace si::sp {

struct RunResult {
    const ProblemClass* problem = nullptr;
    int ranks = 0;
    int iterations = 0;
    double dt = 0;
    double seconds = 0;  // slowest rank
    Norms residual{};    // xcr
    Norms error{};       // xce
};

enum class Verdict { kSuccessful, kUnsuccessful, kNotPerformed };

struct Verification {
    Verdict verdict = Verdict::kNotPerformed;
    std::string reason;           // why it was not performed
    Norms residual_difference{};  // relative, |computed - reference| / |reference|
    Norms error_difference{};
    bool dt_matches = false;
};

inline constexpr double kVerificationEpsilon = 1.0e-8;

Verification verify(const RunResult& run);
void print_report(const RunResult& run, const Verification& v);
// CPU seconds over the timed steps, one value per rank: the rank's process (its
// progress threads included) and the processes it forked (SmartInterrupts' helpers,
// forked by one rank per node; -1 where /proc does not say).
struct CpuTimes {
    std::vector<double> rank;
    std::vector<double> helpers;
};

// Writes `path` in the benchmarks' tidy CSV format (microbench/README.md), as
// suite "nas", benchmark "sp.<class>": time_{min,median,mean,max} over the ranks'
// timed loops (time_max is NPB's time), mops_* (NPB's Mop/s, one value), cpu_time_*
// and helper_cpu_time_* over the ranks (helper_cpu_time_mean x ranks is the helpers'
// total), preceded by the run's context. Throws std::runtime_error when the file
// cannot be written.
void write_csv(const std::string& path, const RunResult& run, const si::bench::Context& context,
               std::span<const double> rank_seconds, const CpuTimes& cpu);

}  // namespace si::sp
