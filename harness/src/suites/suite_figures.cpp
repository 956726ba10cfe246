#include "suites/suite_figures.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "compare.hpp"
#include "config.hpp"
#include "floor.hpp"
#include "suites/suite.hpp"
#include "units.hpp"

namespace si::harness {

namespace {

// (study, benchmark, ranks, metric): one figure.
using PlotKey = std::tuple<std::string, std::string, int, std::string>;

// One figure's values: config -> size -> every round's value.
using Values = std::map<std::string, std::map<std::uint64_t, std::vector<double>>,
                        decltype(&config_name_less)>;

struct Collected {
    std::map<PlotKey, Values> values;
    std::map<PlotKey, std::string> units;
};

Collected collect(const std::vector<Row>& rows) {
    const auto& wanted = suite_plotted_metrics();
    Collected c;
    for (const auto& row : rows) {
        if (row.suite != "osu" && row.suite != "imb") continue;
        if (std::find(wanted.begin(), wanted.end(), row.metric) == wanted.end()) continue;
        const PlotKey key{row.study, row.benchmark, row.ranks, row.metric};
        auto [it, fresh] = c.values.try_emplace(key, Values(&config_name_less));
        it->second[row.config][row.msg_size].push_back(row.value);
        c.units[key] = row.unit;
    }
    return c;
}

// "latency_mean" -> "latency", "message_rate_mean" -> "message rate".
std::string measurement_words(const std::string& metric) {
    std::string words = metric.ends_with("_mean") ? metric.substr(0, metric.size() - 5) : metric;
    std::replace(words.begin(), words.end(), '_', ' ');
    return words;
}

std::string file_part(const std::string& text) {
    std::string part;
    for (char c : text)
        part += std::isalnum(static_cast<unsigned char>(c)) || c == '_'
                    ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                    : '-';
    return part;
}

std::string figure_name(const PlotKey& key, const Collected& c) {
    const auto& [study, benchmark, ranks, metric] = key;
    std::set<std::string> metrics;
    std::set<int> ranks_seen;
    for (const auto& [other, values] : c.values) {
        if (std::get<0>(other) != study) continue;
        if (std::get<1>(other) == benchmark) metrics.insert(std::get<3>(other));
        ranks_seen.insert(std::get<2>(other));
    }
    std::string name = fmt::format("{}-{}", study, file_part(benchmark));
    if (metrics.size() > 1) name += "-" + file_part(measurement_words(metric));
    if (ranks_seen.size() > 1) name += fmt::format("-r{}", ranks);
    return name;
}

// The peers this runtime is measured against: MPICH and Open MPI as users run them.
constexpr std::string_view kPeers[] = {"mpich", "openmpi"};

// The faster peer's value at one size: the lower of a latency, the higher of a rate.
std::optional<double> faster_peer(const Values& values, std::uint64_t size, bool lower_better) {
    std::optional<double> best;
    for (std::string_view peer : kPeers) {
        const auto config = values.find(std::string(peer));
        if (config == values.end()) continue;
        const auto at = config->second.find(size);
        if (at == config->second.end()) continue;
        const double value = median_of(at->second);
        if (!best || (lower_better ? value < *best : value > *best)) best = value;
    }
    return best;
}

// Under a latency or rate table, its small sizes over the cache-line floor (a
// bandwidth table only when its benchmark has no message-rate table: osu_mbw_mr has).
std::string floor_lines(const std::string& benchmark, const std::string& metric,
                        const Values& values, const std::set<std::uint64_t>& sizes,
                        const CacheLineFloor& floor, bool has_rate_table) {
    if (metric == "bandwidth_mean" && has_rate_table) return "";
    // osu_bibw counts the bytes of both directions; the floor's stream is one way.
    const double directions = benchmark == "osu_bibw" ? 2 : 1;
    const bool latency = metric == "latency_mean";
    const bool rate = metric == "message_rate_mean" || metric == "bandwidth_mean";
    if (!latency && !rate) return "";
    std::string text;
    for (auto size : sizes) {
        if (size > 1024 || (size == 0 && !latency)) continue;
        if (size != 0 && size != 8 && size != 1024) continue;
        std::vector<std::pair<std::string, double>> ratios;
        for (const auto& [config, by_size] : values) {
            const auto at = by_size.find(size);
            if (at == by_size.end()) continue;
            const double value = median_of(at->second);
            const double per_second = metric == "bandwidth_mean"
                                          ? value * 1e6 / static_cast<double>(size) / directions
                                          : value;
            ratios.emplace_back(
                config, latency ? value / floor.latency_us : per_second / floor.message_rate);
        }
        text += floor_ratios_line(fmt::format("{} {} / the cache-line floor's", size_label(size),
                                              latency          ? "latency"
                                              : directions > 1 ? "messages per second each way"
                                                               : "messages per second"),
                                  ratios);
    }
    return text;
}

}  // namespace

const std::vector<std::string>& suite_plotted_metrics() {
    static const std::vector<std::string> metrics = {"latency_mean",   "time_mean",
                                                     "bandwidth_mean", "message_rate_mean",
                                                     "overall_mean",   "overlap_mean"};
    return metrics;
}

std::vector<Figure> suite_figures(const std::vector<Row>& rows) {
    const Collected c = collect(rows);
    std::vector<Figure> figures;
    for (const auto& [key, values] : c.values) {
        const auto& [study, benchmark, ranks, metric] = key;
        const std::string suite =
            std::any_of(rows.begin(), rows.end(),
                        [&study = study](const Row& r) {  // clang < 16: no binding capture
                            return r.study == study && r.suite == "imb";
                        })
                ? "IMB"
                : "OSU";
        Figure figure;
        figure.name = figure_name(key, c);
        figure.title = fmt::format("{} {}: {}, {} ranks (study {})", suite, benchmark,
                                   measurement_words(metric), ranks, study);
        const std::string& unit = c.units.at(key);
        figure.ylabel = fmt::format("{}{}, mean", measurement_words(metric),
                                    unit.empty() ? "" : " (" + unit + ")");
        bool sized = false;
        for (const auto& [config, by_size] : values)
            for (const auto& [size, samples] : by_size) sized = sized || size > 0;
        for (const auto& [config, by_size] : values) {
            Series series{config, {}};
            for (const auto& [size, samples] : by_size) {
                if (sized && size == 0) continue;  // no place on a log axis
                const double y = median_of(samples);
                const double x = static_cast<double>(size);
                if (samples.size() > 1)
                    series.points.push_back({x, y,
                                             *std::min_element(samples.begin(), samples.end()),
                                             *std::max_element(samples.begin(), samples.end())});
                else
                    series.points.push_back({x, y});
            }
            figure.series.push_back(std::move(series));
        }
        if (sized) {
            figure.xlabel = "message size";
            figure.x_is_size = true;
            figure.log_y = metric != "overlap_mean";
        } else {
            figure.xlabel = "configuration";
            figure.bars = true;
            figure.bar_format = "%.2f";
        }
        figures.push_back(std::move(figure));
    }
    return figures;
}

std::string format_suite_summary(const std::vector<Row>& rows) {
    const Collected c = collect(rows);
    const auto floor = find_cache_line_floor(rows);
    std::string text;
    bool ratios_shown = false;
    for (const auto& [key, values] : c.values) {
        const auto& [study, benchmark, ranks, metric] = key;
        std::set<std::uint64_t> sizes;
        for (const auto& [config, by_size] : values)
            for (const auto& [size, samples] : by_size) sizes.insert(size);
        const std::set<std::uint64_t> picks = {*sizes.begin(), 8,       1 << 10,
                                               64 << 10,       1 << 20, *sizes.rbegin()};
        const std::string& unit = c.units.at(key);
        Row probe;
        probe.metric = metric;
        probe.unit = unit;
        const bool lower_better = direction_of(probe) != Direction::higher_is_better;
        // This runtime's configurations over the faster of MPICH and Open MPI, when
        // either ran.
        std::vector<std::string> ours;
        bool peers = false;
        for (const auto& [config, by_size] : values) {
            if (config.starts_with("simpi-")) ours.push_back(config);
            for (std::string_view peer : kPeers) peers = peers || config == peer;
        }
        if (!peers) ours.clear();
        ratios_shown = ratios_shown || !ours.empty();
        text += fmt::format("{} {}, {} ranks: {}{}, mean\n", study, benchmark, ranks,
                            measurement_words(metric), unit.empty() ? "" : " (" + unit + ")");
        std::size_t width = 8;
        for (const auto& [config, by_size] : values) width = std::max(width, config.size());
        text += fmt::format("{:>9}", "size");
        for (const auto& [config, by_size] : values) text += fmt::format(" {:>{}}", config, width);
        for (const auto& config : ours)
            text += fmt::format(" {:>{}}", config.substr(config.find('-') + 1) + "/peer", width);
        text += '\n';
        for (auto size : sizes) {
            if (!picks.contains(size)) continue;
            text += fmt::format("{:>9}", size_label(size));
            for (const auto& [config, by_size] : values) {
                const auto at = by_size.find(size);
                text += at == by_size.end()
                            ? fmt::format(" {:>{}}", "-", width)
                            : fmt::format(" {:>{}.2f}", median_of(at->second), width);
            }
            const auto peer = faster_peer(values, size, lower_better);
            for (const auto& config : ours) {
                const auto at = values.at(config).find(size);
                text += at == values.at(config).end() || !peer || *peer == 0
                            ? fmt::format(" {:>{}}", "-", width)
                            : fmt::format(" {:>{}.2f}", median_of(at->second) / *peer, width);
            }
            text += '\n';
        }
        if (floor) {
            const bool has_rate_table =
                c.values.contains({study, benchmark, ranks, "message_rate_mean"});
            text += floor_lines(benchmark, metric, values, sizes, *floor, has_rate_table);
        }
        text += '\n';
    }
    if (ratios_shown)
        text +=
            "x/peer: simpi-x's value over the faster of MPICH's and Open MPI's at that size "
            "(times:\n"
            "at most 1 is as fast as the faster peer; bandwidths and rates: at least 1).\n";
    if (floor && !c.values.empty()) text += format_floor(*floor) + '\n';
    int checked = 0, defective = 0;
    for (const auto& row : rows) {
        if (row.metric != "defects") continue;
        ++checked;
        if (row.value <= 0) continue;
        ++defective;
        text +=
            fmt::format("defects: {} {} {} at {}: {:g} (IMB -DCHECK found wrong results)\n",
                        row.study, row.benchmark, row.config, size_label(row.msg_size), row.value);
    }
    if (checked > 0 && defective == 0)
        text += fmt::format("IMB -DCHECK: no defects in {} checked sizes\n", checked);
    return text;
}

}  // namespace si::harness
