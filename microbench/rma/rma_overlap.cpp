// One-sided communication: epoch latency and overlap with computation, after the
// thesis' templates (Figs. 5.5, 5.7 and 5.12), in two phases.
//
// Fence and GATS (--sync fence,gats), pairwise (origin i, target i + P/2, so that
// with SI_NODE_SIZE = P/2 every pair spans two nodes) or one-to-many (rank 0 puts
// to every other rank). One repetition: MPI_Barrier; the origin starts its clock,
// opens the epoch (MPI_Win_fence(MPI_MODE_NOPRECEDE) or MPI_Win_start), issues one
// MPI_Put or MPI_Get of the size to each target, computes, closes the epoch
// (MPI_Win_fence(MPI_MODE_NOSUCCEED) or MPI_Win_complete) and stops its clock; a
// target waits `delay`, then opens its exposure (the fence, MPI_Win_post) and
// closes it (the fence, MPI_Win_wait).
//
// Exclusive lock (--sync lock, three processes): rank 2 is the target and only
// joins the barriers; rank 0 (Origin0) locks the target exclusively, holds the
// lock until `delay` into Origin1's computation, unlocks; rank 1 (Origin1) waits
// 20 us so that Origin0 asks first, then times MPI_Win_lock, the operation, the
// computation, MPI_Win_unlock.
//
// Phase 1: no delay, no computation, Origin0 absent: the epoch's latency
// (epoch_<sync>_<op>; against mode none it gives the latency overhead). Phase 2:
// the target (or Origin0) is late by --delay x the work, and the origin computes
// the work: phase 1's epoch time at the largest size (work_<sync>_<op>).
// overlapped_<sync>_<op> is phase 2's epoch time: the ideal curve is flat at the
// work, one without overlap lies about the delay plus the transfer above it.
//
//   epoch_<s>_<o>       us  phase 1, per origin the median repetition
//   overlapped_<s>_<o>  us  phase 2, the same
//   work_<s>_<o>        us  the computation of phase 2 as it ran (per origin the
//                           median; nominally phase 1's epoch at the largest size)
//   footprint           KiB after the run, the rank's Pss plus its share of the
//                           processes the ranks forked (SmartInterrupts' helpers)
//
// Statistics are over the origins' medians. The origin's data is checked at the
// target (Put) or the target's at the origin (Get) after each size's loops.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/bench.hpp"
#include "common/pairs.hpp"
#include "common/procfs.hpp"
#include "common/work.hpp"

namespace {

namespace bench = si::bench;

// The thesis: 1000 epochs, the first 100 dropped.
constexpr bench::ScheduleDefaults kEpochSchedule{
    .iterations = 1000, .warmup = 100, .large_iterations = 1000, .large_warmup = 100};

enum class Sync { fence, gats, lock };
enum class Op { put, get };

// Who does what in one configuration.
struct Roles {
    bool origin = false;  // times its epochs (Origin1 for locks)
    bool holder = false;  // Origin0 of the lock test
    std::vector<int> targets;
    std::vector<int> origins;  // of this rank as target
};

Roles roles_of(Sync sync, bool one_to_many, int rank, int ranks) {
    Roles roles;
    if (sync == Sync::lock) {
        roles.origin = rank == 1;
        roles.holder = rank == 0;
        if (rank < 2) roles.targets = {2};
        return roles;
    }
    if (one_to_many) {
        roles.origin = rank == 0;
        for (int r = 1; r < ranks && rank == 0; ++r) roles.targets.push_back(r);
        if (rank != 0) roles.origins = {0};
        return roles;
    }
    const bench::Pair pair = bench::pair_of(rank, ranks);
    roles.origin = pair.sender;
    if (pair.sender) roles.targets = {pair.peer};
    if (pair.receiver) roles.origins = {pair.peer};
    return roles;
}

MPI_Group group_of(MPI_Win win, const std::vector<int>& ranks) {
    MPI_Group all, some;
    MPI_Win_get_group(win, &all);
    MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &some);
    MPI_Group_free(&all);
    return some;
}

class Epochs {
  public:
    Epochs(Sync sync, Op op, const Roles& roles, MPI_Win win, std::byte* local,
           const bench::Work& work)
        : sync_(sync), op_(op), roles_(roles), win_(win), local_(local), work_(work) {
        targets_ = group_of(win, roles.targets);
        origins_ = group_of(win, roles.origins);
    }
    ~Epochs() {
        MPI_Group_free(&targets_);
        MPI_Group_free(&origins_);
    }
    Epochs(const Epochs&) = delete;
    Epochs& operator=(const Epochs&) = delete;

