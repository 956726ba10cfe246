#include "common/csv.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace si::bench {

std::string csv_quote(std::string_view field) {
    if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
    std::string quoted = "\"";
    for (char c : field) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    quoted += '"';
    return quoted;
}

CsvWriter::CsvWriter(const std::string& path) : out_(path, std::ios::out | std::ios::trunc) {
    if (!out_)
        throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

void CsvWriter::write_comment(std::string_view key, std::string_view value) {
    if (!out_.is_open()) return;
    std::string line = fmt::format("# {}: {}", key, value);
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';
    out_ << line << '\n';
}

void CsvWriter::write_row(std::span<const std::string> fields) {
    if (!out_.is_open()) return;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i != 0) out_ << ',';
        out_ << csv_quote(fields[i]);
    }
    // Flushed row by row so that the rows measured so far survive a crash or a
    // time limit later in the run.
    out_ << '\n' << std::flush;
}

}  // namespace si::bench
