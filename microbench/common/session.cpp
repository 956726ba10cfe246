#include "common/session.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/context.hpp"

namespace si::bench {

int initialize_mpi(int& argc, char**& argv, bool thread_multiple) {
    const char* multiple = std::getenv("SI_BENCH_THREAD_MULTIPLE");
    if (thread_multiple || (multiple != nullptr && std::string_view(multiple) == "1")) {
        int provided = MPI_THREAD_SINGLE;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        return MPI_THREAD_MULTIPLE;
    }
    MPI_Init(&argc, &argv);
    return MPI_THREAD_SINGLE;
}

Session::Session(int& argc, char**& argv, BenchmarkInfo info)
    : info_(std::move(info)), argc_(argc), argv_(argv) {
    requested_thread_level_ = initialize_mpi(argc_, argv_, info_.needs_thread_multiple);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
    options_.min_size = info_.default_min_size;
    options_.max_size = info_.default_max_size;
    app_ = std::make_unique<CLI::App>(info_.description, info_.benchmark);
    options_.add_to(*app_);
}

Session::~Session() {
    reporter_.reset();  // closes the CSV before MPI goes away
    MPI_Finalize();
    // The verdict comes after MPI_Finalize, so that a failure there cannot pass a test.
    if (rank_ == 0 && failures_total_) {
        if (*failures_total_ == 0)
            fmt::print("No Errors\n");
        else
            fmt::print("Found {} errors\n", *failures_total_);
        std::fflush(stdout);
    }
}

int Session::reject(std::string_view message) {
    if (rank_ == 0) fmt::print(stderr, "{}: {}\n", info_.benchmark, message);
    exit_code_ = 2;
    return exit_code_;
}

bool Session::start() {
    // Every rank parses the same arguments and so reaches the same verdict; only rank
    // 0 speaks, so that --help and errors are printed once.
    try {
        app_->parse(argc_, argv_);
    } catch (const CLI::ParseError& e) {
        exit_code_ = rank_ == 0 ? app_->exit(e) : e.get_exit_code();
        return false;
    }
    options_.apply_size_list();
    if (ranks_ < info_.min_ranks || (info_.max_ranks > 0 && ranks_ > info_.max_ranks)) {
        const auto wanted = info_.min_ranks == info_.max_ranks
                                ? fmt::format("{}", info_.min_ranks)
                                : fmt::format("at least {}", info_.min_ranks);
        reject(fmt::format("needs {} ranks, got {}", wanted, ranks_));
        return false;
    }
    if (options_.min_size > options_.max_size) {
        reject("--min-size is larger than --max-size");
        return false;
    }

    Context context = collect_context(comm(), argc_, argv_);
    context.thread_level_requested = requested_thread_level_;
    if (info_.needs_thread_multiple && context.thread_level < MPI_THREAD_MULTIPLE) {
        reject(fmt::format("needs MPI_THREAD_MULTIPLE, the library provides {}",
                           thread_level_name(context.thread_level)));
        return false;
    }
    if (rank_ == 0 && context.thread_level < context.thread_level_requested)
        fmt::print(stderr, "{}: warning: asked for thread level {}, the library provides {}\n",
                   info_.benchmark, thread_level_name(context.thread_level_requested),
                   thread_level_name(context.thread_level));
    int opened = 1;
    if (rank_ == 0) {
        try {
            reporter_ = std::make_unique<Reporter>(info_.suite, info_.benchmark, std::move(context),
                                                   options_.csv_path, options_.quiet);
        } catch (const std::exception& e) {
            fmt::print(stderr, "{}: {}\n", info_.benchmark, e.what());
            opened = 0;
        }
    }
    // The other ranks must not start measuring against a rank 0 that gave up.
    MPI_Bcast(&opened, 1, MPI_INT, 0, comm());
    if (opened == 0) {
        exit_code_ = 1;
        return false;
    }
    return true;
}

std::vector<std::size_t> Session::sizes(std::size_t at_least) const {
    std::vector<std::size_t> sizes = options_.sizes();
    std::erase_if(sizes, [&](std::size_t size) { return size < at_least; });
    return sizes;
}

void Session::report(const Measurement& m) {
    if (reporter_) reporter_->add(m);
}

void Session::check(bool ok, std::string_view what) {
    if (ok) return;
    ++failures_;
    fmt::print(stderr, "{}: rank {}: check failed: {}\n", info_.benchmark, rank_, what);
}

int Session::finish() {
    int total = 0;
    MPI_Allreduce(&failures_, &total, 1, MPI_INT, MPI_SUM, comm());
    failures_total_ = total;
    return total == 0 ? 0 : 1;
}

}  // namespace si::bench
