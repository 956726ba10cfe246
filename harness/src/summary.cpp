#include "summary.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "common/csv.hpp"
#include "config.hpp"
#include "units.hpp"

namespace si::harness {

Summary summarize(const ResultIndex& index, const PlotSpec& plots) {
    Summary summary;
    summary.sizes = plots.summary_sizes;
    std::set<std::string> names;
    for (const auto& study : {plots.overlap, plots.latency, plots.memory})
        for (const auto& config : index.configs(study)) names.insert(config);
    std::vector<std::string> ordered(names.begin(), names.end());
    std::sort(ordered.begin(), ordered.end(),
              [](const std::string& a, const std::string& b) { return config_name_less(a, b); });

    const bool have_overlap = index.has_study(plots.overlap);
    const bool have_latency = index.has_study(plots.latency);
    const bool have_memory = index.has_study(plots.memory);
    const std::string baseline(kBaselineConfig);
    if (!have_overlap)
        summary.notes.push_back(fmt::format("overlap: no results of study '{}'", plots.overlap));
    if (!have_latency)
        summary.notes.push_back(
            fmt::format("latency overhead: no results of study '{}'", plots.latency));
    else if (index.configs(plots.latency).end() == std::find(index.configs(plots.latency).begin(),
                                                             index.configs(plots.latency).end(),
                                                             baseline))
        summary.notes.push_back("latency overhead: no simpi-none run to measure against");
    if (!have_memory)
        summary.notes.push_back(
            fmt::format("memory footprint: no results of study '{}'", plots.memory));

    const auto footprints = memory_footprint(index, plots.memory);
    if (have_memory && footprints.empty())
        summary.notes.push_back("memory footprint: no simpi-none run to measure against");
    const int overlap_pairs = index.base_pairs(plots.overlap);
    const int latency_pairs = index.base_pairs(plots.latency);
    for (const auto& config : ordered) {
        SummaryLine line;
        line.config = config;
        for (auto size : summary.sizes) {
            line.overlap.push_back(
                index.value(plots.overlap, config, overlap_pairs, size, "overlap_median"));
            line.overlap_at_lat.push_back(
                index.value(plots.overlap, config, overlap_pairs, size, "overlap_at_lat_median"));
            line.floor.push_back(index.value(plots.overlap, config, overlap_pairs, size,
                                             "sender_delay_floor_median"));
            const auto own =
                index.value(plots.latency, config, latency_pairs, size, "latency_median");
            const auto base =
                index.value(plots.latency, baseline, latency_pairs, size, "latency_median");
            line.overhead.push_back(own && base ? std::optional(*own - *base) : std::nullopt);
        }
        for (const auto& [name, kib] : footprints)
            if (name == config) line.footprint = kib;
        summary.lines.push_back(std::move(line));
    }
    for (const auto& study : index.studies()) {
        const auto metrics = index.metrics(study);
        if (study == plots.overlap ||
            std::find(metrics.begin(), metrics.end(), "overlap_median") == metrics.end())
            continue;
        for (const auto& config : index.configs(study))
            for (int pairs : index.pairs(study)) {
                StudyLine line{study, config, pairs, {}};
                for (auto size : summary.sizes)
                    line.overlap.push_back(
                        index.value(study, config, pairs, size, "overlap_median"));
                summary.other_overlap.push_back(std::move(line));
            }
    }
    return summary;
}

std::string format_summary(const Summary& summary) {
    const auto cell = [](const std::optional<double>& v, const char* spec) {
        if (!v) return std::string("-");
        return std::isnan(*v) ? std::string("n/a") : fmt::format(fmt::runtime(spec), *v);
    };
    // No transfer overlaps more than its whole time: an overlap above 100 % says that
    // T_lat or the work differed between the phases (noise, a busy machine), and is
    // marked so that nobody reads it as a result.
    bool above_100 = false;
    const auto overlap_cell = [&](const std::optional<double>& v) {
        if (!v || std::isnan(*v) || *v <= 100.0) return cell(v, "{:.1f}");
        above_100 = true;
        return cell(v, "{:.1f}") + "!";
    };
    std::size_t name_width = 6;
    for (const auto& line : summary.lines) name_width = std::max(name_width, line.config.size());
    std::size_t study_width = 5;
    for (const auto& line : summary.other_overlap) {
        name_width = std::max(name_width, line.config.size());
        study_width = std::max(study_width, line.study.size());
    }
    std::string header = fmt::format("{:<{}}", "config", name_width);
    for (auto size : summary.sizes)
        header += fmt::format(" {:>13}", "overlap " + format_size(size));
    for (auto size : summary.sizes)
        header += fmt::format(" {:>14}", "overhead " + format_size(size));
    header += fmt::format(" {:>14}", "footprint");
    std::string units = fmt::format("{:<{}}", "", name_width);
    for (std::size_t i = 0; i < summary.sizes.size(); ++i) units += fmt::format(" {:>13}", "%");
    for (std::size_t i = 0; i < summary.sizes.size(); ++i) units += fmt::format(" {:>14}", "us");
    units += fmt::format(" {:>14}", "KiB");

    std::string text = header + '\n' + units + '\n';
    for (const auto& line : summary.lines) {
        std::string row = fmt::format("{:<{}}", line.config, name_width);
        for (const auto& v : line.overlap) row += fmt::format(" {:>13}", overlap_cell(v));
        for (const auto& v : line.overhead) row += fmt::format(" {:>14}", cell(v, "{:+.2f}"));
        row += fmt::format(" {:>14}", cell(line.footprint, "{:+.0f}"));
        text += row + '\n';
    }
    if (summary.lines.empty()) text += "(no results)\n";
    // Next to the thesis' figure: the overlap at T_syn = T_lat (no T_diff rule) and
    // what the sender's delay alone gives any runtime, so that a floor is not read
    // as overlap.
    text += fmt::format("\n{:<{}}", "", name_width);
    for (auto size : summary.sizes)
        text += fmt::format(" {:>21}", "at T_lat/floor " + format_size(size));
    text += '\n';
    for (const auto& line : summary.lines) {
        std::string row = fmt::format("{:<{}}", line.config, name_width);
        for (std::size_t i = 0; i < line.overlap_at_lat.size(); ++i)
            row += fmt::format(" {:>21}", overlap_cell(line.overlap_at_lat[i]) + " / " +
                                              cell(line.floor[i], "{:.1f}"));
        text += row + '\n';
    }
    text +=
        "\noverlap: overlap_median of the overlap study (n/a: no T_syn satisfied T_diff >= 0);\n"
        "at T_lat/floor: overlap at T_syn = T_lat, and 100 x sender delay / T_lat, which every\n"
        "runtime shows; overhead: latency_median minus simpi-none's;\n"
        "footprint: footprint_after_mean (own Pss + a share of the helpers') minus simpi-none's,\n"
        "per rank.\n";
    if (!summary.other_overlap.empty()) {
        text += fmt::format(
            "\noverlap in the other studies that measured it (what each changes: the profile;\n"
            "pairs span 2 simulated nodes)\n{:<{}} {:<{}} {:>5}",
            "study", study_width, "config", name_width, "pairs");
        for (auto size : summary.sizes)
            text += fmt::format(" {:>13}", "overlap " + format_size(size));
        text += '\n';
        for (const auto& line : summary.other_overlap) {
            std::string row = fmt::format("{:<{}} {:<{}} {:>5}", line.study, study_width,
                                          line.config, name_width, line.pairs);
            for (const auto& v : line.overlap) row += fmt::format(" {:>13}", overlap_cell(v));
            text += row + '\n';
        }
    }
    if (above_100)
        text +=
            "\n!: above 100 %, which no transfer reaches: a measurement error (T_lat or the\n"
            "work differed between the phases), not a result.\n";
    for (const auto& note : summary.notes) text += "note: " + note + '\n';
    return text;
}

namespace {

constexpr std::string_view kMpich = "mpich";

// Three significant digits or so: 0.31, 15.2, 5432.
std::string compact(double v) {
    if (std::isnan(v)) return "nan";
    const double size = std::abs(v);
    if (size >= 100) return fmt::format("{:.0f}", v);
    if (size >= 10) return fmt::format("{:.1f}", v);
    return fmt::format("{:.2f}", v);
}

std::string spread_cell(const std::optional<Spread>& cell) {
    if (!cell) return "-";
    if (cell->rounds < 2) return compact(cell->median);
    return fmt::format("{} [{}..{}]", compact(cell->median), compact(cell->min),
                       compact(cell->max));
}

// Right-aligned columns as wide as their widest cell, after a column of labels.
std::string aligned_table(const std::string& label_header, const std::vector<std::string>& headers,
                          const std::vector<std::string>& labels,
                          const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths;
    for (std::size_t c = 0; c < headers.size(); ++c) {
        std::size_t width = headers[c].size();
        for (const auto& row : rows) width = std::max(width, row[c].size());
        widths.push_back(width);
    }
    std::string text = fmt::format("{:>9}", label_header);
    for (std::size_t c = 0; c < headers.size(); ++c)
        text += fmt::format("  {:>{}}", headers[c], widths[c]);
    text += '\n';
    for (std::size_t r = 0; r < rows.size(); ++r) {
        text += fmt::format("{:>9}", labels[r]);
        for (std::size_t c = 0; c < headers.size(); ++c)
            text += fmt::format("  {:>{}}", rows[r][c], widths[c]);
        text += '\n';
    }
    return text;
}

std::vector<PingpongTable> pingpong_tables_of(const ResultIndex& index, const std::string& study,
                                              const std::vector<std::uint64_t>& table_sizes) {
    std::vector<PingpongTable> tables;
    const int pairs = index.base_pairs(study);
    const auto configs = index.configs(study);
    const auto metrics = index.metrics(study);
    const auto measured = index.sizes(study);
    std::vector<std::uint64_t> sizes;
    for (auto size : measured)
        if (size == measured.back() ||
            std::find(table_sizes.begin(), table_sizes.end(), size) != table_sizes.end())
            sizes.push_back(size);
    const bool mpich = std::find(configs.begin(), configs.end(), kMpich) != configs.end();
    for (const auto& measurement : pingpong_measurements()) {
        const std::string metric = measurement.name + "_median";
        if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) continue;
        PingpongTable table{study, measurement, index.rounds(study), configs, {}, {}, {}, {}};
        if (mpich)
            for (const auto& config : configs)
                if (config.starts_with("simpi-")) table.ratio_configs.push_back(config);
        for (auto size : sizes) {
            std::vector<std::optional<Spread>> cells;
            for (const auto& config : configs)
                cells.push_back(index.spread(study, config, pairs, size, metric));
            // A size no configuration measured for this metric (bandwidth at 0 B).
            if (std::none_of(cells.begin(), cells.end(), [](const auto& c) { return c; })) continue;
            const auto base = index.value(study, std::string(kMpich), pairs, size, metric);
            std::vector<std::optional<double>> ratios;
            for (const auto& config : table.ratio_configs) {
                const auto own = index.value(study, config, pairs, size, metric);
                ratios.push_back(own && base && *base != 0 ? std::optional(*own / *base)
                                                           : std::nullopt);
            }
            table.sizes.push_back(size);
            table.cells.push_back(std::move(cells));
            table.ratios.push_back(std::move(ratios));
        }
        tables.push_back(std::move(table));
    }
    return tables;
}

}  // namespace

