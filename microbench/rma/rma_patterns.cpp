// The inefficiency patterns of one-sided synchronization (seed 002, Section 4 and
// the tests of Section 8): a peer that is late or computes inside an epoch delays
// another process that only wanted its own epoch to end. Each pattern runs with
// blocking synchronization and, on this runtime, with its nonblocking calls
// (MPIX_Win_i*, --epochs), where the process that delays closes its epoch before
// it computes and completes it after. The times are completion times from the
// barrier that starts a repetition, on the process that observes, medians over
// the repetitions:
//
//   late_post      ranks 0-2: rank 0 (the target) sleeps `delay`, then posts;
//                  rank 2 opens an access epoch to it, puts, closes, then sends
//                  the same size to rank 1 (two-sided).
//                  late_post_epoch_<e>: rank 2's epoch completed;
//                  late_post_next_<e>:  its send to rank 1 completed.
//   late_complete  ranks 0-1: rank 0 puts in a GATS epoch and computes `delay`
//                  before completing it; late_complete_target_<e>: rank 1's
//                  exposure epoch ended; late_complete_origin_<e>: rank 0's.
//   early_fence    ranks 0-1: rank 0 puts in a fence epoch; rank 1 computes
//                  `delay` after its closing fence; early_fence_target_<e>:
//                  rank 1's fence epoch and computation both done.
//   wait_at_fence  ranks 0-1: rank 0 puts, computes `delay`, closes the fence;
//                  wait_at_fence_target_<e>: rank 1's fence epoch ended.
//   late_unlock    ranks 0-2: rank 0 locks rank 2 exclusively, puts, computes
//                  `delay`, unlocks; rank 1 asks for the same lock once rank 0's
//                  lock call returned, puts, unlocks. late_unlock_first_<e> (rank 0) and
//                  late_unlock_second_<e> (rank 1): their epochs ended.
//
// <e> is blocking or nonblocking; <pattern>_delay_<e> is how long the
// delaying process computed (or slept) as it ran.
// Times run from the moment the delaying process left the barrier (its
// MPI_Wtime against the observer's: one clock, so one node), since under
// oversubscription the ranks leave a barrier hundreds of microseconds apart,
// and a victim that left late would otherwise hide part of the delay. A
// pattern needs its ranks (--pattern picks some); further ranks join the
// barriers only. Every put's data is checked at its target after each size.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"
#include "common/work.hpp"

namespace {

namespace bench = si::bench;

constexpr bench::ScheduleDefaults kPatternSchedule{
    .iterations = 50, .warmup = 5, .large_iterations = 50, .large_warmup = 5};

#ifdef SI_MPI
constexpr bool kHasNonblockingEpochs = true;
#else
constexpr bool kHasNonblockingEpochs = false;  // MPIX_Win_i* are this runtime's
#endif

struct Observation {
    const char* name;  // late_post_next
    int rank;          // who observes it
    int slot;          // its place in run_once's result
};

struct Pattern {
    const char* name;
    int ranks;
    int delayer;  // whose start is the time origin
    std::vector<Observation> observations;
};

const std::vector<Pattern>& patterns() {
    static const std::vector<Pattern> all = {
        {"late_post", 3, 0, {{"late_post_epoch", 2, 0}, {"late_post_next", 2, 1}}},
        {"late_complete",
         2,
         0,
         {{"late_complete_target", 1, 0}, {"late_complete_origin", 0, 0}}},
        {"early_fence", 2, 1, {{"early_fence_target", 1, 0}}},
        {"wait_at_fence", 2, 0, {{"wait_at_fence_target", 1, 0}}},
        {"late_unlock", 3, 0, {{"late_unlock_first", 0, 0}, {"late_unlock_second", 1, 0}}},
    };
    return all;
}

// One repetition on one rank (MPI_Wtime): when it left the barrier, and when
// what it observes ended, per slot.
struct Times {
    double start = 0;
    std::array<double, 2> end{};
    double delayed = 0;  // how long this rank delayed the others, as it ran
};

class Patterns {
  public:
    Patterns(MPI_Comm comm, MPI_Win win, std::byte* local, std::byte* exchange,
             const bench::Work& work)
        : comm_(comm), win_(win), local_(local), exchange_(exchange), work_(work) {
        MPI_Comm_rank(comm, &rank_);
        MPI_Group all;
        MPI_Win_get_group(win, &all);
        int ranks = 0;
        MPI_Comm_size(comm, &ranks);
        only_.fill(MPI_GROUP_NULL);
        for (int r = 0; r < std::min(ranks, 3); ++r) MPI_Group_incl(all, 1, &r, &only_[r]);
        MPI_Group_free(&all);
    }
    ~Patterns() {
        for (auto& group : only_)
            if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
    }
    Patterns(const Patterns&) = delete;
    Patterns& operator=(const Patterns&) = delete;