    // One repetition (after the barrier); the origin's seconds, 0 elsewhere.
    double run(int size, double delay, double work_seconds, bool holder_present) {
        if (sync_ == Sync::lock) return run_lock(size, delay, work_seconds, holder_present);
        if (roles_.origin) {
            const double start = MPI_Wtime();
            open_access();
            transfer(size);
            compute(work_seconds);
            close_access();
            return MPI_Wtime() - start;
        }
        if (delay > 0) work_.run(delay);
        if (sync_ == Sync::fence) {
            MPI_Win_fence(MPI_MODE_NOPRECEDE, win_);
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win_);
        } else if (!roles_.origins.empty()) {
            MPI_Win_post(origins_, 0, win_);
            MPI_Win_wait(win_);
        }
        return 0;
    }

    // How long each computation of the origin took (phase 2), as measured.
    std::vector<double> computed;

  private:
    void compute(double seconds) {
        if (seconds <= 0) return;
        const double start = MPI_Wtime();
        work_.run(seconds);
        computed.push_back(MPI_Wtime() - start);
    }
    void open_access() {
        if (sync_ == Sync::fence)
            MPI_Win_fence(MPI_MODE_NOPRECEDE, win_);
        else
            MPI_Win_start(targets_, 0, win_);
    }
    void close_access() {
        if (sync_ == Sync::fence)
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win_);
        else
            MPI_Win_complete(win_);
    }
    void transfer(int size) {
        for (int target : roles_.targets) {
            if (op_ == Op::put)
                MPI_Put(local_, size, MPI_BYTE, target, 0, size, MPI_BYTE, win_);
            else
                MPI_Get(local_, size, MPI_BYTE, target, 0, size, MPI_BYTE, win_);
        }
    }
    double run_lock(int size, double delay, double work_seconds, bool holder_present) {
        const int target = 2;
        if (roles_.holder && holder_present) {
            // Until Origin1 computes: its own wait, then the delay into its work.
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win_);
            work_.run(kOrigin1Delay + delay);
            MPI_Win_unlock(target, win_);
        }
        if (!roles_.origin) return 0;
        // Origin0 asks first: its request leaves right after the barrier.
        if (holder_present) work_.run(kOrigin1Delay);
        const double start = MPI_Wtime();
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win_);
        transfer(size);
        compute(work_seconds);
        MPI_Win_unlock(target, win_);
        return MPI_Wtime() - start;
    }

    static constexpr double kOrigin1Delay = 20e-6;
    Sync sync_;
    Op op_;
    const Roles& roles_;
    MPI_Win win_;
    std::byte* local_;
    const bench::Work& work_;
    MPI_Group targets_ = MPI_GROUP_NULL;
    MPI_Group origins_ = MPI_GROUP_NULL;
};

// The origins' medians, on every rank (the others pass anything).
std::vector<double> origins_medians(MPI_Comm comm, bool origin, std::vector<double> seconds) {
    const double median = origin ? bench::summarize(seconds).median * 1e6 : 0;
    const std::vector<double> all = bench::ranks_values(comm, median);
    const std::vector<double> origins = bench::ranks_values(comm, origin ? 1.0 : 0.0);
    std::vector<double> result;
    for (std::size_t r = 0; r < all.size(); ++r)
        if (origins[r] != 0) result.push_back(all[r]);
    return result;
}

std::vector<double> timed(MPI_Comm comm, const bench::Schedule& schedule, Epochs& epochs, int size,
                          double delay, double work_seconds, bool holder_present) {
    std::vector<double> seconds;
    for (int i = -schedule.warmup; i < schedule.iterations; ++i) {
        MPI_Barrier(comm);
        const double t = epochs.run(size, delay, work_seconds, holder_present);
        if (i >= 0) seconds.push_back(t);
    }
    return seconds;
}

std::byte pattern(std::size_t i, int size) {
    return static_cast<std::byte>((i * 7 + static_cast<std::size_t>(size)) & 0xFF);
}

}  // namespace

