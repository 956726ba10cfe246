// LU decomposition over MPI one-sided communication, after seed 002's kernel:
// the rows of a dense n x n matrix are dealt cyclically to the ranks; at step
// k the owner of row k, final by then, puts its cells k..n-1 into every other
// rank's window, and every rank eliminates column k from its rows below k.
// Variants: `gats` (post/start/complete/wait each step), `gats-nonblocking`
// (the same with this runtime's MPIX_Win_i* calls: the owner does not wait
// for its puts to complete before it eliminates, and a target posts its next
// exposure while it eliminates), `fence` (one fence per step). The window
// holds two row buffers used alternately, so step k + 1's row may arrive
// while step k's is still read.
//
// The matrix is diagonally dominant (no pivoting needed) and the system
// A x = b has a known solution; after the factorization rank 0 gathers the
// factors, solves, and checks the relative residual ||A x - b|| / (||A|| ||x||)
// against a tolerance. Prints one line of results; rank 0 prints "No Errors"
// after MPI_Finalize when the residual passes.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/context.hpp"
#include "common/report.hpp"

namespace {

enum class Variant { gats, gats_nonblocking, fence };

struct Options {
    int n = 512;
    Variant variant = Variant::gats;
    int repeat = 1;
    double tolerance = 1e-12;
    std::string csv_path;
};

// Entry (i, j) of the matrix, the same on every rank: a pseudo-random value in
// [0, 1) plus n on the diagonal.
double entry(int n, int i, int j) {
    std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull ^
                      static_cast<std::uint64_t>(j) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    const double value = static_cast<double>(h >> 11) / static_cast<double>(1ull << 53);
    return value + (i == j ? n : 0.0);
}

double solution(int j) {
    return 1.0 + j % 7;
}

struct Rank {
    int me = 0, size = 1;
    int owner(int row) const { return row % size; }
    int local(int row) const { return row / size; }
    int rows(int n) const { return n / size + (me < n % size ? 1 : 0); }
    int global(int local_row) const { return local_row * size + me; }
};

class Factorization {
  public:
    Factorization(const Options& options, const Rank& rank) : o_(options), r_(rank) {
        const int n = o_.n;
        a_.resize(static_cast<std::size_t>(r_.rows(n)) * n);
        for (int l = 0; l < r_.rows(n); ++l)
            for (int j = 0; j < n; ++j) at(l, j) = entry(n, r_.global(l), j);
        MPI_Win_allocate(static_cast<MPI_Aint>(2 * n * sizeof(double)), sizeof(double),
                         MPI_INFO_NULL, MPI_COMM_WORLD, &buffers_, &win_);
        MPI_Comm_group(MPI_COMM_WORLD, &world_);
    }
    ~Factorization() {
        MPI_Group_free(&world_);
        MPI_Win_free(&win_);
    }

    void run() {
        if (o_.variant == Variant::fence) MPI_Win_fence(MPI_MODE_NOPRECEDE, win_);
        for (int k = 0; k < o_.n; ++k) eliminate(k, receive(k));
        if (o_.variant == Variant::fence) MPI_Win_fence(MPI_MODE_NOSUCCEED, win_);
        finish_pending();
    }

    std::vector<double>& rows() { return a_; }

  private:
    double& at(int l, int j) { return a_[static_cast<std::size_t>(l) * o_.n + j]; }
    double* slot(int k) { return buffers_ + static_cast<std::size_t>(k % 2) * o_.n; }

    // Group of every rank but `rank`.
    MPI_Group others(int rank) {
        MPI_Group group;
        MPI_Group_excl(world_, 1, &rank, &group);
        return group;
    }
    MPI_Group only(int rank) {
        MPI_Group group;
        MPI_Group_incl(world_, 1, &rank, &group);
        return group;
    }

    // Sends row k if this rank owns it, and returns where its cells are.
    const double* receive(int k) {
        const int owner = r_.owner(k);
        const bool mine = owner == r_.me;
        const double* row = mine ? &at(r_.local(k), 0) : slot(k);
        if (r_.size == 1) return row;
        switch (o_.variant) {
            case Variant::fence:
                if (mine) put_to_all(k);
                MPI_Win_fence(0, win_);
                break;
            case Variant::gats:
                if (mine) {
                    MPI_Group group = others(owner);
                    MPI_Win_start(group, 0, win_);
                    put_to_all(k);
                    MPI_Win_complete(win_);
                    MPI_Group_free(&group);
                } else {
                    MPI_Group group = only(owner);
                    MPI_Win_post(group, 0, win_);
                    MPI_Win_wait(win_);
                    MPI_Group_free(&group);
                }
                break;
            case Variant::gats_nonblocking:
                nonblocking_step(k, mine, owner);
                break;
        }
        return row;
    }

