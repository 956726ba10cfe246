// CSV output of the benchmark harness.
//
// Debian 12 offers no header-only C++ CSV writer: libcsv is a compiled C library
// (one more runtime dependency on every cluster node for ten lines of quoting) and
// libfccp only parses. So quoting lives here, in one function, and every field of
// every CSV the harness writes goes through it.
#pragma once

#include <fstream>
#include <span>
#include <string>
#include <string_view>

namespace si::bench {

// Returns `field` as RFC 4180 asks: unchanged when it holds no comma, double quote,
// CR or LF; otherwise enclosed in double quotes with inner quotes doubled.
std::string csv_quote(std::string_view field);

// A CSV file: `# key: value` comment lines first (the run's context), then rows.
// Lines end in LF rather than RFC 4180's CRLF: gnuplot and awk would otherwise see
// the CR as part of the last field, and CSV readers accept either.
class CsvWriter {
  public:
    CsvWriter() = default;                        // writes nothing
    explicit CsvWriter(const std::string& path);  // throws std::runtime_error

    [[nodiscard]] bool is_open() const { return out_.is_open(); }

    // Newlines in `value` become spaces so that one comment stays one line.
    void write_comment(std::string_view key, std::string_view value);
    void write_row(std::span<const std::string> fields);

  private:
    std::ofstream out_;
};

}  // namespace si::bench
