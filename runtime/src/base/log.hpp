// One line per message on stderr, prefixed with the rank so that output of
// several processes can be told apart. A message is formatted on the stack
// (truncated past kLineBytes) and written with one write(): logging allocates
// nothing, so the error paths of a pass in a signal handler may log too.
#pragma once

#include <cstddef>
#include <string_view>

#include <fmt/format.h>

namespace si::log {

inline constexpr std::size_t kLineBytes = 4096;

// Rank shown in the prefix; -1 until the bootstrap knows it.
void set_rank(int rank);

void write_line(std::string_view level, fmt::string_view format, fmt::format_args args);

template <typename... Args>
void warn(fmt::format_string<Args...> format, Args&&... args) {
    write_line("warning", format, fmt::make_format_args(args...));
}

template <typename... Args>
void error(fmt::format_string<Args...> format, Args&&... args) {
    write_line("error", format, fmt::make_format_args(args...));
}

template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
    write_line("info", format, fmt::make_format_args(args...));
}

}  // namespace si::log
