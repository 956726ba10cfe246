#include "apps.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "config.hpp"
#include "units.hpp"

namespace si::harness {

namespace {

using Key =
    std::tuple<std::string, std::string, int, std::string>;  // study, benchmark, ranks, config

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
    // apps/lu: "lu.<variant>-<n>"
    if (app == "LU" && dot != std::string::npos)
        return fmt::format("LU over one-sided communication, {} (study {})",
                           r.benchmark.substr(dot + 1), r.study);
    return dot == std::string::npos
               ? fmt::format("{} (study {})", app, r.study)
               : fmt::format("NAS {} class {} (study {})", app, class_of(r.benchmark), r.study);
}

}  // namespace

std::vector<AppResult> app_results(const std::vector<Row>& rows) {
    // Per key, per round: the time and the Mop/s (a round repeated keeps its last).
    struct Sample {
        double seconds = 0;
        std::optional<double> mops;
    };
    std::map<Key, std::map<int, Sample>, decltype(&key_less)> by_key(&key_less);
    for (const auto& row : rows) {
        if (!is_application_suite(row.suite)) continue;
        const bool time = row.metric == "time_max";
        // NPB prints one Mop/s for the job; apps/nas-sp the median over its ranks.
        const bool mops = row.metric == "mops_median" || row.metric == "mops_total";
        if (!time && !mops) continue;
        Sample& sample = by_key[{row.study, row.benchmark, row.ranks, row.config}][row.round];
        if (time) sample.seconds = row.value;
        if (mops) sample.mops = row.value;
    }
    const auto baseline_of = [&](const Key& key) -> const std::map<int, Sample>* {
        const auto& [study, benchmark, ranks, config] = key;
        const auto same_study =
            by_key.find({study, benchmark, ranks, std::string(kBaselineConfig)});
        if (same_study != by_key.end()) return &same_study->second;
        for (const auto& [other, samples] : by_key)
            if (std::get<1>(other) == benchmark && std::get<2>(other) == ranks &&
                std::get<3>(other) == kBaselineConfig)
                return &samples;
        return nullptr;
    };
    std::vector<AppResult> results;
    for (const auto& [key, samples] : by_key) {
        AppResult result;
        std::tie(result.study, result.benchmark, result.ranks, result.config) = key;
        std::vector<double> seconds, mops;
        for (const auto& [round, sample] : samples) {
            if (sample.seconds > 0) seconds.push_back(sample.seconds);
            if (sample.mops) mops.push_back(*sample.mops);
        }
        if (seconds.empty()) continue;  // no time row: nothing to show
        result.rounds = static_cast<int>(seconds.size());
        result.seconds = median_of(seconds);
        result.seconds_min = *std::min_element(seconds.begin(), seconds.end());
        result.seconds_max = *std::max_element(seconds.begin(), seconds.end());
        if (!mops.empty()) result.mops = median_of(mops);
        if (const auto* base = baseline_of(key)) {
            // Rounds present on both sides pair up: each ratio compares two runs made
            // one after the other.
            std::vector<double> ratios;
            for (const auto& [round, sample] : samples) {
                const auto other = base->find(round);
                if (sample.seconds > 0 && other != base->end() && other->second.seconds > 0)
                    ratios.push_back(other->second.seconds / sample.seconds);
            }
            if (!ratios.empty()) {
                result.speedup = median_of(ratios);
                result.speedup_min = *std::min_element(ratios.begin(), ratios.end());
                result.speedup_max = *std::max_element(ratios.begin(), ratios.end());
            } else {
                std::vector<double> base_seconds;
                for (const auto& [round, sample] : *base)
                    if (sample.seconds > 0) base_seconds.push_back(sample.seconds);
                if (!base_seconds.empty())
                    result.speedup = median_of(base_seconds) / result.seconds;
            }
        }
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
        // <study>-<class>; a study of several applications in one class (an NPB
        // suite study: sp.S, cg.S) names the application too.
        std::set<std::string> same_class;
        for (const auto& r : results)
            if (r.study == first.study && class_of(r.benchmark) == class_of(first.benchmark))
                same_class.insert(r.benchmark);
        const std::string app = first.benchmark.substr(0, first.benchmark.find('.'));
        if (first.benchmark.find('.') == std::string::npos)
            figure.name = first.study;
        else if (same_class.size() > 1)
            figure.name = fmt::format("{}-{}-{}", first.study, app, class_of(first.benchmark));
        else
            figure.name = fmt::format("{}-{}", first.study, class_of(first.benchmark));
        figure.ylabel = "time of the timed steps (s), slowest rank";
        std::map<std::string, Series, decltype(&config_name_less)> series(&config_name_less);
        for (const auto* r : mine) {
            Series& s = series[r->config];
            s.label = r->config;
            if (r->rounds > 1)
                s.points.push_back(
                    {static_cast<double>(r->ranks), r->seconds, r->seconds_min, r->seconds_max});
            else
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
    // app: "sp.W", the application and its class (an NPB study holds several).
    std::size_t study_width = 5, app_width = 5, config_width = 6;
    bool rounds = false;
    for (const auto& r : results) {
        study_width = std::max(study_width, r.study.size());
        app_width = std::max(app_width, r.benchmark.size());
        config_width = std::max(config_width, r.config.size());
        rounds = rounds || r.rounds > 1;
    }
    std::string text = fmt::format("{:<{}} {:<{}} {:>6} {:<{}} {:>7} {:>13} {:>10} {:>9} {:>13}\n",
                                   "study", study_width, "app", app_width, "ranks", "config",
                                   config_width, "time s", "min..max", "Mop/s", "speed-up",
                                   "min..max");
    for (const auto& r : results) {
        const std::string time_range =
            r.rounds > 1 ? fmt::format("{:.3f}..{:.3f}", r.seconds_min, r.seconds_max) : "-";
        const std::string speedup_range =
            r.speedup_min ? fmt::format("{:.2f}..{:.2f}", *r.speedup_min, *r.speedup_max) : "-";
        text +=
            fmt::format("{:<{}} {:<{}} {:>6} {:<{}} {:>7.3f} {:>13} {:>10} {:>9} {:>13}\n", r.study,
                        study_width, r.benchmark, app_width, r.ranks, r.config, config_width,
                        r.seconds, time_range, r.mops ? fmt::format("{:.1f}", *r.mops) : "-",
                        r.speedup ? fmt::format("{:.2f}x", *r.speedup) : "-", speedup_range);
    }
    text += "\ntime: the timed steps on the slowest rank (NPB's time)";
    text += rounds ? ", median over the rounds a configuration ran (min..max);\n"
                     "speed-up: simpi-none's time over the configuration's in the same round, "
                     "median over\nrounds (min..max); "
                   : ";\nspeed-up: simpi-none's time over the configuration's; ";
    text += "simpi-none of the same study, else of another study\nwith the same class and ranks.\n";
    return text;
}

}  // namespace si::harness