int main(int argc, char** argv) {
    bench::Session session(argc, argv,
                           {.suite = "rma",
                            .benchmark = "rma_overlap",
                            .description = "One-sided epochs: latency, and overlap with "
                                           "computation when the target opens late",
                            .min_ranks = 2,
                            .default_min_size = 16 * bench::KiB,
                            .default_max_size = 1 * bench::MiB});
    std::vector<std::string> syncs = {"fence", "gats", "lock"};
    std::vector<std::string> ops = {"put", "get"};
    bool one_to_many = false;
    double delay_fraction = 0.1;
    session.cli()
        .add_option("--sync", syncs, "Comma-separated synchronizations: fence, gats, lock")
        ->delimiter(',')
        ->check(CLI::IsMember({"fence", "gats", "lock"}));
    session.cli()
        .add_option("--op", ops, "Comma-separated operations: put, get")
        ->delimiter(',')
        ->check(CLI::IsMember({"put", "get"}));
    session.cli().add_flag("--one-to-many", one_to_many,
                           "Rank 0 is the origin of every other rank (default: pairs)");
    session.cli()
        .add_option("--delay", delay_fraction,
                    "Phase 2: how late the target (or Origin0's unlock) comes, as a "
                    "fraction of the work")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    session.cli().footer(fmt::format(
        "Defaults: {} epochs after {} warm-up ones per size and phase. --sync lock needs 3 "
        "ranks or more (ranks above 2 only join the barriers).",
        kEpochSchedule.iterations, kEpochSchedule.warmup));
    if (!session.start()) return session.exit_code();
    const bool lock_wanted = std::find(syncs.begin(), syncs.end(), "lock") != syncs.end();
    if (lock_wanted && session.ranks() < 3) return session.reject("--sync lock needs 3 ranks");

    const std::vector<std::size_t> sizes = session.sizes(1);
    if (sizes.empty()) return session.reject("no message size to transfer");
    const bench::Work work;
    const int largest = static_cast<int>(sizes.back());
    std::byte* window = nullptr;
    MPI_Win win;
    MPI_Win_allocate(largest, 1, MPI_INFO_NULL, session.comm(), &window, &win);
    std::vector<std::byte> local(static_cast<std::size_t>(largest));

    for (const std::string& sync_name : syncs) {
        const Sync sync = sync_name == "fence"  ? Sync::fence
                          : sync_name == "gats" ? Sync::gats
                                                : Sync::lock;
        const Roles roles = roles_of(sync, one_to_many, session.rank(), session.ranks());
        for (const std::string& op_name : ops) {
            const Op op = op_name == "put" ? Op::put : Op::get;
            Epochs epochs(sync, op, roles, win, local.data(), work);
            const std::string name = sync_name + "_" + op_name;
            auto check = [&](int size) {
                // The lock test's target leaves its loop before the last epoch ends.
                MPI_Barrier(session.comm());
                const bool target =
                    !roles.origins.empty() || (sync == Sync::lock && session.rank() == 2);
                const bool checks_window = op == Op::put && target;
                const bool checks_local = op == Op::get && roles.origin;
                bool ok = true;
                for (std::size_t i = 0; i < static_cast<std::size_t>(size); ++i) {
                    if (checks_window && window[i] != pattern(i, size)) ok = false;
                    if (checks_local && local[i] != pattern(i, size)) ok = false;
                }
                session.check(ok, fmt::format("{} of {} B: the data", name, size));
            };
            auto prepare = [&](int size) {
                // The data goes from the origin (Put) or the target (Get).
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, session.rank(), 0, win);
                for (std::size_t i = 0; i < static_cast<std::size_t>(size); ++i) {
                    local[i] = op == Op::put ? pattern(i, size) : std::byte{0};
                    window[i] = op == Op::get ? pattern(i, size) : std::byte{0};
                }
                MPI_Win_unlock(session.rank(), win);
                MPI_Barrier(session.comm());
            };
            std::vector<std::vector<double>> phase1;
            for (std::size_t size : sizes) {
                const int n = static_cast<int>(size);
                prepare(n);
                const auto schedule = session.schedule(size, kEpochSchedule);
                phase1.push_back(
                    origins_medians(session.comm(), roles.origin,
                                    timed(session.comm(), schedule, epochs, n, 0, 0, false)));
                check(n);
                session.report(
                    bench::per_rank("epoch_" + name, "us", size, phase1.back(), schedule));
            }
            // The work: phase 1's epoch at the largest size (the slowest origin's).
            const double work_us = *std::max_element(phase1.back().begin(), phase1.back().end());
            const double work_seconds = work_us * 1e-6;
            for (std::size_t size : sizes) {
                const int n = static_cast<int>(size);
                prepare(n);
                const auto schedule = session.schedule(size, kEpochSchedule);
                const auto overlapped =
                    origins_medians(session.comm(), roles.origin,
                                    timed(session.comm(), schedule, epochs, n,
                                          delay_fraction * work_seconds, work_seconds, true));
                check(n);
                session.report(
                    bench::per_rank("overlapped_" + name, "us", size, overlapped, schedule));
            }
            // What the computation took (a progress thread sharing its core, or
            // a loop calibrated while one ran, makes it differ from work_us).
            session.report(
                bench::per_rank("work_" + name, "us", sizes.back(),
                                origins_medians(session.comm(), roles.origin, epochs.computed),
                                session.schedule(sizes.back(), kEpochSchedule)));
        }
    }
    MPI_Win_free(&win);

    const double footprint = bench::footprint_kib(session.comm());
    session.report(bench::per_rank("footprint", "KiB", sizes.back(),
                                   bench::ranks_values(session.comm(), footprint),
                                   session.schedule(sizes.back(), kEpochSchedule)));
    return session.finish();
}
