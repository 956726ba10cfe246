#include "gbench.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "machine.hpp"
#include "units.hpp"

namespace si::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Nanoseconds per Google Benchmark time unit.
double ns_per(const std::string& unit) {
    if (unit == "ns") return 1;
    if (unit == "us") return 1e3;
    if (unit == "ms") return 1e6;
    if (unit == "s") return 1e9;
    throw std::invalid_argument(fmt::format("unknown time_unit '{}'", unit));
}

// "wake_round_trip/futex/real_time" -> "wake_round_trip/futex": the metric says
// which time it is.
std::string benchmark_name(const std::string& run_name) {
    constexpr std::string_view kSuffix = "/real_time";
    return run_name.ends_with(kSuffix) ? run_name.substr(0, run_name.size() - kSuffix.size())
                                       : run_name;
}

// One benchmark's repetitions (or, when only aggregates were reported, its
// mean and median).
struct Samples {
    std::vector<double> real_ns, cpu_ns;
    long iterations = 0;
    std::map<std::string, std::pair<double, double>> aggregates;  // name -> real, cpu
};

std::string context_value(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_array() &&
        std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_number(); })) {
        std::string text;
        for (const auto& v : value)
            text += fmt::format("{}{:g}", text.empty() ? "" : " ", v.get<double>());
        return text;
    }
    return value.dump();
}

// "L1 Data 48 KiB x2, ...": the caches as the console reporter prints them.
std::string caches_text(const json& caches) {
    std::string text;
    for (const auto& cache : caches)
        text += fmt::format("{}L{} {} {} KiB (shared by {})", text.empty() ? "" : ", ",
                            cache.value("level", 0), cache.value("type", std::string("?")),
                            cache.value("size", 0L) / 1024, cache.value("num_sharing", 0));
    return text;
}

Row make_row(const std::string& benchmark, const std::string& metric, double value, long iterations,
             const std::string& host, const std::string& commit, const std::string& date) {
    Row row;
    row.suite = std::string(kGbenchSuite);
    row.benchmark = benchmark;
    row.runtime = "simpi";
    row.mode = "none";
    row.metric = metric;
    row.value = value;
    row.unit = "ns";
    row.iterations = iterations;
    row.host = host;
    row.commit = commit;
    row.date = date;
    row.config = "simpi-none";
    row.ranks = 1;
    return row;
}

}  // namespace

std::string gbench_json_path(const std::string& csv_path) {
    return fs::path(csv_path).replace_extension(".json").string();
}

Command gbench_command(const PlannedRun& run, const std::string& bin_dir,
                       const std::string& json_path) {
    Command command;
    command.env = run.env;
    command.argv = {(fs::path(bin_dir) / run.benchmark).string()};
    command.argv.insert(command.argv.end(), run.args.begin(), run.args.end());
    command.argv.push_back("--benchmark_out=" + json_path);
    command.argv.push_back("--benchmark_out_format=json");
    return command;
}

std::string gbench_missing_reason(const PlannedRun& run, const std::string& bin_dir) {
    const fs::path binary = fs::path(bin_dir) / run.benchmark;
    return fs::exists(binary) ? "" : fmt::format("benchmark not built: {}", binary.string());
}

namespace {

// Google Benchmark writes a value that is not a number as a bare NaN or inf
// (the coefficient of variation of a counter that is 0 in every repetition),
// which JSON does not allow: such a value is read as null.
std::string without_bare_nans(const std::string& text) {
    static const std::regex bare(R"((:\s*)-?(NaN|nan|Infinity|inf)\b)");
    return std::regex_replace(text, bare, "$1null");
}

}  // namespace