    // One repetition, after the barrier that starts it.
    Times run_once(const std::string& pattern, bool nonblocking, int size, double delay) {
        nonblocking_ = nonblocking;
        delayed_ = 0;
        Times times;
        times.start = MPI_Wtime();
        if (pattern == "late_post")
            times.end = late_post(size, delay);
        else if (pattern == "late_complete")
            times.end = {late_complete(size, delay), 0};
        else if (pattern == "early_fence")
            times.end = {early_fence(size, delay), 0};
        else if (pattern == "wait_at_fence")
            times.end = {wait_at_fence(size, delay), 0};
        else
            times.end = {late_unlock(size, delay), 0};
        times.delayed = delayed_;
        return times;
    }

  private:
    void put(int size, int target) {
        MPI_Put(local_, size, MPI_BYTE, target, 0, size, MPI_BYTE, win_);
    }
    static void wait(MPI_Request& request) { MPI_Wait(&request, MPI_STATUS_IGNORE); }

    enum class Closing { access, exposure, fence, unlock };

    // Closes this rank's epoch: blocking (request null) or not.
    void close(Closing kind, int target, MPI_Request* request) {
#ifdef SI_MPI
        if (request != nullptr) {
            switch (kind) {
                case Closing::access: MPIX_Win_icomplete(win_, request); return;
                case Closing::exposure: MPIX_Win_iwait(win_, request); return;
                case Closing::fence: MPIX_Win_ifence(MPI_MODE_NOSUCCEED, win_, request); return;
                case Closing::unlock: MPIX_Win_iunlock(target, win_, request); return;
            }
        }
#endif
        switch (kind) {
            case Closing::access: MPI_Win_complete(win_); return;
            case Closing::exposure: MPI_Win_wait(win_); return;
            case Closing::fence: MPI_Win_fence(MPI_MODE_NOSUCCEED, win_); return;
            case Closing::unlock: MPI_Win_unlock(target, win_); return;
        }
    }

    // Closes the epoch, then does `next`; returns when the epoch was seen to
    // end: blocking, before `next`; nonblocking, by the wait after it.
    template <typename Next>
    double close_then(Closing kind, int target, Next next) {
        if (!nonblocking_) {
            close(kind, target, nullptr);
            const double ended = MPI_Wtime();
            next();
            return ended;
        }
        MPI_Request closing;
        close(kind, target, &closing);
        next();
        MPI_Wait(&closing, MPI_STATUS_IGNORE);
        return MPI_Wtime();
    }

    // The process that delays the others: blocking, it computes inside its
    // epoch and closes it after; nonblocking, it closes first.
    double compute_in_epoch(Closing kind, int target, double delay) {
        if (nonblocking_) return close_then(kind, target, [&] { compute(delay); });
        compute(delay);
        close(kind, target, nullptr);
        return MPI_Wtime();
    }

    std::array<double, 2> late_post(int size, double delay) {
        std::array<double, 2> ends{};
        if (rank_ == 0) {
            // Late, not computing: the seed's target had a core of its own,
            // and on two cores a third rank that computes would decide
            // when the other two run (a woken rank waits for the scheduler).
            const double slept = MPI_Wtime();
            std::this_thread::sleep_for(std::chrono::duration<double>(delay));
            delayed_ = MPI_Wtime() - slept;
            MPI_Win_post(only_[2], 0, win_);
            MPI_Win_wait(win_);
        } else if (rank_ == 1) {
            MPI_Recv(exchange_, size, MPI_BYTE, 2, 0, comm_, MPI_STATUS_IGNORE);
        } else if (rank_ == 2) {
            MPI_Win_start(only_[0], 0, win_);
            put(size, 0);
            ends[0] = close_then(Closing::access, 0, [&] {
                MPI_Send(local_, size, MPI_BYTE, 1, 0, comm_);
                ends[1] = MPI_Wtime();
            });
        }
        return ends;
    }

    double late_complete(int size, double delay) {
        if (rank_ == 0) {
            MPI_Win_start(only_[1], 0, win_);
            put(size, 1);
            return compute_in_epoch(Closing::access, 1, delay);
        }
        if (rank_ == 1) {
            MPI_Win_post(only_[0], 0, win_);
            return close_then(Closing::exposure, 0, [] {});
        }
        return 0;
    }