std::vector<PingpongTable> pingpong_tables(const ResultIndex& index, const PlotSpec& plots) {
    std::vector<PingpongTable> tables;
    for (const std::string& study : plots.pingpong_like()) {
        if (!index.has_study(study)) continue;
        auto own = pingpong_tables_of(index, study, plots.pingpong_sizes);
        std::move(own.begin(), own.end(), std::back_inserter(tables));
    }
    return tables;
}

namespace {

// The sizes a floor speaks for: a message that fits a few cache lines.
constexpr std::uint64_t kFloorSizes = 1 << 10;

// Each small size's medians over the floor, one line per size.
std::string floor_lines(const PingpongTable& table, const CacheLineFloor& floor) {
    const std::string& name = table.measurement.name;
    std::string text;
    for (std::size_t r = 0; r < table.sizes.size(); ++r) {
        const std::uint64_t size = table.sizes[r];
        if (size > kFloorSizes || (size == 0 && name != "latency")) continue;
        std::vector<std::pair<std::string, double>> ratios;
        for (std::size_t c = 0; c < table.configs.size(); ++c) {
            const auto& cell = table.cells[r][c];
            if (!cell || !(cell->median > 0)) continue;
            // MB/s of messages of `size` bytes: 1e6 / size messages per second per MB/s,
            // half of them each way in the bidirectional test.
            const double directions = name == "bibandwidth" ? 2 : 1;
            const double value = name == "latency"
                                     ? cell->median / floor.latency_us
                                     : cell->median * 1e6 / static_cast<double>(size) / directions /
                                           floor.message_rate;
            ratios.emplace_back(table.configs[c], value);
        }
        text += floor_ratios_line(
            name == "latency"
                ? fmt::format("{} latency / the floor's", size_label(size))
                : fmt::format("{} messages per second{} / the floor's", size_label(size),
                              name == "bibandwidth" ? " each way" : ""),
            ratios);
    }
    return text;
}

}  // namespace

