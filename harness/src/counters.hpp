// The runtime's own counters of every simpi run (SI_STATS): a run's ranks
// write them at MPI_Finalize into counters/<run id>.<rank>; counters.csv
// gathers them, and the summary shows what explains a progression mode's
// numbers: the wake-ups of its threads per message received, and how many of
// them were futile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results.hpp"

namespace si::harness {

struct CounterRow {
    std::string run, study, config;
    int rank = 0;
    std::string counter;
    std::uint64_t value = 0;
};

// The SI_STATS value of a run: the prefix its ranks' files get.
std::string counters_prefix(const std::string& dir, const std::string& run_id);

// Every counter of the ok runs whose ranks wrote them (runs of other
// libraries write none).
std::vector<CounterRow> collect_counters(const std::string& dir, const std::vector<RunRecord>& runs);

void write_counters(const std::string& path, const std::vector<CounterRow>& rows);
// Empty when the file does not exist.
std::vector<CounterRow> read_counters(const std::string& path);

// Per study and configuration whose threads count wake-ups: messages
// received, wake-ups, futile wake-ups, summed over ranks and runs, and per
// message. Empty when no run counted a wake-up.
std::string format_wakeup_table(const std::vector<CounterRow>& rows);

}  // namespace si::harness