GbenchOutput parse_gbench_json(const std::string& text, const std::string& host,
                               const std::string& commit, const std::string& date) {
    GbenchOutput output;
    json document;
    try {
        document = json::parse(without_bare_nans(text));
    } catch (const json::exception& error) {
        output.failure = fmt::format("no Google Benchmark JSON: {}", error.what());
        return output;
    }
    if (document.contains("context") && document["context"].is_object())
        for (const auto& [key, value] : document["context"].items())
            output.context.emplace_back(
                key, key == "caches" ? caches_text(value) : context_value(value));
    if (!document.contains("benchmarks") || !document["benchmarks"].is_array()) {
        output.failure = "the JSON has no \"benchmarks\" list";
        return output;
    }
    std::vector<std::string> order;  // benchmarks in the program's order
    std::map<std::string, Samples> samples;
    std::map<std::string, std::string> skipped;  // name -> reason
    try {
        for (const auto& entry : document["benchmarks"]) {
            const std::string name =
                benchmark_name(entry.value("run_name", entry.value("name", std::string())));
            if (entry.value("error_occurred", false)) {
                skipped.emplace(name, entry.value("error_message", std::string("no reason given")));
                continue;
            }
            const double scale = ns_per(entry.value("time_unit", std::string("ns")));
            const double real = entry.at("real_time").get<double>() * scale;
            const double cpu = entry.at("cpu_time").get<double>() * scale;
            if (!samples.contains(name)) order.push_back(name);
            Samples& s = samples[name];
            if (entry.value("run_type", std::string("iteration")) == "aggregate") {
                s.aggregates[entry.value("aggregate_name", std::string())] = {real, cpu};
                continue;
            }
            s.real_ns.push_back(real);
            s.cpu_ns.push_back(cpu);
            s.iterations += entry.value("iterations", 0L);
        }
    } catch (const std::exception& error) {
        output.failure = fmt::format("unreadable benchmark entry: {}", error.what());
        return output;
    }
    for (const auto& name : order) {
        const Samples& s = samples.at(name);
        const auto add = [&](const std::string& measurement, const std::string& stat, double ns) {
            output.rows.push_back(
                make_row(name, measurement + "_" + stat, ns, s.iterations, host, commit, date));
        };
        if (!s.real_ns.empty()) {
            for (const auto& [measurement, values] :
                 {std::pair{"time", &s.real_ns}, std::pair{"cpu_time", &s.cpu_ns}}) {
                const auto& v = *values;
                add(measurement, "min", *std::min_element(v.begin(), v.end()));
                add(measurement, "median", median_of(v));
                double sum = 0;
                for (double x : v) sum += x;
                add(measurement, "mean", sum / static_cast<double>(v.size()));
                add(measurement, "max", *std::max_element(v.begin(), v.end()));
            }
            continue;
        }
        for (const char* stat : {"median", "mean"}) {
            const auto found = s.aggregates.find(stat);
            if (found == s.aggregates.end()) continue;
            add("time", stat, found->second.first);
            add("cpu_time", stat, found->second.second);
        }
    }
    for (const auto& [name, reason] : skipped)
        if (!samples.contains(name))
            output.notes.push_back(fmt::format("{} skipped: {}", name, reason));
    if (output.rows.empty() && output.failure.empty())
        output.failure =
            skipped.empty() ? "the JSON lists no benchmark" : "every benchmark skipped itself";
    return output;
}

GbenchOutput record_gbench_output(const PlannedRun& run, const std::string& json_path,
                                  const std::string& csv_path) {
    std::ifstream in(json_path);
    std::ostringstream text;
    if (in) text << in.rdbuf();
    GbenchOutput output =
        in ? parse_gbench_json(text.str(), host_name(), source_commit(), utc_timestamp())
           : GbenchOutput{{}, {}, {}, fmt::format("the program wrote no {}", json_path)};
    std::vector<std::pair<std::string, std::string>> comments = {
        {"suite", std::string(kGbenchSuite)},
        {"program", run.benchmark},
        {"converted_from", json_path}};
    for (const auto& [key, value] : output.context) comments.emplace_back("gbench_" + key, value);
    write_rows(csv_path, output.rows, comments);
    return output;
}

std::string format_gbench_summary(const std::vector<Row>& rows) {
    struct Line {
        std::string study, benchmark;
        double median = NAN, min = NAN, max = NAN, cpu = NAN;
    };
    std::vector<Line> lines;
    for (const auto& row : rows) {
        if (row.suite != kGbenchSuite) continue;
        auto line = std::find_if(lines.begin(), lines.end(), [&](const Line& l) {
            return l.study == row.study && l.benchmark == row.benchmark;
        });
        if (line == lines.end()) line = lines.insert(lines.end(), Line{row.study, row.benchmark});
        if (row.metric == "time_median") line->median = row.value;
        if (row.metric == "time_min") line->min = row.value;
        if (row.metric == "time_max") line->max = row.value;
        if (row.metric == "cpu_time_median") line->cpu = row.value;
    }
    if (lines.empty()) return "";
    std::size_t width = 9;
    for (const auto& line : lines) width = std::max(width, line.benchmark.size());
    const auto number = [](double ns) {
        return std::isnan(ns) ? std::string("-") : fmt::format("{:.4g}", ns);
    };
    std::string text = fmt::format(
        "runtime costs (Google Benchmark, ns per iteration):\n"
        "{:<{}} {:>10} {:>21} {:>10}\n",
        "benchmark", width, "median", "min..max", "cpu median");
    for (const auto& line : lines)
        text +=
            fmt::format("{:<{}} {:>10} {:>21} {:>10}\n", line.benchmark, width, number(line.median),
                        number(line.min) + ".." + number(line.max), number(line.cpu));
    return text;
}

}  // namespace si::harness
