// Verification of a finished run against the reference norms, and its report: the
// NPB-style text on stdout and an optional one-row CSV for the benchmark harness.
#pragma once

#include <string>

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
// Writes `path` with a header and one row: class, ranks, iterations, time_s, mops,
// verified (yes, no or n/a). Throws std::runtime_error when the file cannot be written.
void write_csv(const std::string& path, const RunResult& run, const Verification& v);

}  // namespace si::sp
