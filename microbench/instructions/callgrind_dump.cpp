#include "instructions/callgrind_dump.hpp"

#include <charconv>
#include <vector>

#include <fmt/format.h>

namespace si::bench::instructions {

namespace {

std::vector<std::string_view> words_of(std::string_view text) {
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto start = text.find_first_not_of(" \t\r", at);
        if (start == std::string_view::npos) break;
        const auto end = text.find_first_of(" \t\r", start);
        words.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
        at = end == std::string_view::npos ? text.size() : end;
    }
    return words;
}

std::optional<std::uint64_t> number_of(std::string_view word) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (error != std::errc() || end != word.data() + word.size()) return std::nullopt;
    return value;
}

}  // namespace

std::optional<std::uint64_t> dump_total(std::string_view text, std::string_view event) {
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t column = kNone;  // the event's place in the events line
    std::optional<std::uint64_t> totals, summary;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto end = text.find('\n', at);
        const std::string_view line =
            text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
        at = end == std::string_view::npos ? text.size() : end + 1;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string_view key = line.substr(0, colon);
        const auto words = words_of(line.substr(colon + 1));
        if (key == "events") {
            column = kNone;
            for (std::size_t i = 0; i < words.size(); ++i)
                if (words[i] == event) column = i;
        } else if ((key == "totals" || key == "summary") && column != kNone) {
            // An event without a number in these lines has a total of 0.
            const auto value =
                column < words.size() ? number_of(words[column]) : std::optional<std::uint64_t>(0);
            (key == "totals" ? totals : summary) = value;
        }
    }
    return totals ? totals : summary;
}

std::string dump_path(const std::string& out_file, int dump) {
    return fmt::format("{}.{}", out_file, dump);
}

}  // namespace si::bench::instructions
