#include "derive.hpp"

#include <cmath>

#include <algorithm>
#include <charconv>

#include "common/stats.hpp"
#include "config.hpp"

namespace si::harness {

namespace {

const std::string kBaseline(kBaselineConfig);

}  // namespace

ResultIndex::ResultIndex(const std::vector<Row>& rows) {
    for (const auto& row : rows) {
        auto [entry, fresh] = entries_.try_emplace(
            {row.study, row.config, row.pairs, row.msg_size, row.metric}, Entry{row, {}});
        entry->second.rounds[row.round] = row.value;
        configs_[row.study].insert(row.config);
        pairs_[row.study].insert(row.pairs);
        sizes_[row.study].insert(row.msg_size);
        metrics_[row.study].insert(row.metric);
    }
}

namespace {

Spread spread_of(const std::map<int, double>& rounds) {
    std::vector<double> values;
    for (const auto& [round, value] : rounds) values.push_back(value);
    const bench::Summary s = bench::summarize(values);
    return {s.median, s.min, s.max, static_cast<int>(s.count)};
}

}  // namespace

std::optional<Spread> ResultIndex::spread(const std::string& study, const std::string& config,
                                          int pairs, std::uint64_t size,
                                          const std::string& metric) const {
    const auto found = entries_.find({study, config, pairs, size, metric});
    if (found == entries_.end()) return std::nullopt;
    return spread_of(found->second.rounds);
}

std::optional<double> ResultIndex::value(const std::string& study, const std::string& config,
                                         int pairs, std::uint64_t size,
                                         const std::string& metric) const {
    const auto found = spread(study, config, pairs, size, metric);
    if (!found) return std::nullopt;
    return found->median;
}

std::vector<std::pair<Row, Spread>> ResultIndex::spreads() const {
    std::vector<std::pair<Row, Spread>> result;
    for (const auto& [key, entry] : entries_)
        result.emplace_back(entry.first, spread_of(entry.rounds));
    return result;
}

int ResultIndex::rounds(const std::string& study) const {
    std::size_t most = 0;
    for (const auto& [key, entry] : entries_)
        if (std::get<0>(key) == study) most = std::max(most, entry.rounds.size());
    return static_cast<int>(most);
}

bool ResultIndex::has_study(const std::string& study) const {
    return configs_.contains(study);
}

std::vector<std::string> ResultIndex::studies() const {
    std::vector<std::string> names;
    for (const auto& [study, configs] : configs_) names.push_back(study);
    return names;
}

std::vector<std::string> ResultIndex::configs(const std::string& study) const {
    std::vector<std::string> names;
    if (auto found = configs_.find(study); found != configs_.end())
        names.assign(found->second.begin(), found->second.end());
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return config_name_less(a, b); });
    return names;
}

std::vector<int> ResultIndex::pairs(const std::string& study) const {
    if (auto found = pairs_.find(study); found != pairs_.end())
        return {found->second.begin(), found->second.end()};
    return {};
}

std::vector<std::uint64_t> ResultIndex::sizes(const std::string& study) const {
    if (auto found = sizes_.find(study); found != sizes_.end())
        return {found->second.begin(), found->second.end()};
    return {};
}

std::vector<std::string> ResultIndex::metrics(const std::string& study) const {
    if (auto found = metrics_.find(study); found != metrics_.end())
        return {found->second.begin(), found->second.end()};
    return {};
}

int ResultIndex::base_pairs(const std::string& study) const {
    const auto all = pairs(study);
    return all.empty() ? 1 : all.front();
}

std::vector<Series> metric_vs_size(const ResultIndex& index, const std::string& study,
                                   const std::string& metric) {
    std::vector<Series> result;
    const int pairs = index.base_pairs(study);
    for (const auto& config : index.configs(study)) {
        Series series{config, {}};
        for (auto size : index.sizes(study)) {
            const auto y = index.spread(study, config, pairs, size, metric);
            if (!y) continue;
            const double x = static_cast<double>(size);
            if (y->rounds > 1)
                series.points.push_back({x, y->median, y->min, y->max});
            else
                series.points.push_back({x, y->median});
        }
        if (!series.points.empty()) result.push_back(std::move(series));
    }
    return result;
}

std::vector<Series> spread_vs_size(const ResultIndex& index, const std::string& study,
                                   const std::string& measurement) {
    std::vector<Series> result;
    const int pairs = index.base_pairs(study);
    for (const auto& config : index.configs(study)) {
        Series series{config, {}};
        for (auto size : index.sizes(study)) {
            const auto y = index.value(study, config, pairs, size, measurement + "_median");
            if (!y || std::isnan(*y)) continue;
            series.points.push_back(
                {static_cast<double>(size), *y,
                 index.value(study, config, pairs, size, measurement + "_min"),
                 index.value(study, config, pairs, size, measurement + "_max")});
        }
        if (!series.points.empty()) result.push_back(std::move(series));
    }
    return result;
}

