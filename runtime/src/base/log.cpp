#include "base/log.hpp"

#include <unistd.h>

#include <atomic>
#include <string>

#include "base/error.hpp"

namespace si {

namespace {
std::atomic<int> g_rank{-1};
}

void log::set_rank(int rank) { g_rank.store(rank, std::memory_order_relaxed); }

void log::write_line(std::string_view level, fmt::string_view format, fmt::format_args args) {
    char line[kLineBytes];
    const int rank = g_rank.load(std::memory_order_relaxed);
    char* end = rank >= 0 ? fmt::format_to_n(line, sizeof line - 1, "[si rank {}] {}: ", rank,
                                             level).out
                          : fmt::format_to_n(line, sizeof line - 1, "[si] {}: ", level).out;
    const auto room = static_cast<std::size_t>(line + sizeof line - 1 - end);
    end = fmt::vformat_to_n(end, room, format, args).out;
    *end++ = '\n';
    // One write() so that lines of concurrent processes do not interleave.
    ssize_t ignored = ::write(STDERR_FILENO, line, static_cast<std::size_t>(end - line));
    (void)ignored;
}

std::string errno_message(std::string_view what, int err) {
    char buf[256];
    return fmt::format("{}: {}", what, ::strerror_r(err, buf, sizeof buf));
}

}  // namespace si
