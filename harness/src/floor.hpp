// The cache-line floor (microbench/p2p/floor): one 64-byte line's one-way latency
// and a stream of cache-line messages between two processes in shared memory, with
// no MPI on the path. No library's small-message latency or message rate on the
// host can beat it, so sibench prints it beside every such table and figure: the
// ping-pong study's latency and (at small sizes) its rates, OSU's latency, bandwidth
// and message rate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plot.hpp"
#include "results.hpp"

namespace si::harness {

struct CacheLineFloor {
    double latency_us = 0;    // one way
    double message_rate = 0;  // messages per second, one way
};

// The floor of a sweep: the best the rows of benchmark `floor` saw, the least
// latency_min (ns) and the greatest message_rate_max (msg/s) of its runs. A limit is
// what the machine can do, and other work on the host only ever slows a sample (by
// a factor of 4 here at a load average of 8), so the best sample of every round is the
// estimate, not their median. nullopt without both.
std::optional<CacheLineFloor> find_cache_line_floor(const std::vector<Row>& rows);

// "cache-line floor: 0.045 us one way, 110 M msg/s one way (two processes, one
// 64-byte line in shared memory, no MPI)".
std::string format_floor(const CacheLineFloor& floor);

// "110 M msg/s", "5.43 M msg/s", "870 k msg/s": a message rate in few digits.
std::string format_rate(double per_second);

// Per configuration, a value over the floor, as one line after a table:
// "<what>: simpi-none 10.7, mpich 8.40" (configurations without a value left out;
// "" when none has one).
std::string floor_ratios_line(const std::string& what,
                              const std::vector<std::pair<std::string, double>>& ratios);

// A dashed line at the floor in the figures that show small-message latency in us
// (ping-pong, OSU's osu_latency) or a message rate in msg/s (OSU's osu_mbw_mr);
// figures that already have a reference line keep it.
void mark_floor(std::vector<Figure>& figures, const CacheLineFloor& floor);

}  // namespace si::harness
