#include "results.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <libfccp/csv.h>

#include "common/csv.hpp"
#include "config.hpp"

namespace si::harness {

namespace {

template <unsigned columns>
using Reader = io::CSVReader<columns, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>,
                             io::throw_on_overflow, io::single_and_empty_line_comment<'#'>>;

// Values go through text: libfccp's own double parser rejects "nan" and "inf", which
// a benchmark may legitimately write (an overlap without any valid T_syn).
double to_double(const std::string& text, const std::string& path, const std::string& metric) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
        throw CsvError(
            fmt::format("{}: value '{}' of metric '{}' is not a number", path, text, metric));
    return value;
}

std::string format_value(double value) {
    return fmt::format("{}", value);
}

}  // namespace

std::string Row::measurement() const {
    const auto at = metric.rfind('_');
    if (at == std::string::npos) return metric;
    const std::string suffix = metric.substr(at + 1);
    if (suffix == "min" || suffix == "median" || suffix == "mean" || suffix == "max")
        return metric.substr(0, at);
    return metric;
}

std::string Row::statistic() const {
    const auto at = metric.rfind('_');
    if (at == std::string::npos) return "";
    const std::string suffix = metric.substr(at + 1);
    if (suffix == "min" || suffix == "median" || suffix == "mean" || suffix == "max") return suffix;
    return "";
}

const std::vector<std::string>& row_columns() {
    static const std::vector<std::string> columns = {
        "suite",          "benchmark", "runtime", "mode",  "helpers", "nodes",
        "ranks_per_node", "msg_size",  "metric",  "value", "unit",    "iterations",
        "warmup",         "host",      "commit",  "date",  "config",  "study",
        "pairs",          "run",       "ranks",   "round"};
    return columns;
}

int round_of_run(std::string_view run_id) {
    constexpr std::string_view kMark = ".round";
    const auto at = run_id.rfind(kMark);
    if (at == std::string_view::npos) return 0;
    const std::string_view digits = run_id.substr(at + kMark.size());
    int round = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), round);
    return error == std::errc{} && end == digits.data() + digits.size() ? round : 0;
}

std::vector<Row> read_rows(const std::string& path) {
    std::vector<Row> rows;
    try {
        Reader<22> in(path);
        in.read_header(io::ignore_extra_column | io::ignore_missing_column, "suite", "benchmark",
                       "runtime", "mode", "helpers", "nodes", "ranks_per_node", "msg_size",
                       "metric", "value", "unit", "iterations", "warmup", "host", "commit", "date",
                       "config", "study", "pairs", "run", "ranks", "round");
        const auto& columns = row_columns();
        for (std::size_t i = 0; i < 16; ++i)
            if (!in.has_column(columns[i]))
                throw CsvError(
                    fmt::format("{}: no column '{}' (a benchmark CSV has: suite,benchmark,"
                                "runtime,mode,helpers,nodes,ranks_per_node,msg_size,metric,"
                                "value,unit,iterations,warmup,host,commit,date)",
                                path, columns[i]));
        const bool has_pairs = in.has_column("pairs");
        // `round` came later: older results.csv files have it in the run id only.
        const bool has_round = in.has_column("round");
        Row row;
        std::string value;
        while (true) {
            row = Row{};
            value.clear();
            if (!in.read_row(row.suite, row.benchmark, row.runtime, row.mode, row.helpers,
                             row.nodes, row.ranks_per_node, row.msg_size, row.metric, value,
                             row.unit, row.iterations, row.warmup, row.host, row.commit, row.date,
                             row.config, row.study, row.pairs, row.run, row.ranks, row.round))
                break;
            row.value = to_double(value, path, row.metric);
            if (row.config.empty()) row.config = config_name_of(row.runtime, row.mode, row.helpers);
            if (!has_pairs) row.pairs = row.nodes * row.ranks_per_node / 2;
            if (row.ranks == 0) row.ranks = row.nodes * row.ranks_per_node;
            if (row.study.empty()) row.study = row.benchmark;
            if (!has_round) row.round = round_of_run(row.run);
            rows.push_back(std::move(row));
        }
    } catch (const io::error::base& error) {
        throw CsvError(error.what());
    }
    return rows;
}

