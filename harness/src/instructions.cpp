#include "instructions.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "config.hpp"
#include "units.hpp"

namespace si::harness {

namespace {

constexpr std::string_view kPrefix = "instructions_";

// microbench/instructions/protocols.cpp's order: the per-message path first.
const std::vector<std::string>& operation_order() {
    static const std::vector<std::string> order = {
        "pingpong", "isend_window", "irecv_window", "both_windows", "barrier",   "bcast",
        "reduce",   "allreduce",    "gather",       "scatter",      "allgather", "alltoall"};
    return order;
}

std::size_t operation_rank(const std::string& operation) {
    const auto& order = operation_order();
    return static_cast<std::size_t>(std::find(order.begin(), order.end(), operation) -
                                    order.begin());
}

bool operation_less(const std::pair<std::string, std::uint64_t>& a,
                    const std::pair<std::string, std::uint64_t>& b) {
    return std::tuple(operation_rank(a.first), a.first, a.second) <
           std::tuple(operation_rank(b.first), b.first, b.second);
}

// `name` when `configs` has it, else "".
std::string present(const std::vector<std::string>& configs, std::string_view name) {
    return std::find(configs.begin(), configs.end(), name) != configs.end() ? std::string(name)
                                                                            : "";
}

std::string count_cell(const std::optional<InstructionCell>& cell) {
    if (!cell) return "-";
    const double v = cell->shown();
    std::string text = v >= 1000 || v == static_cast<long long>(v) ? fmt::format("{:.0f}", v)
                                                                   : fmt::format("{:.1f}", v);
    return cell->polled() ? text + "~" : text;
}

std::string ratio_cell(const std::optional<InstructionCell>& own,
                       const std::optional<InstructionCell>& base) {
    if (!own || !base || !(base->shown() > 0)) return "-";
    const std::string ratio = fmt::format("{:.2f}", own->shown() / base->shown());
    return own->polled() || base->polled() ? ratio + "~" : ratio;
}

// The faster peer of one row: the fewer instructions of MPICH and Open MPI.
std::optional<InstructionCell> faster_peer(const std::optional<InstructionCell>& mpich,
                                           const std::optional<InstructionCell>& openmpi) {
    if (!mpich) return openmpi;
    if (!openmpi) return mpich;
    return openmpi->shown() < mpich->shown() ? openmpi : mpich;
}

}  // namespace

std::string instruction_operation(const std::string& metric) {
    if (!metric.starts_with(kPrefix)) return "";
    const auto last = metric.rfind('_');
    if (last == std::string::npos || last < kPrefix.size()) return "";
    return metric.substr(kPrefix.size(), last - kPrefix.size());
}

std::vector<InstructionTable> instruction_tables(const std::vector<Row>& rows) {
    // (study, ranks) -> (config, operation, size) -> values of the runs' medians / mins.
    using Cell = std::tuple<std::string, std::string, std::uint64_t>;
    struct Values {
        std::vector<double> medians, mins;
    };
    std::map<std::pair<std::string, int>, std::map<Cell, Values>> found;
    for (const Row& row : rows) {
        if (row.suite != kInstructionsSuite) continue;
        const std::string operation = instruction_operation(row.metric);
        const std::string stat = row.statistic();
        if (operation.empty() || (stat != "median" && stat != "min")) continue;
        auto& values = found[{row.study, row.ranks}][{row.config, operation, row.msg_size}];
        (stat == "median" ? values.medians : values.mins).push_back(row.value);
    }
    std::vector<InstructionTable> tables;
    for (const auto& [where, cells] : found) {
        InstructionTable table;
        table.study = where.first;
        table.ranks = where.second;
        for (const auto& [cell, values] : cells) {
            const auto& [config, operation, size] = cell;
            if (std::find(table.configs.begin(), table.configs.end(), config) ==
                table.configs.end())
                table.configs.push_back(config);
            if (std::find(table.rows.begin(), table.rows.end(), std::pair(operation, size)) ==
                table.rows.end())
                table.rows.emplace_back(operation, size);
        }
        std::sort(table.configs.begin(), table.configs.end(), config_name_less);
        std::sort(table.rows.begin(), table.rows.end(), operation_less);
        for (const auto& [operation, size] : table.rows) {
            std::vector<std::optional<InstructionCell>> line;
            for (const auto& config : table.configs) {
                const auto it = cells.find({config, operation, size});
                if (it == cells.end() || it->second.medians.empty()) {
                    line.emplace_back();
                    continue;
                }
                const auto& mins = it->second.mins;
                const double median = median_of(it->second.medians);
                line.push_back(InstructionCell{
                    median, mins.empty() ? median : *std::min_element(mins.begin(), mins.end())});
            }
            table.cells.push_back(std::move(line));
        }
        tables.push_back(std::move(table));
    }
    return tables;
}

std::string format_instruction_tables(const std::vector<InstructionTable>& tables) {
    std::string text;
    for (const auto& table : tables) {
        const std::string mpich = present(table.configs, "mpich");
        const std::string openmpi = present(table.configs, "openmpi");
        const bool peers = !mpich.empty() || !openmpi.empty();
        TextTable out;
        out.headers = {"operation", "size"};
        out.headers.insert(out.headers.end(), table.configs.begin(), table.configs.end());
        std::vector<std::size_t> ours;
        for (std::size_t c = 0; c < table.configs.size(); ++c)
            if (table.configs[c].starts_with("simpi-")) ours.push_back(c);
        for (std::size_t c : ours) {
            const std::string mode = table.configs[c].substr(table.configs[c].find('-') + 1);
            if (!mpich.empty()) out.headers.push_back(mode + "/mpich");
            if (peers) out.headers.push_back(mode + "/peer");
        }
        const auto column = [&](const std::string& config) -> std::optional<std::size_t> {
            const auto it = std::find(table.configs.begin(), table.configs.end(), config);
            if (config.empty() || it == table.configs.end()) return std::nullopt;
            return static_cast<std::size_t>(it - table.configs.begin());
        };
        for (std::size_t r = 0; r < table.rows.size(); ++r) {
            const auto& cells = table.cells[r];
            std::vector<std::string> line = {table.rows[r].first, size_label(table.rows[r].second)};
            for (const auto& cell : cells) line.push_back(count_cell(cell));
            const auto cell_of = [&](std::optional<std::size_t> c) {
                return c ? cells[*c] : std::optional<InstructionCell>();
            };
            const auto peer = faster_peer(cell_of(column(mpich)), cell_of(column(openmpi)));
            for (std::size_t c : ours) {
                if (!mpich.empty()) line.push_back(ratio_cell(cells[c], cell_of(column(mpich))));
                if (peers) line.push_back(ratio_cell(cells[c], peer));
            }
            out.rows.push_back(std::move(line));
        }
        text += fmt::format(
            "{}: instructions per operation on rank 0, {} ranks (callgrind; median of the "
            "repetitions, lower is better)\n",
            table.study, table.ranks);
        text += format_table(out) + '\n';
    }
    if (!tables.empty())
        text +=
            "Windows (isend_window, irecv_window, both_windows) are per message (both_windows:\n"
            "one sent and one received); the others per call of rank 0, the root. x/peer: over\n"
            "the fewer of MPICH's and Open MPI's. ~: rank 0 polled for a peer in most\n"
            "repetitions (the median is over 1.5x the least count); the cell shows the least\n"
            "count, the cheapest repetition, which may still hold some polling.\n";
    return text;
}

}  // namespace si::harness
