#include "collectives.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "units.hpp"

namespace si::harness {

std::optional<CollectiveMetric> parse_collective_metric(std::string_view metric) {
    // Collective names hold no '_' (ibcast, iallreduce), so the parts are unambiguous.
    static const std::regex pattern(
        "^(blocking|latency|work|total|overlap)_([a-z0-9]+)(?:_([0-9]+))?_(min|median|mean|max)$");
    std::cmatch match;
    if (!std::regex_match(metric.begin(), metric.end(), match, pattern)) return std::nullopt;
    CollectiveMetric parsed{match[1].str(), match[2].str(), std::nullopt, match[4].str()};
    const bool per_factor = parsed.measurement == "work" || parsed.measurement == "total" ||
                            parsed.measurement == "overlap";
    // A factor where the benchmark writes none, or none where it writes one, is
    // another benchmark's metric.
    if (per_factor != match[3].matched) return std::nullopt;
    if (match[3].matched) parsed.percent = std::stoi(match[3].str());
    return parsed;
}

std::vector<std::string> collective_studies(const ResultIndex& index) {
    std::set<std::string> studies;
    for (const auto& [row, spread] : index.spreads())
        if (row.suite == kCollectivesSuite) studies.insert(row.study);
    return {studies.begin(), studies.end()};
}

std::vector<std::string> collectives_of(const ResultIndex& index, const std::string& study) {
    std::set<std::string> names;
    for (const auto& metric : index.metrics(study))
        if (const auto parsed = parse_collective_metric(metric)) names.insert(parsed->collective);
    return {names.begin(), names.end()};
}

namespace {

std::string ranks_note(const ResultIndex& index, const std::string& study) {
    // A collective study's job is 2 x pairs ranks, half on each simulated node.
    return fmt::format("{} ranks", 2 * index.base_pairs(study));
}

std::string overlap_measurement(const std::string& collective) {
    return fmt::format("overlap_{}_{}", collective, kCollectivePercent);
}

// The shared size figure, with the collectives' x label; a configuration without
// a point above 0 B gets no line.
Figure block_size_figure(std::string name, std::string title, std::string ylabel,
                         std::vector<Series> series, bool log_y) {
    Figure figure =
        size_figure(std::move(name), std::move(title), std::move(ylabel), std::move(series), log_y);
    std::erase_if(figure.series, [](const Series& one) { return one.points.empty(); });
    figure.xlabel = "message size (block per rank)";
    return figure;
}

}  // namespace

std::vector<Figure> collective_figures(const ResultIndex& index, std::vector<std::string>& notes) {
    std::vector<Figure> figures;
    for (const auto& study : collective_studies(index)) {
        const auto metrics = index.metrics(study);
        const auto has = [&](const std::string& metric) {
            return std::find(metrics.begin(), metrics.end(), metric) != metrics.end();
        };
        for (const auto& collective : collectives_of(index, study)) {
            const std::string stem = fmt::format("{}-{}", study, collective);
            auto latency =
                metric_vs_size(index, study, fmt::format("latency_{}_median", collective));
            Figure latency_figure = block_size_figure(
                stem + "-latency",
                fmt::format("{}: I-collective + MPI_Wait without work (study {}, {})", collective,
                            study, ranks_note(index, study)),
                "T_lat (us), median", std::move(latency), true);
            if (latency_figure.series.empty()) {
                // The barrier: one size, 0 B; its numbers are in the summary's tables.
                notes.push_back(
                    fmt::format("{}-*: not drawn, {} has no size above 0 B (see the "
                                "summary's tables)",
                                stem, collective));
                continue;
            }
            const std::string overlap = overlap_measurement(collective);
            if (has(overlap + "_median")) {
                figures.push_back(
                    block_size_figure(stem + "-overlap",
                                      fmt::format("{}: overlap at T_syn = T_lat (study {}, {})",
                                                  collective, study, ranks_note(index, study)),
                                      "overlap (%), median, min..max over the benchmark's rounds",
                                      spread_vs_size(index, study, overlap), false));
            } else {
                notes.push_back(
                    fmt::format("{}-overlap: not drawn, no {}_median (a "
                                "--work-factor list without 1)",
                                stem, overlap));
            }
            figures.push_back(std::move(latency_figure));
        }
    }
    return figures;
}

namespace {

std::string cell_of(const std::optional<double>& value, const char* format) {
    if (!value) return "-";
    if (std::isnan(*value)) return "nan";
    return fmt::format(fmt::runtime(format), *value);
}

// Three significant digits or so, as the ping-pong tables print latencies.
std::string compact(double v) {
    if (std::isnan(v)) return "nan";
    if (std::abs(v) >= 100) return fmt::format("{:.0f}", v);
    if (std::abs(v) >= 10) return fmt::format("{:.1f}", v);
    return fmt::format("{:.2f}", v);
}

}  // namespace

std::string format_collective_tables(const ResultIndex& index,
                                     const std::vector<std::uint64_t>& sizes) {
    std::string text;
    bool above_100 = false;
    for (const auto& study : collective_studies(index)) {
        const int pairs = index.base_pairs(study);
        const auto configs = index.configs(study);
        const auto measured = index.sizes(study);
        std::vector<std::uint64_t> shown;
        for (auto size : measured)
            if (std::find(sizes.begin(), sizes.end(), size) != sizes.end()) shown.push_back(size);
        if (shown.empty()) shown = measured;
        TextTable overlap{{"collective size"}, {}};
        TextTable latency{{"collective size"}, {}};
        for (const auto& config : configs) {
            overlap.headers.push_back(config);
            latency.headers.push_back(config);
        }
        for (const auto& collective : collectives_of(index, study)) {
            // 0 B first: the barrier's only size (the others skip it), then the sizes
            // asked for; rows without any value are left out.
            std::vector<std::uint64_t> candidates = {0};
            for (auto size : shown)
                if (size != 0) candidates.push_back(size);
            for (auto size : candidates) {
                const std::string label = fmt::format("{} {}", collective, size_label(size));
                std::vector<std::string> overlap_row = {label}, latency_row = {label};
                bool any = false;
                for (const auto& config : configs) {
                    const auto o = index.value(study, config, pairs, size,
                                               overlap_measurement(collective) + "_median");
                    const auto l = index.value(study, config, pairs, size,
                                               fmt::format("latency_{}_median", collective));
                    const auto b = index.value(study, config, pairs, size,
                                               fmt::format("blocking_{}_median", collective));
                    any = any || o || l;
                    // Above 100 %: T_lat or the work differed between the phases.
                    const bool error = o && !std::isnan(*o) && *o > 100.0;
                    above_100 = above_100 || error;
                    overlap_row.push_back(cell_of(o, "{:.1f}") + (error ? "!" : ""));
                    latency_row.push_back(
                        fmt::format("{} / {}", l ? compact(*l) : "-", b ? compact(*b) : "-"));
                }
                if (!any) continue;
                overlap.rows.push_back(std::move(overlap_row));
                latency.rows.push_back(std::move(latency_row));
            }
        }
        if (overlap.rows.empty()) continue;
        text += fmt::format(
            "{} ({}): overlap of the nonblocking collectives at T_syn = T_lat (%, median over "
            "the benchmark's rounds)\n",
            study, ranks_note(index, study));
        text += format_table(overlap);
        text += fmt::format(
            "\n{} ({}): latency (us, median): I-collective + MPI_Wait / blocking form\n", study,
            ranks_note(index, study));
        text += format_table(latency) + '\n';
    }
    if (above_100)
        text +=
            "!: above 100 %, which no collective reaches: a measurement error (T_lat or the\n"
            "work differed between the phases), not a result.\n\n";
    return text;
}

}  // namespace si::harness