void write_rows(const std::string& path, const std::vector<Row>& rows,
                const std::vector<std::pair<std::string, std::string>>& comments) {
    bench::CsvWriter out(path);
    for (const auto& [key, value] : comments) out.write_comment(key, value);
    out.write_row(row_columns());
    for (const auto& r : rows) {
        const std::vector<std::string> fields = {r.suite,
                                                 r.benchmark,
                                                 r.runtime,
                                                 r.mode,
                                                 std::to_string(r.helpers),
                                                 std::to_string(r.nodes),
                                                 std::to_string(r.ranks_per_node),
                                                 std::to_string(r.msg_size),
                                                 r.metric,
                                                 format_value(r.value),
                                                 r.unit,
                                                 std::to_string(r.iterations),
                                                 std::to_string(r.warmup),
                                                 r.host,
                                                 r.commit,
                                                 r.date,
                                                 r.config,
                                                 r.study,
                                                 std::to_string(r.pairs),
                                                 r.run,
                                                 std::to_string(r.ranks),
                                                 std::to_string(r.round)};
        out.write_row(fields);
    }
}

const std::vector<std::string>& run_columns() {
    static const std::vector<std::string> columns = {
        "id",     "study",       "benchmark", "config",
        "ranks",  "pairs",       "nodes",     "ranks_per_node",
        "status", "exit_status", "seconds",   "command",
        "log",    "csv",         "note",      "others_running"};
    return columns;
}

std::vector<RunRecord> read_runs(const std::string& path) {
    std::vector<RunRecord> runs;
    try {
        Reader<16> in(path);
        // `others_running` came later: older files lack it.
        in.read_header(io::ignore_extra_column | io::ignore_missing_column, "id", "study",
                       "benchmark", "config", "ranks", "pairs", "nodes", "ranks_per_node",
                       "status", "exit_status", "seconds", "command", "log", "csv", "note",
                       "others_running");
        RunRecord r;
        std::string load;
        while (in.read_row(r.id, r.study, r.benchmark, r.config, r.ranks, r.pairs, r.nodes,
                           r.ranks_per_node, r.status, r.exit_status, r.seconds, r.command, r.log,
                           r.csv, r.note, load)) {
            r.others_running = load.empty() ? -1 : to_double(load, path, "others_running");
            runs.push_back(r);
            r = RunRecord{};
            load.clear();
        }
    } catch (const io::error::base& error) {
        throw CsvError(error.what());
    }
    return runs;
}

void write_runs(const std::string& path, const std::vector<RunRecord>& runs) {
    // Written next to the final name and renamed, so that a reader (or a crash in the
    // middle of a sweep) never sees half a file.
    const std::string temporary = path + ".tmp";
    {
        bench::CsvWriter out(temporary);
        out.write_row(run_columns());
        for (const auto& r : runs) {
            const std::vector<std::string> fields = {r.id,
                                                     r.study,
                                                     r.benchmark,
                                                     r.config,
                                                     std::to_string(r.ranks),
                                                     std::to_string(r.pairs),
                                                     std::to_string(r.nodes),
                                                     std::to_string(r.ranks_per_node),
                                                     r.status,
                                                     std::to_string(r.exit_status),
                                                     fmt::format("{:.1f}", r.seconds),
                                                     r.command,
                                                     r.log,
                                                     r.csv,
                                                     r.note,
                                                     r.others_running < 0
                                                         ? ""
                                                         : fmt::format("{:.2f}", r.others_running)};
            out.write_row(fields);
        }
    }
    std::filesystem::rename(temporary, path);
}

}  // namespace si::harness
