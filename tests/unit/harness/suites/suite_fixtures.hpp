// The suites' real output (fixtures/README.md says where each file comes from) and
// the context a parser gets for a run.
#pragma once

#include <string>
#include <vector>

#include "config.hpp"
#include "suites/suite.hpp"
#include "test_files.hpp"

namespace si::harness::test {

inline std::string suite_fixture(const std::string& name) {
    return read_text(std::string(SI_SUITE_FIXTURE_DIR) + "/" + name);
}

inline RowContext run_context(const std::string& benchmark, const std::string& config, int ranks,
                              std::vector<std::string> args = {}) {
    RowContext context;
    context.benchmark = benchmark;
    context.config = parse_config(config);
    context.ranks = ranks;
    context.args = std::move(args);
    context.host = "vm";
    context.commit = "abc123";
    context.date = "2026-11-25T06:16:45Z";
    return context;
}

// The rows of one metric, in output order.
inline std::vector<Row> rows_of(const SuiteOutput& output, const std::string& metric) {
    std::vector<Row> rows;
    for (const auto& row : output.rows)
        if (row.metric == metric) rows.push_back(row);
    return rows;
}

}  // namespace si::harness::test
