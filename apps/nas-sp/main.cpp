// sp: the NAS Parallel Benchmarks' SP pseudo-application (scalar pentadiagonal ADI
// solver of the 3-D compressible Navier-Stokes equations), written from the NPB 3.4
// specification for a perfect square number of MPI ranks.
//
//   sp --class S [--iterations N] [--csv FILE]
//
// Exits 0 when the run verifies (and prints "No Errors") or when there is nothing to
// verify against, 1 when verification fails, 2 for a usage error, 3 when the CSV
// cannot be written.
#include <mpi.h>

#include <cctype>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/context.hpp"
#include "common/procfs.hpp"
#include "common/session.hpp"
#include "problem.hpp"
#include "report.hpp"
#include "solver.hpp"

namespace {

using namespace si::sp;

constexpr int kUsageError = 2;
constexpr int kVerificationFailed = 1;
constexpr int kOutputFailed = 3;

struct Options {
    std::string class_name = "S";
    std::optional<int> iterations;
    std::string csv_path;
};

// The class a --class argument names (either case), nullptr for none.
const ProblemClass* class_named(const std::string& name) {
    if (name.size() != 1) return nullptr;
    return find_class(static_cast<char>(std::toupper(static_cast<unsigned char>(name[0]))));
}

// Parses the command line on every rank (all reach the same verdict; rank 0 speaks).
// Returns the exit code when the program should stop here.
std::optional<int> parse_options(int argc, char** argv, int rank, Options& options) {
    CLI::App app{"NAS Parallel Benchmarks SP (multipartition, any perfect square of ranks)", "sp"};
    app.add_option("-c,--class", options.class_name,
                   fmt::format("problem class: {}", class_names()))
        ->check([](const std::string& name) {
            return class_named(name) != nullptr
                       ? std::string{}
                       : fmt::format("unknown class '{}' (valid: {})", name, class_names());
        })
        ->capture_default_str();
    app.add_option("-i,--iterations", options.iterations,
                   "time steps instead of the class's (the run is then not verified)")
        ->check(CLI::Range(0, 1 << 24));
    app.add_option("--csv", options.csv_path,
                   "write the time and Mop/s to this file as tidy CSV rows (microbench/README.md)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (rank == 0) app.exit(e);  // prints the help or the error
        return e.get_exit_code() == 0 ? 0 : kUsageError;
    }
    return std::nullopt;
}

// Runs the benchmark; returns the exit code, the same on every rank, and sets
// `verified` on rank 0 when the results match NPB's reference values.
int run(const Options& options, int rank, int ranks, int argc, char** argv,
        int thread_level_requested, bool& verified) {
    const ProblemClass& problem = *class_named(options.class_name);
    const std::string rank_problem = check_rank_count(ranks, problem.grid);
    if (!rank_problem.empty()) {
        if (rank == 0) fmt::print(stderr, "sp: class {}: {}\n", problem.name, rank_problem);
        return kUsageError;
    }
    const int iterations = options.iterations.value_or(problem.iterations);
    const Constants k = make_constants(problem.grid, problem.dt);

    Solver solver(k, MPI_COMM_WORLD);
    const int nc = solver.partition().cells_per_direction();
    if (rank == 0) {
        fmt::print(" NAS Parallel Benchmarks SP, written from the NPB 3.4 specification\n");
        fmt::print(" Class {}: {}x{}x{} grid, {} iterations, dt = {}\n", problem.name, problem.grid,
                   problem.grid, problem.grid, iterations, problem.dt);
        fmt::print(" Ranks: {} ({}x{}x{} cells, {} per rank)\n", ranks, nc, nc, nc, nc);
        std::fflush(stdout);
    }

    solver.initialize();
    solver.compute_forcing();
    // One untimed step touches every code path and every page, then the initial
    // condition is restored: the timed steps start from a warm, identical state.
    solver.step();
    solver.initialize();

    // CPU time of this rank's process (its progress threads included) and of the
    // processes it forked (SmartInterrupts' helpers), over the timed steps.
    const double cpu_start = si::bench::cpu_seconds("self");
    const double helpers_start = si::bench::children_cpu_seconds();
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int step = 0; step < iterations; ++step) solver.step();
    const double local_seconds = MPI_Wtime() - start;
    const double cpu[] = {si::bench::cpu_seconds("self") - cpu_start,
                          si::bench::children_cpu_seconds() - helpers_start};

    // Every rank's time goes into the CSV (its maximum is NPB's time); the context
    // (machine, MPI library, settings) is collective.
    std::vector<double> rank_seconds(static_cast<std::size_t>(ranks));
    MPI_Gather(&local_seconds, 1, MPI_DOUBLE, rank_seconds.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CpuTimes cpu_times;
    cpu_times.rank.resize(static_cast<std::size_t>(ranks));
    cpu_times.helpers.resize(static_cast<std::size_t>(ranks));
    MPI_Gather(&cpu[0], 1, MPI_DOUBLE, cpu_times.rank.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(&cpu[1], 1, MPI_DOUBLE, cpu_times.helpers.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    std::optional<si::bench::Context> context;
    if (!options.csv_path.empty()) {
        context = si::bench::collect_context(MPI_COMM_WORLD, argc, argv);
        context->thread_level_requested = thread_level_requested;
    }

    RunResult result;
    result.problem = &problem;
    result.ranks = ranks;
    result.iterations = iterations;
    result.dt = k.dt;
    MPI_Allreduce(&local_seconds, &result.seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    result.error = solver.error_norms();
    result.residual = solver.residual_norms();
    const Verification verification = verify(result);

    int exit_code = verification.verdict == Verdict::kUnsuccessful ? kVerificationFailed : 0;
    if (rank == 0) {
        print_report(result, verification);
        if (!options.csv_path.empty()) {
            try {
                write_csv(options.csv_path, result, *context, rank_seconds, cpu_times);
            } catch (const std::runtime_error& e) {
                fmt::print(stderr, "sp: {}\n", e.what());
                exit_code = kOutputFailed;
            }
        }
        std::fflush(stdout);
    }
    verified = verification.verdict == Verdict::kSuccessful;
    MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
    // SI_BENCH_THREAD_MULTIPLE=1 (sibench's mpich-async) asks for MPI_THREAD_MULTIPLE.
    const int thread_level_requested = si::bench::initialize_mpi(argc, argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    Options options;
    int exit_code = 0;
    bool verified = false;
    if (const auto stop = parse_options(argc, argv, rank, options))
        exit_code = *stop;
    else
        exit_code = run(options, rank, ranks, argc, argv, thread_level_requested, verified);
    MPI_Finalize();
    // After MPI_Finalize, so that a failure there cannot pass a test.
    if (rank == 0 && verified && exit_code == 0) fmt::print(" No Errors\n");
    return exit_code;
}
