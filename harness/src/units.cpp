#include "units.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <limits>
#include <stdexcept>

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace si::harness {

namespace {

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
    const std::string_view word = trim(text);
    std::uint64_t number = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), number);
    const std::string_view suffix(end, static_cast<std::size_t>(word.data() + word.size() - end));
    if (ec != std::errc{} || end == word.data())
        throw std::invalid_argument(
            fmt::format("invalid message size '{}' (bytes, or with k/m/g: 16k, 1m)", text));
    int shift = 0;
    if (suffix.empty() || suffix == "b" || suffix == "B")
        shift = 0;
    else if (suffix == "k" || suffix == "K" || suffix == "kb" || suffix == "KB")
        shift = 10;
    else if (suffix == "m" || suffix == "M" || suffix == "mb" || suffix == "MB")
        shift = 20;
    else if (suffix == "g" || suffix == "G" || suffix == "gb" || suffix == "GB")
        shift = 30;
    else
        throw std::invalid_argument(
            fmt::format("invalid size suffix in '{}' (valid: none, k, m, g)", text));
    if (shift != 0 && number > (std::uint64_t{1} << (63 - shift)))
        throw std::invalid_argument(fmt::format("message size '{}' is too large", text));
    return number << shift;
}

std::string format_size(std::uint64_t bytes) {
    if (bytes != 0 && bytes % (std::uint64_t{1} << 30) == 0) return fmt::format("{}g", bytes >> 30);
    if (bytes != 0 && bytes % (std::uint64_t{1} << 20) == 0) return fmt::format("{}m", bytes >> 20);
    if (bytes != 0 && bytes % (std::uint64_t{1} << 10) == 0) return fmt::format("{}k", bytes >> 10);
    return std::to_string(bytes);
}

std::string size_label(std::uint64_t bytes) {
    if (bytes != 0 && bytes % (std::uint64_t{1} << 20) == 0)
        return fmt::format("{} MiB", bytes >> 20);
    if (bytes != 0 && bytes % (std::uint64_t{1} << 10) == 0)
        return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} B", bytes);
}

std::vector<std::string> split_list(std::string_view text, char separator) {
    std::vector<std::string> fields;
    while (true) {
        const auto at = text.find(separator);
        const std::string_view field = trim(text.substr(0, at));
        if (!field.empty()) fields.emplace_back(field);
        if (at == std::string_view::npos) break;
        text.remove_prefix(at + 1);
    }
    return fields;
}

std::string shell_quote(std::string_view word) {
    const bool safe = !word.empty() && word.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_-+=./:,@%") == std::string_view::npos;
    if (safe) return std::string(word);
    std::string quoted = "'";
    for (char c : word) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    return quoted + "'";
}

std::string shell_join(const std::vector<std::string>& words) {
    std::string line;
    for (const auto& word : words) {
        if (!line.empty()) line += ' ';
        line += shell_quote(word);
    }
    return line;
}

long parse_count(std::string_view text, std::string_view what) {
    const std::string_view word = trim(text);
    long value = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc{} || end != word.data() + word.size() || word.empty() || value < 0)
        throw std::invalid_argument(
            fmt::format("{}: '{}' is not a non-negative integer", what, text));
    return value;
}

std::string utc_timestamp() {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(now));
}

std::string utc_stamp_compact() {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    return fmt::format("{:%Y%m%dT%H%M%SZ}", fmt::gmtime(now));
}

double median_of(std::vector<double> values) {
    if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string format_table(const TextTable& table) {
    std::vector<std::size_t> widths(table.headers.size());
    for (std::size_t c = 0; c < widths.size(); ++c) {
        widths[c] = table.headers[c].size();
        for (const auto& row : table.rows) widths[c] = std::max(widths[c], row[c].size());
    }
    std::string text;
    const auto line = [&](const std::vector<std::string>& cells) {
        std::string out = fmt::format("{:<{}}", cells[0], widths[0]);
        for (std::size_t c = 1; c < cells.size(); ++c)
            out += fmt::format("  {:>{}}", cells[c], widths[c]);
        text += out + '\n';
    };
    line(table.headers);
    for (const auto& row : table.rows) line(row);
    return text;
}

}  // namespace si::harness
