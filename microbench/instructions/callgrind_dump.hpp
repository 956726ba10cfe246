// Reading callgrind's profile dumps (format "callgrind format", version 1: a header
// of `key: value` lines, then cost lines). Only the totals are read: the event names
// (`events: Ir ...`) and their sums (`totals:`, or `summary:` when a writer leaves
// totals out). MPI-free, so that it is tested on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace si::bench::instructions {

// The total of event `event` ("Ir": instructions executed) in a dump's text, or
// nullopt when the text has no such event or no totals line.
std::optional<std::uint64_t> dump_total(std::string_view text, std::string_view event = "Ir");

// The file callgrind writes for the `dump`-th CALLGRIND_DUMP_STATS (1, 2, ...) of a
// process whose --callgrind-out-file is `out_file`: "<out_file>.<dump>".
std::string dump_path(const std::string& out_file, int dump);

}  // namespace si::bench::instructions
