// Reporters: a human table on stdout and a tidy CSV (one row per statistic of each
// measurement), both preceded by the run's context.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "common/context.hpp"
#include "common/csv.hpp"
#include "common/options.hpp"
#include "common/stats.hpp"

namespace si::bench {

struct Measurement {
    std::string metric;  // "latency": the CSV gets latency_min, latency_median, ...
    std::string unit;    // "us", "MB/s"
    std::size_t msg_size = 0;
    Summary summary;
    Schedule schedule;
    int batch = 1;  // repetitions per sample (Samples::batch)
    // The CSV's `iterations`: timed repetitions behind the statistics. 0: samples x
    // batch. Statistics over ranks, each the mean of its own repetitions, set it to
    // the repetitions per rank, since the sample count is then the rank count.
    long long iterations = 0;
};

// A measurement of one value per rank (or per receiver), each value the mean of the
// rank's own `schedule.iterations` repetitions; the statistics are over the ranks.
Measurement per_rank(std::string metric, std::string unit, std::size_t msg_size,
                     std::span<const double> values, const Schedule& schedule);

// Column names of the CSV, in order.
inline constexpr const char* kCsvColumns[] = {
    "suite",          "benchmark", "runtime", "mode",  "helpers", "nodes",
    "ranks_per_node", "msg_size",  "metric",  "value", "unit",    "iterations",
    "warmup",         "host",      "commit",  "date"};

class Reporter {
  public:
    // Prints the context block (unless quiet) and writes the CSV preamble (when a
    // path is given; throws std::runtime_error if it cannot be created).
    Reporter(std::string suite, std::string benchmark, Context context, const std::string& csv_path,
             bool quiet);

    void add(const Measurement& m);

  private:
    void print_table_row(const Measurement& m);
    void write_csv_rows(const Measurement& m);

    std::string suite_;
    std::string benchmark_;
    Context context_;
    CsvWriter csv_;
    bool quiet_;
    std::string table_metric_;  // metric of the table being printed
};

}  // namespace si::bench
