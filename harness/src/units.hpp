// Small helpers shared by sibench's parts: message sizes as people write them
// (16k, 1m), comma lists, shell quoting for the commands sibench records, medians.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace si::harness {

// "16384", "16k", "16K", "1m": bytes, with k/m/g meaning powers of 1024 as in the
// benchmarks' --sizes. Throws std::invalid_argument naming the text.
std::uint64_t parse_size(std::string_view text);

// The shortest form parse_size reads back: 16384 -> "16k", 1048576 -> "1m", 100 -> "100".
std::string format_size(std::uint64_t bytes);

// For tables and figure axes: "16 KiB", "1 MiB", "100 B".
std::string size_label(std::uint64_t bytes);

// Splits "a, b,,c" into {"a", "b", "c"}: fields trimmed, empty ones dropped.
std::vector<std::string> split_list(std::string_view text, char separator = ',');

// `word` as one POSIX shell word: unchanged when it is made of safe characters,
// otherwise in single quotes.
std::string shell_quote(std::string_view word);

// Words joined by spaces, each shell-quoted: a command a user can paste.
std::string shell_join(const std::vector<std::string>& words);

// Parses a non-negative integer or throws std::invalid_argument naming `what`.
long parse_count(std::string_view text, std::string_view what);

// A plain-text table for the summaries: a header line, then rows whose first cell
// is a label (left-aligned) and whose other cells are right-aligned values.
struct TextTable {
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;
};
std::string format_table(const TextTable& table);

// The middle value (the mean of the two middle ones for an even count); NaN when empty.
double median_of(std::vector<double> values);

// "2026-11-23T05:07:54Z" (now, UTC) and "20261123T050754Z" (for directory names).
std::string utc_timestamp();
std::string utc_stamp_compact();

}  // namespace si::harness