    // The observation is the fence epoch and the computation after it.
    double early_fence(int size, double delay) {
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win_);
        if (rank_ == 0) put(size, 1);
        if (rank_ != 1) {
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win_);
            return 0;
        }
        close_then(Closing::fence, 0, [&] { compute(delay); });
        return MPI_Wtime();
    }

    double wait_at_fence(int size, double delay) {
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win_);
        if (rank_ == 0) {
            put(size, 1);
            return compute_in_epoch(Closing::fence, 0, delay);
        }
        if (rank_ == 1) return close_then(Closing::fence, 0, [] {});
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win_);
        return 0;
    }

    // Rank 0 asks first: it tells rank 1 once its lock call returned (a
    // library that locks lazily asks only at the unlock, and rank 1 may then
    // get the lock first, as the seed found of MVAPICH).
    double late_unlock(int size, double delay) {
        const int target = 2;
        if (rank_ == 0) {
            lock(target);
            put(size, target);
            MPI_Send(nullptr, 0, MPI_BYTE, 1, 0, comm_);
            return compute_in_epoch(Closing::unlock, target, delay);
        }
        if (rank_ == 1) {
            MPI_Recv(nullptr, 0, MPI_BYTE, 0, 0, comm_, MPI_STATUS_IGNORE);
            lock(target);
            put(size, target);
            return close_then(Closing::unlock, target, [] {});
        }
        return 0;
    }

    // The loop is calibrated at start-up; a progress thread that shared the
    // core then (or now) makes it run shorter (or longer): measured.
    void compute(double seconds) {
        const double begun = MPI_Wtime();
        work_.run(seconds);
        delayed_ = MPI_Wtime() - begun;
    }

    void lock(int target) {
#ifdef SI_MPI
        if (nonblocking_) {
            // Opening requests complete at once (the epoch is open for
            // operations); the lock may be granted later.
            MPI_Request opening;
            MPIX_Win_ilock(MPI_LOCK_EXCLUSIVE, target, 0, win_, &opening);
            MPI_Wait(&opening, MPI_STATUS_IGNORE);
            return;
        }
#endif
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win_);
    }

    MPI_Comm comm_;
    MPI_Win win_;
    std::byte* local_;
    std::byte* exchange_;
    const bench::Work& work_;
    int rank_ = 0;
    bool nonblocking_ = false;
    double delayed_ = 0;
    std::array<MPI_Group, 3> only_{};
};

}  // namespace

namespace {

// Per repetition, rank 0 gets every rank's times: (start, end, end, delayed).
std::vector<double> gather_times(MPI_Comm comm, int ranks, const std::vector<Times>& times) {
    std::vector<double> mine;
    for (const Times& t : times)
        mine.insert(mine.end(), {t.start, t.end[0], t.end[1], t.delayed});
    std::vector<double> all(mine.size() * static_cast<std::size_t>(ranks));
    MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
               static_cast<int>(mine.size()), MPI_DOUBLE, 0, comm);
    return all;
}

double field(const std::vector<double>& all, std::size_t repetitions, int rank, std::size_t i,
             int which) {
    return all[(static_cast<std::size_t>(rank) * repetitions + i) * 4 +
               static_cast<std::size_t>(which)];
}

// An observation's microseconds per repetition, from the delayer's start.
std::vector<double> observed(const std::vector<double>& all, std::size_t repetitions,
                             int delayer, const Observation& o) {
    std::vector<double> us;
    for (std::size_t i = 0; i < repetitions; ++i)
        us.push_back((field(all, repetitions, o.rank, i, 1 + o.slot) -
                      field(all, repetitions, delayer, i, 0)) *
                     1e6);
    return us;
}

// How long the delayer delayed, in microseconds per repetition.
std::vector<double> delays(const std::vector<double>& all, std::size_t repetitions,
                           int delayer) {
    std::vector<double> us;
    for (std::size_t i = 0; i < repetitions; ++i)
        us.push_back(field(all, repetitions, delayer, i, 3) * 1e6);
    return us;
}

// Where the put of a pattern lands.
int target_of(const std::string& pattern) {
    if (pattern == "late_post") return 0;
    if (pattern == "late_unlock") return 2;
    return 1;
}

