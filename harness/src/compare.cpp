#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "config.hpp"
#include "units.hpp"

namespace si::harness {

namespace {

std::string family_of(const std::string& measurement) {
    return measurement.substr(0, measurement.find('_'));
}

std::string key_of(const Row& r) {
    return fmt::format("{} {} {}x{} {} {}", r.benchmark,
                       config_name_of(r.runtime, r.mode, r.helpers), r.nodes, r.ranks_per_node,
                       format_size(r.msg_size), r.metric);
}

// Keys in first-appearance order, each with all its values.
struct Grouped {
    std::vector<std::string> order;
    std::map<std::string, std::vector<double>> values;
    std::map<std::string, Row> first;
};

Grouped group(const std::vector<Row>& rows, const std::vector<std::string>& statistics) {
    const bool all = std::find(statistics.begin(), statistics.end(), "all") != statistics.end();
    Grouped g;
    for (const auto& row : rows) {
        const std::string stat = row.statistic();
        if (!all && std::find(statistics.begin(), statistics.end(), stat) == statistics.end())
            continue;
        const std::string key = key_of(row);
        if (!g.first.contains(key)) {
            g.order.push_back(key);
            g.first.emplace(key, row);
        }
        g.values[key].push_back(row.value);
    }
    return g;
}

std::string config_of(const Row& r) {
    return config_name_of(r.runtime, r.mode, r.helpers);
}

// A row's place, whatever its configuration: by ranks, not nodes times ranks per
// node, since this runtime's simulated nodes (SI_NODE_SIZE) split one host that
// another MPI counts as one node.
std::string place_of(const Row& r) {
    return fmt::format("{} {} {} {}", r.benchmark, r.nodes * r.ranks_per_node, r.msg_size,
                       r.metric);
}

}  // namespace

std::vector<Row> relative_to_baselines(const std::vector<Row>& rows,
                                       const std::vector<std::string>& baselines) {
    // Values of the baselines' rows by (configuration, place), by round (0: any).
    std::map<std::pair<std::string, std::string>, std::map<int, std::vector<double>>> base;
    for (const Row& row : rows) {
        const std::string config = config_of(row);
        if (std::find(baselines.begin(), baselines.end(), config) == baselines.end()) continue;
        auto& rounds = base[{config, place_of(row)}];
        rounds[row.round].push_back(row.value);
        if (row.round != 0) rounds[0].push_back(row.value);
    }
    std::vector<Row> out;
    for (const Row& row : rows) {
        // A count of instructions does not move with the machine's load, which the
        // ratios are there to cancel: it is gated as it is (and its baselines' too).
        if (is_absolute_metric(row)) {
            out.push_back(row);
            continue;
        }
        const std::string config = config_of(row);
        const auto own = std::find(baselines.begin(), baselines.end(), config);
        for (auto it = own == baselines.end() ? baselines.begin() : own + 1; it != baselines.end();
             ++it) {
            const auto found = base.find({*it, place_of(row)});
            if (found == base.end()) continue;
            const auto& rounds = found->second;
            const auto same_round = rounds.find(row.round);
            const double reference =
                median_of(same_round != rounds.end() ? same_round->second : rounds.at(0));
            Row relative = row;
            relative.benchmark = fmt::format("{}/{}", row.benchmark, *it);
            if (row.unit == "%") {
                relative.value = row.value - reference;
            } else {
                relative.value = reference != 0 ? row.value / reference : std::nan("");
                // (A std::string, not a literal: GCC 12 warns -Wrestrict on the latter here.)
                relative.unit = std::string(1, 'x');
            }
            out.push_back(std::move(relative));
            break;
        }
    }
    return out;
}

bool is_absolute_metric(const Row& row) {
    return family_of(row.measurement()) == "instructions";
}

Direction direction_of(const Row& row) {
    const std::string family = family_of(row.measurement());
    if (family == "instructions") return Direction::lower_is_better;
    if (family == "latency" || family == "time" || family == "arrival" || family == "vmrss" ||
        family == "footprint")
        return Direction::lower_is_better;
    // "message": message_rate_<stat> (osu_mbw_mr, the floor's stream), in
    // msg/s or, under --baseline, as a ratio.
    if (family == "overlap" || family == "bandwidth" || family == "bibandwidth" ||
        family == "mops" || family == "message")
        return Direction::higher_is_better;
    // The CPU a blocked rank uses (p2p/blocked): polling is right on a host with
    // a CPU to spare and wrong on an oversubscribed one, so neither way is better.
    if (row.measurement().starts_with("cpu_share")) return Direction::unchecked;
    static const std::vector<std::string> lower_units = {"ns", "us", "ms", "s", "B", "KiB", "MiB"};
    static const std::vector<std::string> higher_units = {"%", "MB/s", "GB/s", "MiB/s", "GiB/s"};
    if (std::find(lower_units.begin(), lower_units.end(), row.unit) != lower_units.end())
        return Direction::lower_is_better;
    if (std::find(higher_units.begin(), higher_units.end(), row.unit) != higher_units.end())
        return Direction::higher_is_better;
    return Direction::unchecked;
}

std::string Tolerance::text() const {
    return relative ? fmt::format("{:g}%", amount * 100) : fmt::format("{:g}", amount);
}

Tolerance ToleranceSet::for_row(const Row& row) const {
    const std::string measurement = row.measurement();
    if (auto found = by_name.find(measurement); found != by_name.end()) return found->second;
    if (auto found = by_name.find(family_of(measurement)); found != by_name.end())
        return found->second;
    if (auto found = by_name.find("default"); found != by_name.end()) return found->second;
    return row.unit == "%" ? percent_default : other_default;
}

ToleranceSet parse_tolerances(std::string_view spec) {
    ToleranceSet set;
    for (const auto& entry : split_list(spec)) {
        const auto equals = entry.find('=');
        const auto bad = [&](std::string_view why) {
            return std::invalid_argument(
                fmt::format("--tolerance: '{}' {} (expected NAME=AMOUNT or NAME=AMOUNT%, e.g. "
                            "overlap=5,latency=10%)",
                            entry, why));
        };
        if (equals == std::string::npos || equals == 0) throw bad("has no NAME=");
        const std::string name = entry.substr(0, equals);
        std::string amount = entry.substr(equals + 1);
        Tolerance tolerance;
        if (!amount.empty() && amount.back() == '%') {
            tolerance.relative = true;
            amount.pop_back();
        }
        char* end = nullptr;
        const double value = std::strtod(amount.c_str(), &end);
        if (amount.empty() || end != amount.c_str() + amount.size() || !(value >= 0))
            throw bad("has no non-negative amount");
        tolerance.amount = tolerance.relative ? value / 100 : value;
        set.by_name[name] = tolerance;
    }
    return set;
}

int CompareReport::exit_code(const CompareOptions& options) const {
    if (regressions > 0) return 1;
    if (options.fail_on_missing && missing > 0) return 1;
    if (compared == 0) return 1;
    return 0;
}

CompareReport compare_rows(const std::vector<Row>& reference, const std::vector<Row>& current,
                           const CompareOptions& options) {
    const Grouped ref = group(reference, options.statistics);
    const Grouped cur = group(current, options.statistics);
    CompareReport report;
    for (const auto& key : ref.order) {
        Finding f;
        f.key = key;
        f.reference = ref.first.at(key);
        f.reference_value = median_of(ref.values.at(key));
        f.direction = direction_of(f.reference);
        f.tolerance = options.tolerances.for_row(f.reference);
        const auto found = cur.values.find(key);
        if (found == cur.values.end()) {
            f.verdict = Verdict::missing;
            ++report.missing;
            report.findings.push_back(std::move(f));
            continue;
        }
        f.current_value = median_of(found->second);
        if (f.direction == Direction::unchecked || !std::isfinite(f.reference_value)) {
            f.verdict = Verdict::unchecked;
            ++report.unchecked;
            report.findings.push_back(std::move(f));
            continue;
        }
        ++report.compared;
        // Positive `worse`: the current value is worse than the reference by that much.
        const double worse = f.direction == Direction::lower_is_better
                                 ? f.current_value - f.reference_value
                                 : f.reference_value - f.current_value;
        const double allowed = f.tolerance.relative
                                   ? f.tolerance.amount * std::fabs(f.reference_value)
                                   : f.tolerance.amount;
        if (!std::isfinite(f.current_value) || worse > allowed) {
            f.verdict = Verdict::regression;
            ++report.regressions;
        } else if (-worse > allowed) {
            f.verdict = Verdict::improvement;
            ++report.improvements;
        }
        report.findings.push_back(std::move(f));
    }
    for (const auto& key : cur.order)
        if (!ref.values.contains(key)) ++report.extra;
    return report;
}

std::string format_report(const CompareReport& report, bool all_rows, bool show_missing) {
    const auto verdict_text = [](Verdict v) {
        switch (v) {
            case Verdict::ok:
                return "ok";
            case Verdict::regression:
                return "REGRESSION";
            case Verdict::improvement:
                return "improved";
            case Verdict::missing:
                return "missing";
            case Verdict::unchecked:
                return "unchecked";
        }
        return "?";
    };
    std::vector<const Finding*> shown;
    for (const auto& f : report.findings)
        if (all_rows || f.verdict == Verdict::regression ||
            (show_missing && f.verdict == Verdict::missing))
            shown.push_back(&f);
    std::size_t width = 3;
    for (const auto* f : shown) width = std::max(width, f->key.size());
    std::string text;
    if (!shown.empty()) {
        text += fmt::format("{:<{}} {:>12} {:>12} {:>10} {:>9} {:>7}  {}\n", "row", width,
                            "reference", "current", "change", "tolerance", "better", "verdict");
        for (const auto* f : shown) {
            const bool have_current = f->verdict != Verdict::missing;
            std::string change = "-";
            if (have_current) {
                change =
                    f->reference.unit == "%" || !f->tolerance.relative || f->reference_value == 0
                        ? fmt::format("{:+.3g}", f->current_value - f->reference_value)
                        : fmt::format("{:+.1f}%", 100 * (f->current_value - f->reference_value) /
                                                      std::fabs(f->reference_value));
            }
            const char* better = f->direction == Direction::lower_is_better    ? "lower"
                                 : f->direction == Direction::higher_is_better ? "higher"
                                                                               : "-";
            text += fmt::format("{:<{}} {:>12.4g} {:>12} {:>10} {:>9} {:>7}  {}\n", f->key, width,
                                f->reference_value,
                                have_current ? fmt::format("{:.4g}", f->current_value) : "-",
                                change, f->tolerance.text(), better, verdict_text(f->verdict));
        }
        text += '\n';
    }
    text += fmt::format(
        "compared {} rows: {} regressions, {} improvements, {} missing in current, "
        "{} only in current, {} unchecked\n",
        report.compared, report.regressions, report.improvements, report.missing, report.extra,
        report.unchecked);
    return text;
}

}  // namespace si::harness
