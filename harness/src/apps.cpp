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
    if (r.suite == "app") return fmt::format("{} (study {})", r.benchmark, r.study);
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
    // Per key, per round: the time and the figure of merit (a round repeated keeps
    // its last).
    struct Sample {
        double seconds = 0;
        std::optional<double> merit;
    };
    std::map<Key, std::map<int, Sample>, decltype(&key_less)> by_key(&key_less);
    std::map<Key, std::pair<std::string, std::string>> suite_and_unit;
    for (const auto& row : rows) {
        if (!is_application_suite(row.suite)) continue;
        // apps' and NPB's time is the slowest rank's; a program's, launch to exit.
        const bool time = row.metric == "time_max" || row.metric == "time_wall";
        // NPB prints one Mop/s for the job; apps/nas-sp the median over its ranks.
        const bool merit = row.metric == "mops_median" || row.metric == "mops_total" ||
                           row.metric == "rate_merit" || row.metric == "time_merit";
        if (!time && !merit) continue;
        const Key key{row.study, row.benchmark, row.ranks, row.config};
        Sample& sample = by_key[key][row.round];
        if (time) sample.seconds = row.value;
        if (merit) sample.merit = row.value;
        auto& [suite, unit] = suite_and_unit[key];
        suite = row.suite;
        if (merit) unit = row.unit;
    }
    const auto baseline_of = [&](const Key& key) -> const std::map<int, Sample>* {
        const auto& [study, benchmark, ranks, config] = key;
        // A build run through the MPICH ABI is compared with the same build in none;
        // MPICH's own runs of an MPICH build too when this runtime ran it only so.
        const std::string native(kBaselineConfig);
        const std::string abi = native + std::string(kMpichAbiSuffix);
        const std::vector<std::string> candidates = config.ends_with(kMpichAbiSuffix)
                                                        ? std::vector<std::string>{abi}
                                                        : std::vector<std::string>{native, abi};
        for (const auto& baseline : candidates) {
            const auto same_study = by_key.find({study, benchmark, ranks, baseline});
            if (same_study != by_key.end()) return &same_study->second;
            for (const auto& [other, samples] : by_key)
                if (std::get<1>(other) == benchmark && std::get<2>(other) == ranks &&
                    std::get<3>(other) == baseline)
                    return &samples;
        }
        return nullptr;
    };
    std::vector<AppResult> results;
    for (const auto& [key, samples] : by_key) {
        AppResult result;
        std::tie(result.study, result.benchmark, result.ranks, result.config) = key;
        std::tie(result.suite, result.merit_unit) = suite_and_unit[key];
        std::vector<double> seconds, merit;
        for (const auto& [round, sample] : samples) {
            if (sample.seconds > 0) seconds.push_back(sample.seconds);
            if (sample.merit) merit.push_back(*sample.merit);
        }
        if (seconds.empty()) continue;  // no time row: nothing to show
        result.rounds = static_cast<int>(seconds.size());
        result.seconds = median_of(seconds);
        result.seconds_min = *std::min_element(seconds.begin(), seconds.end());
        result.seconds_max = *std::max_element(seconds.begin(), seconds.end());
        if (!merit.empty()) result.merit = median_of(merit);
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
        // A program's file name may hold dots ("sp.mpich"): no class in it.
        if (first.suite == "app" || first.benchmark.find('.') == std::string::npos)
            figure.name = first.study;
        else if (same_class.size() > 1)
            figure.name = fmt::format("{}-{}-{}", first.study, app, class_of(first.benchmark));
        else
            figure.name = fmt::format("{}-{}", first.study, class_of(first.benchmark));
        figure.ylabel = first.suite == "app" ? "wall time, launch to exit (s)"
                                             : "time of the timed steps (s), slowest rank";
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
    bool rounds = false, programs = false, applications = false;
    for (const auto& r : results) {
        study_width = std::max(study_width, r.study.size());
        app_width = std::max(app_width, r.benchmark.size());
        config_width = std::max(config_width, r.config.size());
        rounds = rounds || r.rounds > 1;
        (r.suite == "app" ? programs : applications) = true;
    }
    std::string text =
        fmt::format("{:<{}} {:<{}} {:>6} {:<{}} {:>7} {:>13} {:>16} {:>9} {:>13}\n", "study",
                    study_width, "app", app_width, "ranks", "config", config_width, "time s",
                    "min..max", "merit", "speed-up", "min..max");
    for (const auto& r : results) {
        const std::string time_range =
            r.rounds > 1 ? fmt::format("{:.3f}..{:.3f}", r.seconds_min, r.seconds_max) : "-";
        const std::string speedup_range =
            r.speedup_min ? fmt::format("{:.2f}..{:.2f}", *r.speedup_min, *r.speedup_max) : "-";
        const std::string merit =
            r.merit ? fmt::format("{:.4g} {}", *r.merit, r.merit_unit) : std::string("-");
        text += fmt::format("{:<{}} {:<{}} {:>6} {:<{}} {:>7.3f} {:>13} {:>16} {:>9} {:>13}\n",
                            r.study, study_width, r.benchmark, app_width, r.ranks, r.config,
                            config_width, r.seconds, time_range, merit,
                            r.speedup ? fmt::format("{:.2f}x", *r.speedup) : "-", speedup_range);
    }
    text += "\ntime: ";
    if (applications) text += "the timed steps on the slowest rank (NPB's time)";
    if (applications && programs) text += "; ";
    if (programs) text += "a program's wall time from launch to exit (study kind app)";
    text += rounds ? ", median over the rounds a configuration ran (min..max);\n"
                     "speed-up: simpi-none's time over the configuration's in the same round, "
                     "median over\nrounds (min..max); "
                   : ";\nspeed-up: simpi-none's time over the configuration's; ";
    text +=
        "simpi-none of the same study, else of another study\nwith the same class and ranks "
        "(through the MPICH ABI: simpi-none@mpich-abi); merit: Mop/s, or the\nfigure of "
        "merit a program study reads from the output (median over rounds).\n";
    return text;
}

}  // namespace si::harness
