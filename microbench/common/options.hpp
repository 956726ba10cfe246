// Command-line options shared by every micro-benchmark, the message-size sweep and
// the warm-up/iteration schedule.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace si::bench {

inline constexpr std::size_t KiB = std::size_t{1} << 10;
inline constexpr std::size_t MiB = std::size_t{1} << 20;

// What one size runs: `warmup` untimed repetitions, then `iterations` timed samples
// of `batch` repetitions each (0: chosen by time_samples). A repetition is one unit
// of the measured operation (a round trip, a window of messages).
struct Schedule {
    int iterations = 0;
    int warmup = 0;
    int batch = 0;
};

// Per-measurement defaults. Large messages (above Options::large_above) default to
// fewer repetitions, so a full sweep finishes in seconds on a laptop.
struct ScheduleDefaults {
    int iterations = 1000;
    int warmup = 100;
    int large_iterations = 100;
    int large_warmup = 10;
};

struct Options {
    std::size_t min_size = 0;
    std::size_t max_size = 4 * MiB;
    // --sizes: an explicit list that replaces the sweep (empty: the sweep).
    std::vector<std::size_t> size_list;
    std::size_t large_above = 64 * KiB;
    // Negative: not given on the command line, the measurement's default applies.
    int iterations = -1;
    int warmup = -1;
    int large_iterations = -1;
    int large_warmup = -1;
    int batch = 0;  // repetitions per sample; 0: as many as make the clock negligible
    std::string csv_path;
    bool quiet = false;

    // Registers the shared options; the current field values are the defaults.
    void add_to(CLI::App& app);

    // After parsing: a --sizes list is sorted and deduplicated, and min_size /
    // max_size become its ends, so that buffers sized by max_size fit it.
    void apply_size_list();

    // The sizes to measure: the --sizes list, else size_sweep(min_size, max_size).
    [[nodiscard]] std::vector<std::size_t> sizes() const;

    // An explicit --iterations also caps the large-message count (unless
    // --large-iterations is given), so "--iterations 3" makes a short run everywhere;
    // the same holds for --warmup.
    [[nodiscard]] Schedule schedule_for(std::size_t size, const ScheduleDefaults& defaults) const;
};

// 0 (when `min` is 0), then every power of two in [min, max], ascending.
std::vector<std::size_t> size_sweep(std::size_t min, std::size_t max);

// Largest size accepted: MPI counts are int, and a sweep to 1 GiB already needs
// more memory than a laptop should give a benchmark.
inline constexpr std::size_t kMaxMessageSize = std::size_t{1} << 30;

}  // namespace si::bench
