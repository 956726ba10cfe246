// One benchmark run: MPI's lifetime, the command line, the context and the reports.
//
//   si::bench::Session session(argc, argv, {.suite = "p2p", .benchmark = "pingpong"});
//   session.cli().add_option("--window", window, "...");   // benchmark's own options
//   if (!session.start()) return session.exit_code();
//   for (std::size_t size : session.sizes()) { ... session.report({...}); }
//   return session.finish();
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/options.hpp"
#include "common/report.hpp"

namespace CLI {
class App;
}

namespace si::bench {

struct BenchmarkInfo {
    std::string suite;      // "p2p", "collectives", "rma"
    std::string benchmark;  // "pingpong"
    std::string description;
    int min_ranks = 1;
    int max_ranks = 0;  // 0: no upper bound
    std::size_t default_min_size = 0;
    std::size_t default_max_size = 4 * MiB;
    // Threads of one rank call MPI at once: MPI_Init_thread(MPI_THREAD_MULTIPLE),
    // and start() rejects a library that provides less.
    bool needs_thread_multiple = false;
};

// MPI_Init, or MPI_Init_thread(MPI_THREAD_MULTIPLE) when SI_BENCH_THREAD_MULTIPLE=1:
// MPICH starts its asynchronous progress thread (MPIR_CVAR_ASYNC_PROGRESS) only
// under MPI_THREAD_MULTIPLE, and every other run keeps plain MPI_Init so that no
// library pays for thread safety the benchmark does not need. Returns the level
// asked for. For programs without a Session (apps/nas-sp).
int initialize_mpi(int& argc, char**& argv, bool thread_multiple = false);

class Session {
  public:
    // Calls MPI_Init, or MPI_Init_thread(MPI_THREAD_MULTIPLE) when the benchmark
    // needs it or the environment sets SI_BENCH_THREAD_MULTIPLE=1; the destructor
    // calls MPI_Finalize.
    Session(int& argc, char**& argv, BenchmarkInfo info);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // For the benchmark's own options, registered before start().
    [[nodiscard]] CLI::App& cli() { return *app_; }

    // Collective. Parses the command line, checks the number of ranks, gathers the
    // context and opens the reporters. False when main should return exit_code()
    // instead of measuring (--help, a bad option, a wrong rank count).
    [[nodiscard]] bool start();
    [[nodiscard]] int exit_code() const { return exit_code_; }

    [[nodiscard]] MPI_Comm comm() const { return MPI_COMM_WORLD; }
    [[nodiscard]] int rank() const { return rank_; }
    [[nodiscard]] int ranks() const { return ranks_; }
    [[nodiscard]] const Options& options() const { return options_; }

    // The sizes (the sweep or the --sizes list), without those below `at_least`
    // (bandwidth has no 0 B point).
    [[nodiscard]] std::vector<std::size_t> sizes(std::size_t at_least = 0) const;
    [[nodiscard]] Schedule schedule(std::size_t size, const ScheduleDefaults& defaults) const {
        return options_.schedule_for(size, defaults);
    }

    // Rank 0 prints and writes the measurement; on other ranks this does nothing, so
    // every rank may call it with its own view.
    void report(const Measurement& m);

    // Records a failed validation on this rank (checked outside timed loops).
    void check(bool ok, std::string_view what);

    // For a usage error the benchmark finds after start() (every rank must reach the
    // same verdict): rank 0 prints `message`; returns the exit code for main.
    int reject(std::string_view message);

    // Collective. Sums the failed checks; after MPI_Finalize (the destructor) rank 0
    // prints "No Errors" (the project's test convention) or their number. Returns
    // the exit code for main.
    [[nodiscard]] int finish();

  private:
    BenchmarkInfo info_;
    int& argc_;
    char**& argv_;
    int rank_ = 0;
    int ranks_ = 1;
    int exit_code_ = 0;
    int failures_ = 0;
    std::optional<int> failures_total_;  // set by finish()
    int requested_thread_level_ = MPI_THREAD_SINGLE;
    Options options_;
    std::unique_ptr<CLI::App> app_;
    std::unique_ptr<Reporter> reporter_;  // rank 0 only
};

}  // namespace si::bench
