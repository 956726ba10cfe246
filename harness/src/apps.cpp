#include "apps.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "config.hpp"

namespace si::harness {

namespace {

using Key = std::tuple<std::string, std::string, int, std::string>;  // study, benchmark, ranks, config

bool key_less(const Key& a, const Key& b) {
    const auto& [study_a, bench_a, ranks_a, config_a] = a;
    const auto& [study_b, bench_b, ranks_b, config_b] = b;
    if (std::tie(study_a, bench_a, ranks_a) != std::tie(study_b, bench_b, ranks_b))
        return std::tie(study_a, bench_a, ranks_a) < std::tie(study_b, bench_b, ranks_b);
    return config_name_less(config_a, config_b);
}

// "sp.W" -> "W"; a benchmark without a class part names itself.
std::string class_of(const std::string& benchmark) {
    const auto dot = benchmark.find('.');
    return dot == std::string::npos ? benchmark : benchmark.substr(dot + 1);
}

std::string title_of(const AppResult& r) {
    const auto dot = r.benchmark.find('.');
    std::string app = r.benchmark.substr(0, dot);
    std::transform(app.begin(), app.end(), app.begin(), ::toupper);
    return dot == std::string::npos
               ? fmt::format("{} (study {})", app, r.study)
               : fmt::format("NAS {} class {} (study {})", app, class_of(r.benchmark), r.study);
}

}  // namespace

std::vector<AppResult> app_results(const std::vector<Row>& rows) {
    std::map<Key, AppResult, decltype(&key_less)> by_key(&key_less);
    for (const auto& row : rows) {
        if (row.suite != kApplicationSuite) continue;
        const bool time = row.metric == "time_max";
        const bool mops = row.metric == "mops_median";
        if (!time && !mops) continue;
        AppResult& result = by_key[{row.study, row.benchmark, row.ranks, row.config}];
        result.study = row.study;
        result.benchmark = row.benchmark;
        result.config = row.config;
        result.ranks = row.ranks;
        if (time) result.seconds = row.value;
        if (mops) result.mops = row.value;
    }
    std::vector<AppResult> results;
    for (auto& [key, result] : by_key) {
        if (result.seconds <= 0) continue;  // no time row: nothing to show
        const auto base = by_key.find({result.study, result.benchmark, result.ranks,
                                       std::string(kBaselineConfig)});
        if (base != by_key.end() && base->second.seconds > 0)
            result.speedup = base->second.seconds / result.seconds;
        results.push_back(result);
    }
    return results;
}

std::vector<Figure> app_figures(const std::vector<AppResult>& results) {
    std::vector<Figure> figures;
    std::set<std::pair<std::string, std::string>> done;
    for (const auto& first : results) {
        if (!done.insert({first.study, first.benchmark}).second) continue;
        std::vector<const AppResult*> mine;
        std::set<int> ranks;
        for (const auto& r : results)
            if (r.study == first.study && r.benchmark == first.benchmark) {
                mine.push_back(&r);
                ranks.insert(r.ranks);
            }
        Figure figure;
        figure.name = first.benchmark.find('.') == std::string::npos
                          ? first.study
                          : fmt::format("{}-{}", first.study, class_of(first.benchmark));
        figure.ylabel = "time of the timed steps (s), slowest rank";
        std::map<std::string, Series, decltype(&config_name_less)> series(&config_name_less);
        for (const auto* r : mine) {
            Series& s = series[r->config];
            s.label = r->config;
            s.points.push_back({static_cast<double>(r->ranks), r->seconds});
        }
        for (auto& [config, s] : series) figure.series.push_back(std::move(s));
        if (ranks.size() == 1) {
            figure.bars = true;
            figure.bar_format = "%.2f s";
            figure.title = fmt::format("{}, {} ranks", title_of(first), *ranks.begin());
            figure.xlabel = "configuration";
        } else {
            figure.title = fmt::format("{}: strong scaling", title_of(first));
            figure.xlabel = "ranks";
            figure.x_is_count = true;
            figure.log_y = true;
        }
        figures.push_back(std::move(figure));
    }
    return figures;
}

std::string format_app_summary(const std::vector<AppResult>& results) {
    if (results.empty()) return "";
    std::size_t study_width = 5, config_width = 6;
    for (const auto& r : results) {
        study_width = std::max(study_width, r.study.size());
        config_width = std::max(config_width, r.config.size());
    }
    std::string text = fmt::format("{:<{}} {:>5} {:>6} {:<{}} {:>10} {:>10} {:>9}\n", "study",
                                   study_width, "class", "ranks", "config", config_width, "time s",
                                   "Mop/s", "speed-up");
    for (const auto& r : results)
        text += fmt::format("{:<{}} {:>5} {:>6} {:<{}} {:>10.3f} {:>10} {:>9}\n", r.study,
                            study_width, class_of(r.benchmark), r.ranks, r.config, config_width,
                            r.seconds, r.mops ? fmt::format("{:.1f}", *r.mops) : "-",
                            r.speedup ? fmt::format("{:.2f}x", *r.speedup) : "-");
    text +=
        "\ntime: the timed steps on the slowest rank (NPB's time); speed-up: simpi-none's time "
        "over the\nconfiguration's, same study, class and ranks.\n";
    return text;
}

}  // namespace si::harness
