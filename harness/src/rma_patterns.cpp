#include "rma_patterns.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "units.hpp"

namespace si::harness {

std::optional<PatternMetric> parse_pattern_metric(std::string_view metric) {
    static const std::regex pattern("^([a-z_]+)_(blocking|nonblocking)_(min|median|mean|max)$");
    std::cmatch match;
    if (!std::regex_match(metric.begin(), metric.end(), match, pattern)) return std::nullopt;
    return PatternMetric{match[1].str(), match[2].str(), match[3].str()};
}

namespace {

// What each observation is, in the words of the seed's Section 8.
const std::map<std::string, std::string>& words() {
    static const std::map<std::string, std::string> all = {
        {"late_post_epoch", "Late Post: the origin's access epoch (its target posts late)"},
        {"late_post_next", "Late Post: the origin's next transfer (a send to a third rank)"},
        {"late_complete_target",
         "Late Complete: the target's exposure epoch (the origin computes before completing)"},
        {"late_complete_origin", "Late Complete: the origin's access epoch"},
        {"early_fence_target",
         "Early Fence: the target's fence epoch and the computation after it"},
        {"wait_at_fence_target",
         "Wait at Fence: the target's fence epoch (the origin computes before its fence)"},
        {"late_unlock_first",
         "Late Unlock: the first origin's lock epoch (it computes before unlocking)"},
        {"late_unlock_second", "Late Unlock: the second origin's lock epoch"},
    };
    return all;
}

std::string pattern_of(const std::string& observation) {
    for (const char* name : {"late_post", "late_complete", "early_fence", "wait_at_fence",
                             "late_unlock"})
        if (observation.rfind(name, 0) == 0) return name;
    return observation;
}

bool is_delay(const std::string& observation) {
    return observation == pattern_of(observation) + "_delay";
}

std::vector<std::string> pattern_studies(const ResultIndex& index) {
    std::set<std::string> studies;
    for (const auto& [row, spread] : index.spreads())
        if (row.suite == kRmaPatternsSuite) studies.insert(row.study);
    return {studies.begin(), studies.end()};
}

// The observations of a study in the benchmark's order (that of `words`,
// delays last) and the synchronizations each was measured with.
std::vector<std::string> observations_of(const ResultIndex& index, const std::string& study) {
    std::set<std::string> found;
    for (const auto& metric : index.metrics(study))
        if (const auto parsed = parse_pattern_metric(metric)) found.insert(parsed->observation);
    std::vector<std::string> ordered;
    for (const auto& [observation, text] : words())
        if (found.count(observation) != 0) ordered.push_back(observation);
    for (const auto& observation : found)
        if (words().count(observation) == 0) ordered.push_back(observation);
    return ordered;
}

std::optional<double> delay_of(const ResultIndex& index, const std::string& study,
                               const std::string& observation) {
    const std::string metric = pattern_of(observation) + "_delay_blocking_median";
    const int pairs = index.base_pairs(study);
    for (const auto& config : index.configs(study))
        for (auto size : index.sizes(study))
            if (auto delay = index.value(study, config, pairs, size, metric)) return delay;
    return std::nullopt;
}

}  // namespace

std::vector<Figure> rma_pattern_figures(const ResultIndex& index) {
    std::vector<Figure> figures;
    for (const auto& study : pattern_studies(index)) {
        for (const auto& observation : observations_of(index, study)) {
            if (is_delay(observation)) continue;
            std::vector<Series> series;
            for (const char* epochs : {"blocking", "nonblocking"}) {
                for (auto& one :
                     spread_vs_size(index, study, observation + "_" + epochs)) {
                    one.label += fmt::format(" {}", epochs);
                    series.push_back(std::move(one));
                }
            }
            if (series.empty()) continue;
            std::string stem = study + "-" + observation;
            std::replace(stem.begin(), stem.end(), '_', '-');
            const auto text = words().find(observation);
            Figure figure = size_figure(
                stem,
                fmt::format("{} (study {})",
                            text != words().end() ? text->second : observation, study),
                "completion time from the delayer's start (us), median", std::move(series),
                false);
            if (const auto delay = delay_of(index, study, observation)) {
                figure.reference_y = *delay;
                figure.reference_label = "the delay";
            }
            figures.push_back(std::move(figure));
        }
    }
    return figures;
}

std::string format_rma_pattern_tables(const ResultIndex& index) {
    std::string text;
    for (const auto& study : pattern_studies(index)) {
        const int pairs = index.base_pairs(study);
        TextTable table{{"observation size"}, {}};
        const auto configs = index.configs(study);
        for (const auto& config : configs) table.headers.push_back(config);
        for (const auto& observation : observations_of(index, study)) {
            for (auto size : index.sizes(study)) {
                std::vector<std::string> row = {
                    fmt::format("{} {}", observation, size_label(size))};
                bool any = false;
                for (const auto& config : configs) {
                    std::string cell;
                    for (const char* epochs : {"blocking", "nonblocking"}) {
                        const auto value = index.value(study, config, pairs, size,
                                                       fmt::format("{}_{}_median", observation,
                                                                   epochs));
                        any = any || value.has_value();
                        cell += (cell.empty() ? "" : " / ") +
                                (value ? fmt::format("{:.0f}", *value) : std::string("-"));
                    }
                    row.push_back(cell);
                }
                if (any) table.rows.push_back(std::move(row));
            }
        }
        if (table.rows.empty()) continue;
        text += fmt::format(
            "{}: one-sided inefficiency patterns, completion times from the delayer's start "
            "(us, median), blocking / nonblocking epochs (- where a library has none); "
            "<pattern>_delay is the delay as it ran\n",
            study);
        text += format_table(table) + '\n';
    }
    return text;
}

}  // namespace si::harness