std::byte fill(std::size_t i, std::size_t size) {
    return static_cast<std::byte>((i * 13 + size) & 0xFF);
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "rma-patterns",
                            .benchmark = "rma_patterns",
                            .description = "Inefficiency patterns of one-sided synchronization, "
                                           "blocking and nonblocking epochs",
                            .min_ranks = 2,
                            .default_min_size = 256 * bench::KiB,
                            .default_max_size = 1 * bench::MiB});
    std::vector<std::string> names;
    for (const Pattern& p : patterns()) names.push_back(p.name);
    std::vector<std::string> chosen;
    std::vector<std::string> epochs = {"blocking"};
    if (kHasNonblockingEpochs) epochs.push_back("nonblocking");
    double delay_us = 1000;
    session.cli()
        .add_option("--pattern", chosen,
                    "Comma-separated patterns (default: every one the job's ranks allow)")
        ->delimiter(',')
        ->check(CLI::IsMember(names));
    session.cli()
        .add_option("--epochs", epochs,
                    "Comma-separated synchronizations: blocking, nonblocking (this runtime's "
                    "MPIX_Win_i* calls)")
        ->delimiter(',')
        ->check(CLI::IsMember({"blocking", "nonblocking"}))
        ->capture_default_str();
    session.cli()
        .add_option("--delay-us", delay_us,
                    "How long the delaying process computes, in microseconds (seed 002: 1000)")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
    session.cli().footer(
        "late_post and late_unlock need 3 ranks, the others 2; further ranks only join the "
        "barriers.");
    if (!session.start()) return session.exit_code();
    const bool nonblocking_wanted =
        std::find(epochs.begin(), epochs.end(), "nonblocking") != epochs.end();
    if (nonblocking_wanted && !kHasNonblockingEpochs)
        return session.reject(
            "--epochs nonblocking: this MPI library has no nonblocking synchronization "
            "(MPIX_Win_i* are this runtime's); use --epochs blocking");
    std::vector<const Pattern*> selected;
    for (const Pattern& p : patterns()) {
        const bool named = std::find(chosen.begin(), chosen.end(), p.name) != chosen.end();
        if (!chosen.empty() && !named) continue;
        if (p.ranks > session.ranks()) {
            if (named)
                return session.reject(
                    fmt::format("--pattern {} needs {} ranks, the job has {}", p.name, p.ranks,
                                session.ranks()));
            continue;
        }
        selected.push_back(&p);
    }
    const std::vector<std::size_t> sizes = session.sizes(1);
    if (sizes.empty()) return session.reject("no message size to put");

    const bench::Work work;
    const std::size_t largest = sizes.back();
    std::byte* window = nullptr;
    MPI_Win win;
    MPI_Win_allocate(static_cast<MPI_Aint>(largest), 1, MPI_INFO_NULL, session.comm(), &window,
                     &win);
    std::vector<std::byte> local(largest), exchange(largest);
    Patterns runner(session.comm(), win, local.data(), exchange.data(), work);
    const double delay = delay_us * 1e-6;
    const int rank = session.rank();

    for (const Pattern* pattern : selected) {
        for (const std::string& epoch : epochs) {
            for (std::size_t size : sizes) {
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
                for (std::size_t i = 0; i < size; ++i) {
                    local[i] = fill(i, size);
                    window[i] = std::byte{0};
                    exchange[i] = std::byte{0};
                }
                MPI_Win_unlock(rank, win);
                const auto schedule = session.schedule(size, kPatternSchedule);
                std::vector<Times> times;
                for (int i = -schedule.warmup; i < schedule.iterations; ++i) {
                    MPI_Barrier(session.comm());
                    const Times t = runner.run_once(pattern->name, epoch == "nonblocking",
                                                    static_cast<int>(size), delay);
                    if (i >= 0) times.push_back(t);
                }
                MPI_Barrier(session.comm());
                MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
                bool ok = true;
                for (std::size_t i = 0; i < size; ++i) {
                    if (rank == target_of(pattern->name) && window[i] != fill(i, size)) ok = false;
                    if (pattern->name == std::string("late_post") && rank == 1 &&
                        exchange[i] != fill(i, size))
                        ok = false;
                }
                MPI_Win_unlock(rank, win);
                session.check(ok, fmt::format("{} {} of {} B: the data", pattern->name, epoch,
                                              size));
                const auto all = gather_times(session.comm(), session.ranks(), times);
                if (rank != 0) continue;
                const auto report = [&](const std::string& metric, std::vector<double> us) {
                    session.report({.metric = fmt::format("{}_{}", metric, epoch),
                                    .unit = "us",
                                    .msg_size = size,
                                    .summary = bench::summarize(us),
                                    .schedule = schedule});
                };
                for (const Observation& o : pattern->observations)
                    report(o.name, observed(all, times.size(), pattern->delayer, o));
                report(std::string(pattern->name) + "_delay",
                       delays(all, times.size(), pattern->delayer));
            }
        }
    }
    MPI_Win_free(&win);
    return session.finish();
}
