#include "report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "common/report.hpp"

namespace si::sp {
namespace {

double relative_difference(double computed, double reference) {
    return std::fabs((computed - reference) / reference);
}

// NaN never passes: the comparison is written so that it fails for NaN.
bool within_epsilon(double difference) {
    return difference <= kVerificationEpsilon;
}

void print_norm_table(const char* title, const Norms& computed, const Norms* reference,
                      const Norms& difference) {
    fmt::print(" Comparison of RMS-norms of {}\n", title);
    for (int m = 0; m < kComponents; ++m) {
        if (reference != nullptr)
            fmt::print("  {:2d} {:22.13E} {:22.13E} {:22.13E}\n", m + 1, computed[m],
                       (*reference)[m], difference[m]);
        else
            fmt::print("  {:2d} {:22.13E}\n", m + 1, computed[m]);
    }
}

const char* verdict_text(Verdict v) {
    switch (v) {
        case Verdict::kSuccessful:
            return "SUCCESSFUL";
        case Verdict::kUnsuccessful:
            return "UNSUCCESSFUL";
        default:
            return "NOT PERFORMED";
    }
}

}  // namespace

Verification verify(const RunResult& run) {
    Verification v;
    const ProblemClass& p = *run.problem;
    if (!p.reference) {
        v.reason = fmt::format("no reference values for class {}", p.name);
        return v;
    }
    if (run.iterations != p.iterations) {
        v.reason = fmt::format("--iterations {} differs from class {}'s {}", run.iterations, p.name,
                               p.iterations);
        return v;
    }
    const ReferenceNorms& ref = *p.reference;
    v.dt_matches = std::fabs(run.dt - ref.dt) <= kVerificationEpsilon;
    bool ok = v.dt_matches;
    for (int m = 0; m < kComponents; ++m) {
        v.residual_difference[m] = relative_difference(run.residual[m], ref.residual[m]);
        v.error_difference[m] = relative_difference(run.error[m], ref.error[m]);
        ok =
            ok && within_epsilon(v.residual_difference[m]) && within_epsilon(v.error_difference[m]);
    }
    v.verdict = ok ? Verdict::kSuccessful : Verdict::kUnsuccessful;
    return v;
}

void print_report(const RunResult& run, const Verification& v) {
    const ProblemClass& p = *run.problem;
    const double mops = mops_rate(p.grid, run.iterations, run.seconds);
    const int nc = static_cast<int>(std::lround(std::sqrt(run.ranks)));
    fmt::print("\n SP Benchmark Completed.\n");
    fmt::print(" Class           = {:>24}\n", p.name);
    fmt::print(" Size            = {:>24}\n", fmt::format("{0}x{0}x{0}", p.grid));
    fmt::print(" Iterations      = {:>24}\n", run.iterations);
    fmt::print(" Time in seconds = {:>24.2f}\n", run.seconds);
    fmt::print(" Total processes = {:>24}\n", run.ranks);
    fmt::print(" Cells per rank  = {:>24}\n", nc);
    fmt::print(" Mop/s total     = {:>24.2f}\n", mops);
    fmt::print(" Mop/s/process   = {:>24.2f}\n", mops / run.ranks);
    fmt::print(" Operation type  = {:>24}\n", "floating point");
    fmt::print(" Verification    = {:>24}\n\n", verdict_text(v.verdict));

    if (v.verdict == Verdict::kNotPerformed) {
        fmt::print(" Verification not performed: {}\n", v.reason);
        print_norm_table("residual", run.residual, nullptr, v.residual_difference);
        print_norm_table("solution error", run.error, nullptr, v.error_difference);
        return;
    }
    const ReferenceNorms& ref = *p.reference;
    fmt::print(" Verification being performed for class {}\n", p.name);
    fmt::print(" accuracy setting for epsilon = {:.13E}\n", kVerificationEpsilon);
    if (!v.dt_matches) fmt::print(" DT does not match the reference value {:.13E}\n", ref.dt);
    print_norm_table("residual", run.residual, &ref.residual, v.residual_difference);
    print_norm_table("solution error", run.error, &ref.error, v.error_difference);
    fmt::print(" Verification = {}\n", verdict_text(v.verdict));
}

void write_csv(const std::string& path, const RunResult& run, const si::bench::Context& context,
               std::span<const double> rank_seconds, const CpuTimes& cpu) {
    using si::bench::per_rank;
    // One timed loop of run.iterations steps after one untimed step.
    const si::bench::Schedule schedule{.iterations = run.iterations, .warmup = 1, .batch = 1};
    si::bench::Reporter reporter("nas", fmt::format("sp.{}", run.problem->name), context, path,
                                 /*quiet=*/true);
    reporter.add(per_rank("time", "s", 0, rank_seconds, schedule));
    const double mops[] = {mops_rate(run.problem->grid, run.iterations, run.seconds)};
    reporter.add(per_rank("mops", "Mop/s", 0, mops, schedule));
    reporter.add(per_rank("cpu_time", "s", 0, cpu.rank, schedule));
    reporter.add(per_rank("helper_cpu_time", "s", 0, cpu.helpers, schedule));
}

}  // namespace si::sp
