#include "rma.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "units.hpp"

namespace si::harness {

std::optional<RmaMetric> parse_rma_metric(std::string_view metric) {
    static const std::regex pattern(
        "^(epoch|overlapped|work)_((?:fence|gats|lock)_(?:put|get))_(min|median|mean|max)$");
    std::cmatch match;
    if (!std::regex_match(metric.begin(), metric.end(), match, pattern)) return std::nullopt;
    return RmaMetric{match[1].str(), match[2].str(), match[3].str()};
}

namespace {

std::vector<std::string> rma_studies(const ResultIndex& index) {
    std::set<std::string> studies;
    for (const auto& [row, spread] : index.spreads())
        if (row.suite == kRmaSuite) studies.insert(row.study);
    return {studies.begin(), studies.end()};
}

std::vector<std::string> epochs_of(const ResultIndex& index, const std::string& study) {
    std::set<std::string> epochs;
    for (const auto& metric : index.metrics(study))
        if (const auto parsed = parse_rma_metric(metric)) epochs.insert(parsed->epoch);
    return {epochs.begin(), epochs.end()};
}

// The work of a configuration: one value, at the largest size.
std::optional<double> work_of(const ResultIndex& index, const std::string& study,
                              const std::string& config, const std::string& epoch) {
    const int pairs = index.base_pairs(study);
    for (auto size : index.sizes(study))
        if (auto work = index.value(study, config, pairs, size, "work_" + epoch + "_median"))
            return work;
    return std::nullopt;
}

// overlapped / work per size, per configuration, with the origins' min..max.
std::vector<Series> relative_to_work(const ResultIndex& index, const std::string& study,
                                     const std::string& epoch) {
    std::vector<Series> series = spread_vs_size(index, study, "overlapped_" + epoch);
    for (auto& one : series) {
        const auto work = work_of(index, study, one.label, epoch);
        if (!work || *work <= 0) {
            one.points.clear();
            continue;
        }
        for (auto& point : one.points) {
            point.y /= *work;
            if (point.low) *point.low /= *work;
            if (point.high) *point.high /= *work;
        }
    }
    std::erase_if(series, [](const Series& one) { return one.points.empty(); });
    return series;
}

std::string words_of(const std::string& epoch) {
    const auto cut = epoch.find('_');
    const std::string sync = epoch.substr(0, cut), op = epoch.substr(cut + 1);
    const std::string call = op == "put" ? "MPI_Put" : "MPI_Get";
    if (sync == "lock") return call + " in an exclusive lock held first by another origin";
    return call + (sync == "fence" ? " in a fence epoch" : " in a GATS epoch");
}

}  // namespace

std::vector<Figure> rma_figures(const ResultIndex& index) {
    std::vector<Figure> figures;
    for (const auto& study : rma_studies(index)) {
        for (const auto& epoch : epochs_of(index, study)) {
            std::string stem = study + "-" + epoch;
            std::replace(stem.begin(), stem.end(), '_', '-');
            Figure overlap = size_figure(
                stem + "-overlap",
                fmt::format("{}, target late: epoch / work (study {})", words_of(epoch), study),
                "epoch time / work (1 = all of the transfer hidden)",
                relative_to_work(index, study, epoch), false);
            overlap.reference_y = 1.0;
            overlap.reference_label = "ideal";
            if (!overlap.series.empty()) figures.push_back(std::move(overlap));
            Figure latency =
                size_figure(stem + "-latency",
                            fmt::format("{}, no delay, no work (study {})", words_of(epoch), study),
                            "epoch time (us), median over the origins",
                            metric_vs_size(index, study, "epoch_" + epoch + "_median"), true);
            if (!latency.series.empty()) figures.push_back(std::move(latency));
        }
    }
    return figures;
}

std::string format_rma_tables(const ResultIndex& index, const std::vector<std::uint64_t>& sizes) {
    std::string text;
    for (const auto& study : rma_studies(index)) {
        const int pairs = index.base_pairs(study);
        const auto configs = index.configs(study);
        std::vector<std::uint64_t> shown;
        for (auto size : index.sizes(study))
            if (std::find(sizes.begin(), sizes.end(), size) != sizes.end()) shown.push_back(size);
        if (shown.empty()) shown = index.sizes(study);
        TextTable overlap{{"epoch size"}, {}};
        TextTable latency{{"epoch size"}, {}};
        for (const auto& config : configs) {
            overlap.headers.push_back(config);
            latency.headers.push_back(config);
        }
        for (const auto& epoch : epochs_of(index, study)) {
            for (auto size : shown) {
                const std::string label = fmt::format("{} {}", epoch, size_label(size));
                std::vector<std::string> overlap_row = {label}, latency_row = {label};
                bool any = false;
                for (const auto& config : configs) {
                    const auto late =
                        index.value(study, config, pairs, size, "overlapped_" + epoch + "_median");
                    const auto work = work_of(index, study, config, epoch);
                    const auto alone =
                        index.value(study, config, pairs, size, "epoch_" + epoch + "_median");
                    any = any || late || alone;
                    overlap_row.push_back(
                        late && work && *work > 0 ? fmt::format("{:.2f}", *late / *work) : "-");
                    latency_row.push_back(alone ? fmt::format("{:.1f}", *alone) : "-");
                }
                if (!any) continue;
                overlap.rows.push_back(std::move(overlap_row));
                latency.rows.push_back(std::move(latency_row));
            }
        }
        if (overlap.rows.empty()) continue;
        text += fmt::format(
            "{}: one-sided epochs whose target comes late, epoch time / work (1: the transfer "
            "fully hidden behind the work: the origin's computation as it ran, nominally the "
            "configuration's own epoch time at the largest size without delay)\n",
            study);
        text += format_table(overlap);
        text += fmt::format("\n{}: epoch time without delay or work (us, median)\n", study);
        text += format_table(latency) + '\n';
    }
    return text;
}

}  // namespace si::harness
