#include "suites/suite_figures.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "config.hpp"
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
    std::string text;
    for (const auto& [key, values] : c.values) {
        const auto& [study, benchmark, ranks, metric] = key;
        std::set<std::uint64_t> sizes;
        for (const auto& [config, by_size] : values)
            for (const auto& [size, samples] : by_size) sizes.insert(size);
        const std::set<std::uint64_t> picks = {*sizes.begin(), 1 << 10, 64 << 10, 1 << 20,
                                               *sizes.rbegin()};
        const std::string& unit = c.units.at(key);
        text += fmt::format("{} {}, {} ranks: {}{}, mean\n", study, benchmark, ranks,
                            measurement_words(metric), unit.empty() ? "" : " (" + unit + ")");
        std::size_t width = 8;
        for (const auto& [config, by_size] : values) width = std::max(width, config.size());
        text += fmt::format("{:>9}", "size");
        for (const auto& [config, by_size] : values) text += fmt::format(" {:>{}}", config, width);
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
            text += '\n';
        }
        text += '\n';
    }
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