const std::vector<PingpongMeasurement>& pingpong_measurements() {
    static const std::vector<PingpongMeasurement> measurements = {
        {"latency", "latency", "us", false},
        {"bandwidth", "bandwidth", "MB/s", true},
        {"bibandwidth", "bidirectional bandwidth", "MB/s", true}};
    return measurements;
}

std::vector<Series> overhead_vs_size(const ResultIndex& index, const std::string& study) {
    std::vector<Series> result;
    const int pairs = index.base_pairs(study);
    const std::string metric = "latency_median";
    for (const auto& config : index.configs(study)) {
        if (config == kBaseline) continue;
        Series series{config, {}};
        for (auto size : index.sizes(study)) {
            const auto own = index.value(study, config, pairs, size, metric);
            const auto base = index.value(study, kBaseline, pairs, size, metric);
            if (own && base) series.points.push_back({static_cast<double>(size), *own - *base});
        }
        if (!series.points.empty()) result.push_back(std::move(series));
    }
    return result;
}

std::optional<int> arrival_factor(const std::string& metric) {
    // The benchmark's documented pattern: ^arrival_([0-9]+)_(min|median|mean|max)$;
    // the median is the statistic the curves use.
    static const std::string prefix = "arrival_";
    static const std::string suffix = "_median";
    if (!metric.starts_with(prefix) || !metric.ends_with(suffix)) return std::nullopt;
    const char* begin = metric.data() + prefix.size();
    const char* end = metric.data() + metric.size() - suffix.size();
    int factor = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, factor);
    if (ec != std::errc{} || ptr != end || begin == end) return std::nullopt;
    return factor;
}

ProgressionCurves progression_curves(const ResultIndex& index, const std::string& study,
                                     std::uint64_t size) {
    ProgressionCurves curves;
    const int pairs = index.base_pairs(study);
    std::vector<std::pair<int, std::string>> factors;
    for (const auto& metric : index.metrics(study))
        if (auto factor = arrival_factor(metric)) factors.emplace_back(*factor, metric);
    std::sort(factors.begin(), factors.end());
    curves.baseline_latency = index.value(study, kBaseline, pairs, size, "latency_median");
    curves.rescaled = curves.baseline_latency.has_value() && *curves.baseline_latency > 0;
    for (const auto& config : index.configs(study)) {
        Series series{config, {}};
        double scale = 1;
        if (curves.rescaled) {
            const auto own = index.value(study, config, pairs, size, "latency_median");
            // Without its own T_lat a curve cannot share the rescaled axis.
            if (!own) continue;
            scale = *own / *curves.baseline_latency;
        }
        for (const auto& [factor, metric] : factors)
            if (auto y = index.value(study, config, pairs, size, metric))
                series.points.push_back({factor / 100.0 * scale, *y});
        if (!series.points.empty()) curves.series.push_back(std::move(series));
    }
    return curves;
}

std::vector<Series> overlap_vs_pairs(const ResultIndex& index, const std::string& study,
                                     std::uint64_t size) {
    std::vector<Series> result;
    for (const auto& config : index.configs(study)) {
        Series series{config, {}};
        for (int pairs : index.pairs(study))
            if (auto y = index.value(study, config, pairs, size, "overlap_median"))
                series.points.push_back({static_cast<double>(pairs), *y});
        if (!series.points.empty()) result.push_back(std::move(series));
    }
    return result;
}

std::vector<std::pair<std::string, double>> memory_footprint(const ResultIndex& index,
                                                             const std::string& study) {
    // memory reports one msg_size per run (the largest exchanged): look it up per
    // configuration rather than assuming every run used the same.
    const int pairs = index.base_pairs(study);
    // footprint_after counts the helpers; runs from before it existed have VmRSS only.
    const auto after = [&](const std::string& config) -> std::optional<double> {
        for (const char* metric : {"footprint_after_mean", "vmrss_after_mean"})
            for (auto size : index.sizes(study))
                if (auto v = index.value(study, config, pairs, size, metric)) return v;
        return std::nullopt;
    };
    std::vector<std::pair<std::string, double>> result;
    const auto base = after(kBaseline);
    if (!base) return result;
    for (const auto& config : index.configs(study))
        if (auto own = after(config)) result.emplace_back(config, *own - *base);
    return result;
}

}  // namespace si::harness
