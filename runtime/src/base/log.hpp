// One line per message on stderr, prefixed with the rank so that output of
// several processes can be told apart.
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace si::log {

// Rank shown in the prefix; -1 until the bootstrap knows it.
void set_rank(int rank);

void write_line(std::string_view level, std::string_view message);

template <typename... Args>
void warn(fmt::format_string<Args...> format, Args&&... args) {
    write_line("warning", fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void error(fmt::format_string<Args...> format, Args&&... args) {
    write_line("error", fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
    write_line("info", fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace si::log