std::string format_pingpong_tables(const std::vector<PingpongTable>& tables,
                                   const std::optional<CacheLineFloor>& floor) {
    std::string text;
    for (const auto& table : tables) {
        const auto& m = table.measurement;
        text += fmt::format("{} {} ({}, {} is better): ", table.study, m.words, m.unit,
                            m.higher_is_better ? "higher" : "lower");
        text += table.rounds > 1
                    ? fmt::format("median of {} interleaved rounds [min..max]\n", table.rounds)
                    : "one run\n";
        // Columns: a configuration's cells, then the ratios (simpi-smart-h1 -> smart-h1/mpich).
        std::vector<std::string> headers = table.configs;
        for (const auto& config : table.ratio_configs)
            headers.push_back(fmt::format("{}/{}", config.substr(config.find('-') + 1), kMpich));
        std::vector<std::vector<std::string>> rows;
        for (std::size_t r = 0; r < table.sizes.size(); ++r) {
            std::vector<std::string> row;
            for (const auto& cell : table.cells[r]) row.push_back(spread_cell(cell));
            for (const auto& ratio : table.ratios[r])
                row.push_back(!ratio          ? "-"
                              : *ratio >= 0.1 ? fmt::format("{:.2f}", *ratio)
                                              : fmt::format("{:.2g}", *ratio));
            rows.push_back(std::move(row));
        }
        std::vector<std::string> labels;
        for (auto size : table.sizes) labels.push_back(size_label(size));
        text += aligned_table("size", headers, labels, rows);
        if (floor) text += floor_lines(table, *floor);
        text += '\n';
    }
    if (!tables.empty() && floor) text += format_floor(*floor) + '\n';
    if (!tables.empty() && !tables.front().ratio_configs.empty())
        text +=
            "x/mpich: simpi-x's median over mpich's at the same size (latency: below 1 is faster\n"
            "than MPICH; bandwidth: above 1 is faster).\n";
    return text;
}

