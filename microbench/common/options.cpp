#include "common/options.hpp"

#include <algorithm>
#include <bit>

#include <CLI/CLI.hpp>

namespace si::bench {

namespace {

// Sizes accept unit suffixes (64k, 4m, 4MiB); k means 1024, as message sizes always do.
CLI::Option* add_size(CLI::App& app, const char* name, std::size_t& value, const char* help) {
    return app.add_option(name, value, help)
        ->transform(CLI::AsSizeValue(false))
        ->check(CLI::Range(std::size_t{0}, kMaxMessageSize))
        ->capture_default_str();
}

CLI::Option* add_count(CLI::App& app, const char* name, int& value, int minimum, const char* help) {
    return app.add_option(name, value, help)->check(CLI::Range(minimum, 1 << 30));
}

}  // namespace

void Options::add_to(CLI::App& app) {
    add_size(app, "--min-size", min_size, "Smallest message size (bytes; k/m suffixes)");
    add_size(app, "--max-size", max_size, "Largest message size (bytes; k/m suffixes)");
    app.add_option("--sizes", size_list,
                   "Comma-separated message sizes (k/m suffixes) measured instead of the "
                   "--min-size..--max-size sweep, e.g. 32k,256k")
        ->delimiter(',')
        ->transform(CLI::AsSizeValue(false))
        ->check(CLI::Range(std::size_t{0}, kMaxMessageSize));
    add_size(app, "--large-above", large_above,
             "Sizes above this use the large-message iteration counts");
    add_count(app, "--iterations", iterations, 1,
              "Timed repetitions per size (default: per measurement)");
    add_count(app, "--warmup", warmup, 0,
              "Untimed repetitions before timing (default: per measurement)");
    add_count(app, "--large-iterations", large_iterations, 1,
              "Timed repetitions per large size (default: per measurement, at most --iterations)");
    add_count(app, "--large-warmup", large_warmup, 0,
              "Untimed repetitions per large size (default: per measurement, at most --warmup)");
    add_count(app, "--batch", batch, 0,
              "Repetitions per timed sample; 0 picks enough for the clock to cost under "
              "0.5% of a sample")
        ->capture_default_str();
    app.add_option("--csv", csv_path, "Write one tidy CSV row per measured statistic to this file");
    app.add_flag("--quiet,-q", quiet, "Print neither the context block nor the table");
}

void Options::apply_size_list() {
    if (size_list.empty()) return;
    std::sort(size_list.begin(), size_list.end());
    size_list.erase(std::unique(size_list.begin(), size_list.end()), size_list.end());
    min_size = size_list.front();
    max_size = size_list.back();
}

std::vector<std::size_t> Options::sizes() const {
    return size_list.empty() ? size_sweep(min_size, max_size) : size_list;
}

Schedule Options::schedule_for(std::size_t size, const ScheduleDefaults& defaults) const {
    const int small_iterations = iterations > 0 ? iterations : defaults.iterations;
    const int small_warmup = warmup >= 0 ? warmup : defaults.warmup;
    if (size <= large_above) return {small_iterations, small_warmup, batch};
    const int big_iterations = large_iterations > 0
                                   ? large_iterations
                                   : std::min(defaults.large_iterations, small_iterations);
    const int big_warmup =
        large_warmup >= 0 ? large_warmup : std::min(defaults.large_warmup, small_warmup);
    return {big_iterations, big_warmup, batch};
}

std::vector<std::size_t> size_sweep(std::size_t min, std::size_t max) {
    std::vector<std::size_t> sizes;
    if (min == 0) sizes.push_back(0);
    for (std::size_t size = std::bit_ceil(std::max<std::size_t>(min, 1)); size <= max; size *= 2)
        sizes.push_back(size);
    return sizes;
}

}  // namespace si::bench
