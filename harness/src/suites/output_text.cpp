#include "suites/output_text.hpp"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace si::harness {

std::vector<std::string> split_words(std::string_view line) {
    std::vector<std::string> words;
    std::size_t at = 0;
    while (at < line.size()) {
        while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at]))) ++at;
        const std::size_t start = at;
        while (at < line.size() && !std::isspace(static_cast<unsigned char>(line[at]))) ++at;
        if (at > start) words.emplace_back(line.substr(start, at - start));
    }
    return words;
}

std::vector<std::string> split_columns(std::string_view line) {
    std::vector<std::string> columns;
    std::string current;
    int blanks = 0;
    for (char c : line) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++blanks;
            continue;
        }
        if (blanks >= 2 && !current.empty()) {
            columns.push_back(current);
            current.clear();
        } else if (blanks == 1 && !current.empty()) {
            current += ' ';
        }
        blanks = 0;
        current += c;
    }
    if (!current.empty()) columns.push_back(current);
    return columns;
}

std::optional<double> to_number(std::string_view word) {
    if (word.empty()) return std::nullopt;
    const std::string text(word);
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return std::nullopt;
    return value;
}

std::string snake_name(std::string_view text) {
    std::string name;
    bool gap = false;
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            if (gap && !name.empty()) name += '_';
            gap = false;
            name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else {
            gap = true;
        }
    }
    return name;
}

Row suite_row(const RowContext& context, std::string_view suite) {
    Row row;
    row.suite = suite;
    row.benchmark = context.benchmark;
    row.runtime = context.config.runtime_name();
    row.mode = context.config.mode;
    row.helpers = context.config.helpers;
    row.nodes = 1;
    row.ranks_per_node = context.ranks;
    row.host = context.host;
    row.commit = context.commit;
    row.date = context.date;
    row.config = context.config.name();
    row.ranks = context.ranks;
    return row;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

}  // namespace si::harness
