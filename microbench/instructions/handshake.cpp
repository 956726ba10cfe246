#include "instructions/handshake.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <ctime>

namespace si::bench::instructions {

namespace {

// One counter per cache line, so that ranks waiting on different counters do not
// take each other's lines. The layout: ranks barrier counters, then ranks x ranks
// signal counters (from, to). Counters are 32 bits: what a futex waits on.
constexpr std::size_t kLineWords = 64 / sizeof(std::uint32_t);
// Polls before sleeping: an answer that comes within a few microseconds is taken
// without a system call.
constexpr int kPolls = 200;

int size_of(MPI_Comm comm) {
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    return ranks;
}

std::size_t lines_for(int ranks) {
    const auto n = static_cast<std::size_t>(ranks);
    return n + n * n;
}

std::atomic_ref<std::uint32_t> counter(std::uint32_t* word) {
    return std::atomic_ref<std::uint32_t>(*word);
}

// Not FUTEX_PRIVATE_FLAG: the word is shared between processes.
void futex_wait(std::uint32_t* word, std::uint32_t seen) {
    const timespec limit{0, 100'000'000};  // a safety net only: waking is exact
    ::syscall(SYS_futex, word, FUTEX_WAIT, seen, &limit, nullptr, 0);
}

void futex_wake_all(std::uint32_t* word) {
    ::syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace

Handshake::Handshake(MPI_Comm comm)
    : ranks_(size_of(comm)),
      region_(comm, lines_for(size_of(comm)) * kLineWords * sizeof(std::uint32_t)),
      sent_(static_cast<std::size_t>(ranks_), 0),
      consumed_(static_cast<std::size_t>(ranks_), 0) {
    MPI_Comm_rank(comm, &rank_);
}

std::uint32_t* Handshake::line(std::size_t index) const {
    return static_cast<std::uint32_t*>(region_.data()) + index * kLineWords;
}

void Handshake::publish(std::size_t index, std::uint32_t value) const {
    counter(line(index)).store(value, std::memory_order_release);
    futex_wake_all(line(index));
}

// The value is stored before the wake-up and the futex compares it again before
// sleeping, so a wake-up cannot be lost between the check and the sleep.
void Handshake::wait_until_at_least(std::size_t index, std::uint32_t value) const {
    for (int poll = 0; poll < kPolls; ++poll)
        if (counter(line(index)).load(std::memory_order_acquire) >= value) return;
    for (;;) {
        const std::uint32_t seen = counter(line(index)).load(std::memory_order_acquire);
        if (seen >= value) return;
        futex_wait(line(index), seen);
    }
}

void Handshake::barrier() {
    publish(static_cast<std::size_t>(rank_), ++barriers_);
    for (int other = 0; other < ranks_; ++other)
        if (other != rank_) wait_until_at_least(static_cast<std::size_t>(other), barriers_);
}

void Handshake::signal(int to) {
    publish(static_cast<std::size_t>(ranks_ + rank_ * ranks_ + to),
            ++sent_[static_cast<std::size_t>(to)]);
}

void Handshake::wait_for(int from) {
    wait_until_at_least(static_cast<std::size_t>(ranks_ + from * ranks_ + rank_),
                        ++consumed_[static_cast<std::size_t>(from)]);
}

}  // namespace si::bench::instructions
