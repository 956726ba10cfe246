// Counting the instructions of chosen stretches of code with callgrind (valgrind's
// instruction-level profiler), from inside the program:
//
//   launch_counted_rank(argv, settings);         // before MPI_Init: the counted rank
//                                                // re-executes itself under callgrind
//   CallgrindCounter counter;                    // after MPI_Init
//   counter.start();                             // zero
//   counted(&counter, [&] { ... });              // a counted stretch
//   ...not counted...
//   counted(&counter, [&] { ... });
//   auto n = counter.finish();
//
// Callgrind runs with collection off (--collect-atstart=no); start() zeroes its
// counts, resume() and pause() turn collection on and off for this thread only (other
// threads of the process, such as a library's progress or event thread, are never
// counted: checked with a second thread spinning meanwhile), finish() dumps the counts
// (CALLGRIND_DUMP_STATS) and reads the dump's instruction total. What the client
// requests themselves execute inside a counted stretch is measured once, on an empty
// stretch, and taken off. Outside callgrind (a peer rank, or --no-valgrind) every
// call does nothing and finish() returns nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace si::bench::instructions {

struct CallgrindSettings {
    int counted_rank = 0;
    std::string valgrind = "valgrind";  // the program, found in PATH
    bool enabled = true;                // false: run the protocols without counting
    // Where the dumps go; empty: "<--csv path>.callgrind", else a new directory in
    // $TMPDIR (or /tmp).
    std::string directory;
    std::string csv_path;
};

// Reads the options above from the command line (and leaves it as it is), since
// they are needed before MPI_Init; op_instructions registers the same options with its
// Session, for --help and so that they parse.
CallgrindSettings read_callgrind_settings(int argc, char** argv);

// Before MPI_Init. On the counted rank (its rank read from the launcher's
// environment: PMI_RANK for sirun and Hydra, OMPI_COMM_WORLD_RANK, PMIX_RANK), when
// not yet under valgrind: replaces the process by valgrind running this program
// with the same arguments, LD_BIND_NOW=1 (symbols bound at start, not inside a
// counted call) and SI_BENCH_CALLGRIND_OUT naming its output file. Returns on every
// other rank, under valgrind, and without counting; exits 2 when the rank cannot be
// told or valgrind cannot be started.
void launch_counted_rank(char** argv, const CallgrindSettings& settings);

class CallgrindCounter {
  public:
    CallgrindCounter();

    // Whether this process counts (it runs under callgrind).
    [[nodiscard]] bool active() const { return active_; }
    // The dump directory (empty when not active).
    [[nodiscard]] const std::string& directory() const { return directory_; }

    void start();
    void pause();
    void resume();

    struct Count {
        std::uint64_t instructions = 0;
        std::string dump;  // the dump's file; the caller keeps or removes it
    };
    // Instructions of the counted stretches since start(), without the client
    // requests' own; nullopt when not active or the dump could not be read.
    std::optional<Count> finish();

    // Instructions an empty counted stretch costs (taken off every stretch).
    [[nodiscard]] std::uint64_t stretch_overhead() const { return overhead_; }

  private:
    std::optional<std::uint64_t> dump_and_read(std::string& path);

    bool active_ = false;
    bool collecting_ = false;
    std::string out_file_;
    std::string directory_;
    int dumps_ = 0;
    int stretches_ = 0;
    std::uint64_t overhead_ = 0;
};

// Runs `body` as one counted stretch (nothing without a counter); inlined, so that the
// stretch holds the body and the two client requests around it only.
template <typename Body>
void counted(CallgrindCounter* counter, Body&& body) {
    if (counter != nullptr) counter->resume();
    body();
    if (counter != nullptr) counter->pause();
}

}  // namespace si::bench::instructions
