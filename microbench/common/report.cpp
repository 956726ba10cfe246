#include "common/report.hpp"

#include <cstdio>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace si::bench {

Measurement per_rank(std::string metric, std::string unit, std::size_t msg_size,
                     std::span<const double> values, const Schedule& schedule) {
    return {.metric = std::move(metric),
            .unit = std::move(unit),
            .msg_size = msg_size,
            .summary = summarize(values),
            .schedule = schedule,
            .iterations = schedule.iterations};
}

Reporter::Reporter(std::string suite, std::string benchmark, Context context,
                   const std::string& csv_path, bool quiet)
    : suite_(std::move(suite)),
      benchmark_(std::move(benchmark)),
      context_(std::move(context)),
      quiet_(quiet) {
    if (!csv_path.empty()) csv_ = CsvWriter(csv_path);
    const auto entries = context_.entries();
    csv_.write_comment("suite", suite_);
    csv_.write_comment("benchmark", benchmark_);
    for (const auto& [key, value] : entries) csv_.write_comment(key, value);
    csv_.write_row(std::vector<std::string>(std::begin(kCsvColumns), std::end(kCsvColumns)));
    if (quiet_) return;
    // The same "# key: value" form as the CSV, so one grep reads either.
    fmt::print("# {} / {}\n", suite_, benchmark_);
    for (const auto& [key, value] : entries) fmt::print("# {}: {}\n", key, value);
    std::fflush(stdout);
}

void Reporter::add(const Measurement& m) {
    if (!quiet_) print_table_row(m);
    write_csv_rows(m);
}

void Reporter::print_table_row(const Measurement& m) {
    if (m.metric != table_metric_) {
        table_metric_ = m.metric;
        fmt::print("\n# {} [{}]\n{:>10} {:>7} {:>6} {:>7} {:>12} {:>12} {:>12} {:>12}\n", m.metric,
                   m.unit, "bytes", "samples", "batch", "warmup", "min", "median", "mean", "max");
    }
    const Summary& s = m.summary;
    fmt::print("{:>10} {:>7} {:>6} {:>7} {:>12.2f} {:>12.2f} {:>12.2f} {:>12.2f}\n", m.msg_size,
               s.count, m.batch, m.schedule.warmup, s.min, s.median, s.mean, s.max);
    // Row by row, so that a long sweep shows progress even when piped.
    std::fflush(stdout);
}

void Reporter::write_csv_rows(const Measurement& m) {
    if (!csv_.is_open()) return;
    const std::pair<const char*, double> statistics[] = {{"min", m.summary.min},
                                                         {"median", m.summary.median},
                                                         {"mean", m.summary.mean},
                                                         {"max", m.summary.max}};
    // iterations: every timed repetition (samples x batch), the count the statistics
    // rest on.
    const auto iterations =
        m.iterations > 0 ? m.iterations : static_cast<long long>(m.summary.count) * m.batch;
    for (const auto& [statistic, value] : statistics) {
        // Six significant digits: MPI_Wtime resolves nanoseconds at best, and more
        // digits would only carry binary rounding noise into the CSV.
        const std::vector<std::string> row = {suite_,
                                              benchmark_,
                                              context_.runtime,
                                              context_.mode,
                                              std::to_string(context_.helpers),
                                              std::to_string(context_.nodes),
                                              std::to_string(context_.ranks_per_node),
                                              std::to_string(m.msg_size),
                                              fmt::format("{}_{}", m.metric, statistic),
                                              fmt::format("{:.6g}", value),
                                              m.unit,
                                              std::to_string(iterations),
                                              std::to_string(m.schedule.warmup),
                                              context_.host,
                                              context_.commit,
                                              context_.date};
        csv_.write_row(row);
    }
}

}  // namespace si::bench
