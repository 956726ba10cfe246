#include "floor.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "units.hpp"

namespace si::harness {

namespace {

constexpr const char* kFloorBenchmark = "floor";

}  // namespace

std::optional<CacheLineFloor> find_cache_line_floor(const std::vector<Row>& rows) {
    std::optional<double> latency_ns, rate;
    for (const Row& row : rows) {
        if (row.benchmark != kFloorBenchmark) continue;
        if (row.metric == "latency_min" && row.unit == "ns")
            latency_ns = std::min(row.value, latency_ns.value_or(row.value));
        if (row.metric == "message_rate_max") rate = std::max(row.value, rate.value_or(row.value));
    }
    if (!latency_ns || !rate) return std::nullopt;
    return CacheLineFloor{*latency_ns / 1000, *rate};
}

std::string format_rate(double per_second) {
    if (per_second >= 1e6) {
        const double millions = per_second / 1e6;
        const int decimals = millions >= 100 ? 0 : millions >= 10 ? 1 : 2;
        return fmt::format("{:.{}f} M msg/s", millions, decimals);
    }
    if (per_second >= 1e3) return fmt::format("{:.0f} k msg/s", per_second / 1e3);
    return fmt::format("{:.0f} msg/s", per_second);
}

std::string format_floor(const CacheLineFloor& floor) {
    return fmt::format(
        "cache-line floor: {:.3f} us one way, {} one way (two processes, one 64-byte line "
        "in shared memory, no MPI: microbench/p2p/floor)",
        floor.latency_us, format_rate(floor.message_rate));
}

std::string floor_ratios_line(const std::string& what,
                              const std::vector<std::pair<std::string, double>>& ratios) {
    std::string cells;
    for (const auto& [config, ratio] : ratios)
        cells += fmt::format("{}{} {:.3g}", cells.empty() ? "" : ", ", config, ratio);
    return cells.empty() ? "" : fmt::format("{}: {}\n", what, cells);
}

void mark_floor(std::vector<Figure>& figures, const CacheLineFloor& floor) {
    for (Figure& figure : figures) {
        if (figure.reference_y) continue;
        const bool latency = figure.name == "pingpong-latency" ||
                             (figure.name.find("osu_latency") != std::string::npos &&
                              figure.ylabel.find("(us)") != std::string::npos);
        const bool rate = figure.name.find("osu_mbw_mr") != std::string::npos &&
                          figure.ylabel.find("msg/s") != std::string::npos;
        if (latency) {
            figure.reference_y = floor.latency_us;
            figure.reference_label = fmt::format("cache-line floor {:.3f} us", floor.latency_us);
        } else if (rate) {
            figure.reference_y = floor.message_rate;
            figure.reference_label =
                fmt::format("cache-line floor {}", format_rate(floor.message_rate));
        }
    }
}

}  // namespace si::harness
