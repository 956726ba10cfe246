#include "counters.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <libfccp/csv.h>

#include "common/csv.hpp"
#include "config.hpp"

namespace si::harness {

namespace fs = std::filesystem;
using bench::csv_quote;

namespace {

template <unsigned columns>
using Reader = io::CSVReader<columns, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>,
                             io::throw_on_overflow>;

}  // namespace

std::string counters_prefix(const std::string& dir, const std::string& run_id) {
    return (fs::path(dir) / "counters" / run_id).string();
}

std::vector<CounterRow> collect_counters(const std::string& dir,
                                         const std::vector<RunRecord>& runs) {
    std::vector<CounterRow> rows;
    for (const RunRecord& run : runs) {
        if (run.status != "ok") continue;
        const std::string prefix = counters_prefix(dir, run.id);
        for (int rank = 0; rank < run.ranks; ++rank) {
            const std::string path = fmt::format("{}.{}", prefix, rank);
            if (!fs::exists(path)) continue;
            Reader<3> in(path);
            in.read_header(io::ignore_no_column, "rank", "counter", "value");
            CounterRow row;
            row.run = run.id;
            row.study = run.study;
            row.config = run.config;
            while (in.read_row(row.rank, row.counter, row.value)) rows.push_back(row);
        }
    }
    return rows;
}

void write_counters(const std::string& path, const std::vector<CounterRow>& rows) {
    std::ofstream out(path, std::ios::trunc);
    out << "run,study,config,rank,counter,value\n";
    for (const CounterRow& r : rows)
        out << fmt::format("{},{},{},{},{},{}\n", csv_quote(r.run), csv_quote(r.study),
                           csv_quote(r.config), r.rank, csv_quote(r.counter), r.value);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", path));
}

std::vector<CounterRow> read_counters(const std::string& path) {
    std::vector<CounterRow> rows;
    if (!fs::exists(path)) return rows;
    Reader<6> in(path);
    in.read_header(io::ignore_no_column, "run", "study", "config", "rank", "counter", "value");
    CounterRow row;
    while (in.read_row(row.run, row.study, row.config, row.rank, row.counter, row.value))
        rows.push_back(row);
    return rows;
}

std::string format_wakeup_table(const std::vector<CounterRow>& rows) {
    struct Sums {
        std::uint64_t messages = 0, wakeups = 0, futile = 0;
        bool wakes = false;  // the configuration has threads that count wake-ups
    };
    // (study, config) in the order of the comparison.
    const auto less = [](const std::pair<std::string, std::string>& a,
                         const std::pair<std::string, std::string>& b) {
        if (a.first != b.first) return a.first < b.first;
        return config_name_less(a.second, b.second);
    };
    std::map<std::pair<std::string, std::string>, Sums, decltype(less)> sums(less);
    for (const CounterRow& r : rows) {
        Sums& s = sums[{r.study, r.config}];
        if (r.counter == "messages_received") s.messages += r.value;
        // PEF's timer signals interrupt the application as wake-ups do; a
        // turn that found the rank inside MPI did nothing either.
        if (r.counter == "wakeups" || r.counter == "pef_signals") {
            s.wakeups += r.value;
            s.wakes = true;
        }
        if (r.counter == "futile_wakeups" || r.counter == "pef_futile_turns" ||
            r.counter == "pef_busy_turns")
            s.futile += r.value;
    }
    std::string out;
    for (const auto& [key, s] : sums) {
        if (!s.wakes) continue;
        // By value: clang before 16 cannot capture a structured binding.
        const auto per = [messages = s.messages](std::uint64_t n) {
            return messages == 0 ? std::string("-")
                                 : fmt::format("{:.3f}", static_cast<double>(n) / messages);
        };
        out += fmt::format("{:<22} {:<18} {:>10} {:>10} {:>10} {:>12} {:>11}\n", key.first,
                           key.second, s.messages, s.wakeups, s.futile, per(s.wakeups),
                           per(s.futile));
    }
    if (out.empty()) return out;
    return "Wake-ups per message (SI_STATS counters, summed over the ranks of every run; "
           "simpi-pef: timer signals, futile when the turn advanced nothing or found the rank "
           "in MPI)\n" +
           fmt::format("{:<22} {:<18} {:>10} {:>10} {:>10} {:>12} {:>11}\n", "study", "config",
                       "messages", "wakeups", "futile", "wakeups/msg", "futile/msg") +
           out;
}

}  // namespace si::harness