    void nonblocking_step(int k, bool mine, int owner) {
#ifdef SI_MPI
        // The owner's epoch completes in the background (its request is
        // waited before the window is used again); a target's exposure for
        // this step was posted during the previous one.
        finish_pending();
        if (mine) {
            MPI_Group group = others(owner);
            MPIX_Win_istart(group, 0, win_, &pending_[0]);
            put_to_all(k);
            MPIX_Win_icomplete(win_, &pending_[1]);
            MPI_Group_free(&group);
        } else {
            if (!posted_) post(k);
            MPI_Request closing;
            MPIX_Win_iwait(win_, &closing);
            MPI_Wait(&closing, MPI_STATUS_IGNORE);
            posted_ = false;
        }
        // Expose the next step's buffer now, if the next row is not ours.
        if (k + 1 < o_.n && r_.owner(k + 1) != r_.me) {
            post(k + 1);
            posted_ = true;
        }
#else
        (void)k, (void)mine, (void)owner;
#endif
    }

#ifdef SI_MPI
    void post(int k) {
        MPI_Group group = only(r_.owner(k));
        MPI_Request opened;
        MPIX_Win_ipost(group, 0, win_, &opened);
        MPI_Request_free(&opened);
        MPI_Group_free(&group);
    }
#endif

    void finish_pending() {
        MPI_Waitall(2, pending_, MPI_STATUSES_IGNORE);
    }

    void put_to_all(int k) {
        const int n = o_.n;
        const double* row = &at(r_.local(k), 0);
        for (int peer = 0; peer < r_.size; ++peer)
            if (peer != r_.me)
                MPI_Put(row + k, n - k, MPI_DOUBLE, peer, (k % 2) * n + k, n - k, MPI_DOUBLE, win_);
    }

    // Column k of every own row below k: multiplier into L, update of U.
    void eliminate(int k, const double* pivot) {
        const int n = o_.n;
        for (int l = 0; l < r_.rows(n); ++l) {
            if (r_.global(l) <= k) continue;
            double* row = &at(l, 0);
            const double factor = row[k] / pivot[k];
            row[k] = factor;
            for (int j = k + 1; j < n; ++j) row[j] -= factor * pivot[j];
        }
    }

