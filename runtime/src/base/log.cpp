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

void log::write_line(std::string_view level, std::string_view message) {
    const int rank = g_rank.load(std::memory_order_relaxed);
    std::string line = rank >= 0 ? fmt::format("[si rank {}] {}: {}\n", rank, level, message)
                                 : fmt::format("[si] {}: {}\n", level, message);
    // One write() so that lines of concurrent processes do not interleave.
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
}

std::string errno_message(std::string_view what, int err) {
    char buf[256];
    return fmt::format("{}: {}", what, ::strerror_r(err, buf, sizeof buf));
}

}  // namespace si