const std::vector<std::string>& summary_csv_columns() {
    static const std::vector<std::string> columns = {
        "study",  "benchmark", "config",   "runtime",       "mode", "helpers",
        "pairs",  "ranks",     "msg_size", "metric",        "unit", "rounds",
        "median", "min",       "max",      "ratio_to_mpich"};
    return columns;
}

void write_summary_csv(const std::string& path, const ResultIndex& index) {
    bench::CsvWriter out(path);
    out.write_row(summary_csv_columns());
    for (const auto& [row, spread] : index.spreads()) {
        if (row.statistic() != "median") continue;
        const auto base =
            index.value(row.study, std::string(kMpich), row.pairs, row.msg_size, row.metric);
        const std::string ratio =
            base && *base != 0 ? fmt::format("{:.6g}", spread.median / *base) : "";
        const std::vector<std::string> fields = {row.study,
                                                 row.benchmark,
                                                 row.config,
                                                 row.runtime,
                                                 row.mode,
                                                 std::to_string(row.helpers),
                                                 std::to_string(row.pairs),
                                                 std::to_string(row.ranks),
                                                 std::to_string(row.msg_size),
                                                 row.metric,
                                                 row.unit,
                                                 std::to_string(spread.rounds),
                                                 fmt::format("{:.6g}", spread.median),
                                                 fmt::format("{:.6g}", spread.min),
                                                 fmt::format("{:.6g}", spread.max),
                                                 ratio};
        out.write_row(fields);
    }
}

std::string format_blocked_tables(const ResultIndex& index) {
    // A study of microbench/p2p/blocked: its metrics are <quantity>_<call>_median.
    static const std::vector<std::string> calls = {"recv",     "wait",   "probe", "waitany",
                                                   "waitsome", "mprobe", "bcast"};
    struct Quantity {
        std::string prefix, title;
    };
    static const std::vector<Quantity> quantities = {
        {"cpu_share", "CPU of the blocked thread (% of the wall time)"},
        {"wake_delay", "delay after the message left, beyond a brief wait's (us)"}};
    std::string text;
    for (const auto& study : index.studies()) {
        const auto metrics = index.metrics(study);
        if (std::find(metrics.begin(), metrics.end(), "cpu_share_recv_median") == metrics.end())
            continue;
        const int pairs = index.base_pairs(study);
        const auto configs = index.configs(study);
        const auto sizes = index.sizes(study);
        if (sizes.empty()) continue;
        for (const auto& quantity : quantities) {
            text += fmt::format("{}: {}, median over the receivers\n", study, quantity.title);
            std::vector<std::vector<std::string>> rows;
            for (const auto& call : calls) {
                std::vector<std::string> row;
                for (const auto& config : configs) {
                    const auto v = index.value(study, config, pairs, sizes.front(),
                                               quantity.prefix + "_" + call + "_median");
                    row.push_back(v ? compact(*v) : "-");
                }
                rows.push_back(std::move(row));
            }
            text += aligned_table("call", configs, calls, rows);
            text += '\n';
        }
    }
    return text;
}

}  // namespace si::harness