    const Options& o_;
    const Rank& r_;
    std::vector<double> a_;  // own rows, row-major
    double* buffers_ = nullptr;
    MPI_Win win_ = MPI_WIN_NULL;
    MPI_Group world_ = MPI_GROUP_NULL;
    MPI_Request pending_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    bool posted_ = false;
};

// Rank 0 gathers the factors, solves L U x = b and returns the relative
// residual of the original system (other ranks return 0).
double residual(const Options& o, const Rank& r, std::vector<double>& rows) {
    const int n = o.n;
    std::vector<double> lu;
    if (r.me == 0) lu.resize(static_cast<std::size_t>(n) * n);
    for (int l = 0; l < r.rows(n); ++l) {
        const int i = r.global(l);
        if (r.me == 0)
            std::copy_n(&rows[static_cast<std::size_t>(l) * n], n,
                        &lu[static_cast<std::size_t>(i) * n]);
        else
            MPI_Send(&rows[static_cast<std::size_t>(l) * n], n, MPI_DOUBLE, 0, i, MPI_COMM_WORLD);
    }
    if (r.me != 0) return 0;
    for (int i = 0; i < n; ++i)
        if (r.owner(i) != 0)
            MPI_Recv(&lu[static_cast<std::size_t>(i) * n], n, MPI_DOUBLE, r.owner(i), i,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::vector<double> b(n), x(n);
    for (int i = 0; i < n; ++i) {
        b[i] = 0;
        for (int j = 0; j < n; ++j) b[i] += entry(n, i, j) * solution(j);
    }
    for (int i = 0; i < n; ++i) {  // L y = b (unit diagonal)
        double s = b[i];
        for (int j = 0; j < i; ++j) s -= lu[static_cast<std::size_t>(i) * n + j] * x[j];
        x[i] = s;
    }
    for (int i = n - 1; i >= 0; --i) {  // U x = y
        double s = x[i];
        for (int j = i + 1; j < n; ++j) s -= lu[static_cast<std::size_t>(i) * n + j] * x[j];
        x[i] = s / lu[static_cast<std::size_t>(i) * n + i];
    }
    double worst = 0, a_norm = 0, x_norm = 0;
    for (int i = 0; i < n; ++i) {
        double s = 0, row_sum = 0;
        for (int j = 0; j < n; ++j) {
            s += entry(n, i, j) * x[j];
            row_sum += std::fabs(entry(n, i, j));
        }
        worst = std::max(worst, std::fabs(s - b[i]));
        a_norm = std::max(a_norm, row_sum);
        x_norm = std::max(x_norm, std::fabs(x[i]));
    }
    return worst / (a_norm * x_norm);
}

const char* name_of(Variant v) {
    switch (v) {
        case Variant::gats:
            return "gats";
        case Variant::gats_nonblocking:
            return "gats-nonblocking";
        case Variant::fence:
            return "fence";
    }
    return "";
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App app{"LU decomposition over MPI one-sided communication (seed 002's kernel)"};
    app.add_option("--n", o.n, "matrix size")->check(CLI::PositiveNumber);
    const std::map<std::string, Variant> variants{{"gats", Variant::gats},
                                                  {"gats-nonblocking", Variant::gats_nonblocking},
                                                  {"fence", Variant::fence}};
    app.add_option("--variant", o.variant,
                   "synchronization: gats, gats-nonblocking (this "
                   "runtime's MPIX_ calls), fence")
        ->transform(CLI::CheckedTransformer(variants, CLI::ignore_case));
    app.add_option("--repeat", o.repeat, "factorizations timed (each from a fresh matrix)")
        ->check(CLI::PositiveNumber);
    app.add_option("--tolerance", o.tolerance, "largest relative residual that passes");
    app.add_option("--csv", o.csv_path,
                   "also write the results as CSV (microbench/README.md; suite nas, benchmark "
                   "lu.<variant>-<n>, metrics time (per rank) and mops)");
    CLI11_PARSE(app, argc, argv);

    MPI_Init(&argc, &argv);
    Rank rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank.me);
    MPI_Comm_size(MPI_COMM_WORLD, &rank.size);
#ifndef SI_MPI
    if (o.variant == Variant::gats_nonblocking) {
        if (rank.me == 0)
            std::fprintf(stderr, "lu: gats-nonblocking needs this runtime's MPIX_ calls\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#endif
    // The fastest of the repetitions, each rank's own time in it.
    double best = 1e300, mine_in_best = 0, last_residual = 0;
    for (int run = 0; run < o.repeat; ++run) {
        Factorization lu(o, rank);
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        lu.run();
        double elapsed = MPI_Wtime() - start, slowest = 0;
        MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (slowest < best) {
            best = slowest;
            mine_in_best = elapsed;
        }
        last_residual = residual(o, rank, lu.rows());
    }
    const bool passed = last_residual <= o.tolerance;
    const double flops = 2.0 / 3.0 * o.n * static_cast<double>(o.n) * o.n;
    std::vector<double> rank_seconds(static_cast<std::size_t>(rank.size));
    MPI_Gather(&mine_in_best, 1, MPI_DOUBLE, rank_seconds.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    std::optional<si::bench::Context> context;
    if (!o.csv_path.empty()) context = si::bench::collect_context(MPI_COMM_WORLD, argc, argv);
    int exit_code = passed ? 0 : 1;
    if (rank.me == 0) {
        fmt::print("lu n={} variant={} ranks={} time_s={:.6f} gflops={:.3f} residual={:.3e} {}\n",
                   o.n, name_of(o.variant), rank.size, best, flops / best * 1e-9, last_residual,
                   passed ? "verified" : "FAILED");
        if (context) {
            try {
                const si::bench::Schedule schedule{.iterations = o.repeat, .warmup = 0, .batch = 1};
                si::bench::Reporter reporter(
                    "nas", fmt::format("lu.{}-{}", name_of(o.variant), o.n), *context, o.csv_path,
                    /*quiet=*/true);
                reporter.add(si::bench::per_rank("time", "s", 0, rank_seconds, schedule));
                const double mops[] = {flops / best * 1e-6};
                reporter.add(si::bench::per_rank("mops", "Mop/s", 0, mops, schedule));
            } catch (const std::runtime_error& e) {
                fmt::print(stderr, "lu: {}\n", e.what());
                exit_code = 3;
            }
        }
        std::fflush(stdout);
    }
    MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank.me == 0 && exit_code == 0) std::printf("No Errors\n");
    return exit_code;
}
