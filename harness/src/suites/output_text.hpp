// Small pieces the suites' output parsers share: words of a line, numbers, a row
// filled with what every row of a run carries.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "suites/suite.hpp"

namespace si::harness {

// Splits on runs of blanks.
std::vector<std::string> split_words(std::string_view line);

// Splits a header on runs of two or more blanks, so that "Avg Latency(us)" stays
// one name (OSU pads its columns to 18 characters).
std::vector<std::string> split_columns(std::string_view line);

// The whole word as a number ("1000", "0.35", "1e-3"), else nullopt.
std::optional<double> to_number(std::string_view word);

// "Pure Comm." -> "pure_comm": lower-case, every run of other characters one '_'.
std::string snake_name(std::string_view text);

// A row of `suite` with the run's benchmark, configuration, job size, host, commit
// and date filled in (one host: nodes 1, ranks_per_node = ranks).
Row suite_row(const RowContext& context, std::string_view suite);

// Every line of `text`, without the line ends.
std::vector<std::string> split_lines(const std::string& text);

}  // namespace si::harness
