// The tidy CSVs sibench reads and writes. Reading goes through libfccp (comment lines
// starting with '#' skipped, RFC 4180 quotes), writing through the benchmarks' own
// quoting function (microbench/common/csv.hpp): no CSV parsing of our own.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace si::harness {

class CsvError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// One row of a benchmark's CSV, plus what sibench knows about the run it came from.
struct Row {
    std::string suite, benchmark, runtime, mode;
    int helpers = 0;
    int nodes = 1;
    int ranks_per_node = 1;
    std::uint64_t msg_size = 0;
    std::string metric;  // <measurement>_<min|median|mean|max>
    double value = 0;
    std::string unit;
    long iterations = 0;
    long warmup = 0;
    std::string host, commit, date;
    // sibench's columns (empty / 0 in a benchmark's own CSV):
    std::string config;  // simpi-smart-h1, mpich-async, ...
    std::string study;   // the profile's study the run belongs to
    int pairs = 0;       // ranks / 2; 0 for an application study's run
    std::string run;     // the run's id in runs.csv
    int ranks = 0;       // the job's ranks
    int round = 0;       // 1..rounds of a study repeated in rounds, else 0

    // "latency_median" -> "latency", "median"; a metric without a known statistic
    // suffix is all measurement.
    [[nodiscard]] std::string measurement() const;
    [[nodiscard]] std::string statistic() const;
};

// The benchmarks' 16 columns, then sibench's 6.
const std::vector<std::string>& row_columns();

// The round of a run id ending in ".round<N>" (profile.hpp), else 0.
int round_of_run(std::string_view run_id);

// Reads a benchmark CSV or a results.csv. Missing sibench columns are derived: config
// from runtime/mode/helpers, pairs from nodes x ranks_per_node / 2, ranks from
// nodes x ranks_per_node, round from the run id. Throws CsvError
// naming the file (and line) when a benchmark column is missing or a value is bad.
std::vector<Row> read_rows(const std::string& path);

// Writes rows with the 22 columns; `comments` become `# key: value` lines first.
void write_rows(const std::string& path, const std::vector<Row>& rows,
                const std::vector<std::pair<std::string, std::string>>& comments = {});

// One benchmark execution as runs.csv records it (and manifest.csv plans it).
struct RunRecord {
    std::string id;
    std::string study, benchmark, config;
    int ranks = 0;
    int pairs = 0;
    int nodes = 0;           // 0: one host (simulated nodes for simpi)
    int ranks_per_node = 0;  // 0: one host
    // planned, ok, failed, timeout, skipped, interrupted
    std::string status = "planned";
    int exit_status = -1;  // -1 when the run did not end on its own
    double seconds = 0;
    std::string command;  // as a shell would run it, environment first
    std::string log;      // relative to the run directory
    std::string csv;      // relative to the run directory
    std::string note;     // why a run was skipped or failed
    // Tasks of other jobs running when the run started (mean over 0.1 s; -1:
    // unknown): a run that started on a busy machine measured other jobs too.
    double others_running = -1;
};

const std::vector<std::string>& run_columns();
std::vector<RunRecord> read_runs(const std::string& path);
void write_runs(const std::string& path, const std::vector<RunRecord>& runs);

}  // namespace si::harness
