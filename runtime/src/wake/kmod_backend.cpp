#include "wake/kmod_backend.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/error.hpp"
#include "base/log.hpp"
#include "si_wake_abi.h"

namespace si::wake {

namespace {

// Returns an open descriptor of a device that speaks our ABI, or -1 and why.
int open_device(const char* device, std::string& why) {
    const int fd = ::open(device, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        why = fmt::format("cannot open {} ({})", device, std::strerror(errno));
        return -1;
    }
    si_wake_version version{};
    if (::ioctl(fd, SI_WAKE_IOC_VERSION, &version) != 0) {
        why = fmt::format("{} does not answer the version request ({})", device,
                          std::strerror(errno));
        ::close(fd);
        return -1;
    }
    if (version.abi_version != SI_WAKE_ABI_VERSION) {
        why = fmt::format("{} speaks ABI {}, this runtime ABI {}", device, version.abi_version,
                          SI_WAKE_ABI_VERSION);
        ::close(fd);
        return -1;
    }
    return fd;
}

std::uint32_t timeout_ms(std::chrono::milliseconds timeout) {
    return static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(timeout.count(), 0, SI_WAKE_MAX_TIMEOUT_MS));
}

class KmodBackend final : public Backend {
public:
    explicit KmodBackend(int fd) : fd_(fd) {}
    // Closing the descriptor releases this process's slots; wakers still
    // holding their ids get "stale" from the kernel, which is harmless.
    ~KmodBackend() override { ::close(fd_); }
    KmodBackend(const KmodBackend&) = delete;
    KmodBackend& operator=(const KmodBackend&) = delete;

    const char* name() const override { return "kmod"; }

    void attach_sleeper(std::atomic<std::uint32_t>& word,
                        std::atomic<std::uint32_t>& handle) override {
        si_wake_register slot{};
        if (::ioctl(fd_, SI_WAKE_IOC_REGISTER, &slot) != 0) {
            // Out of slots: this word works as with SI_WAKE=futex.
            log::warn("SI_WAKE=kmod: no slot in {} ({}); this thread sleeps on a futex",
                      kKmodDevice, std::strerror(errno));
            handle.store(kNoHandle, std::memory_order_release);
            return;
        }
        bindings_.push_back({&word, &handle, true, slot.seq});
        handle.store(slot.id, std::memory_order_release);
    }

    void attach_waker(std::atomic<std::uint32_t>& word,
                      std::atomic<std::uint32_t>& handle) override {
        bindings_.push_back({&word, &handle, false, 0});
    }

    void wait(std::atomic<std::uint32_t>& word, std::chrono::milliseconds timeout) override {
        Binding* binding = find(word);
        if (binding == nullptr || !binding->sleeper || broken_) {
            futex_wait(word, timeout);
            return;
        }
        // No lost wake-up: the sequence is the one the kernel returned after
        // our last wait (or at registration), so it was read before the
        // caller armed the word. A waker calls the kernel only after moving
        // the word from `sleeping` to `woken`, i.e. after that arm, so its
        // increment comes after our read: the kernel either sees the
        // sequence moved on and returns at once, or wakes us. A wake whose
        // sleeper had not entered the kernel leaves our copy behind, which
        // costs one early return.
        si_wake_wait request{binding->handle->load(std::memory_order_relaxed), binding->seq,
                             timeout_ms(timeout), 0};
        if (::ioctl(fd_, SI_WAKE_IOC_WAIT, &request) == 0) {
            binding->seq = request.seq;
            return;
        }
        if (errno == EINTR) return;  // the caller rechecks its word
        // Only closing our descriptor releases our slot, so this is a broken
        // device; sleeping on a futex nobody wakes at least ends at timeouts.
        log::error("SI_WAKE=kmod: waiting in {} failed ({}); sleeping until timeouts from now on",
                   kKmodDevice, std::strerror(errno));
        broken_ = true;
        futex_wait(word, timeout);
    }

    void wake(std::atomic<std::uint32_t>& word) override {
        const Binding* binding = find(word);
        std::uint32_t id =
            binding == nullptr ? kNoHandle : binding->handle->load(std::memory_order_acquire);
        if (id == kNoHandle) {
            futex_wake(word);
            return;
        }
        si_wake_wake request{};
        request.ids = reinterpret_cast<std::uintptr_t>(&id);
        request.count = 1;
        // A stale id means the sleeper's process is gone: nothing to wake.
        if (::ioctl(fd_, SI_WAKE_IOC_WAKE, &request) != 0 && !warned_.exchange(true))
            log::warn("SI_WAKE=kmod: waking slot {:#x} failed ({})", id, std::strerror(errno));
    }

private:
    struct Binding {
        std::atomic<std::uint32_t>* word;
        std::atomic<std::uint32_t>* handle;  // the slot id's cell in shared memory
        bool sleeper;                        // our slot, we sleep in it
        std::uint32_t seq;                   // sleeper only: sequence last seen
    };

    Binding* find(const std::atomic<std::uint32_t>& word) {
        for (Binding& binding : bindings_)
            if (binding.word == &word) return &binding;
        return nullptr;
    }

    int fd_;
    std::vector<Binding> bindings_;
    std::atomic<bool> broken_{false};
    std::atomic<bool> warned_{false};  // wakers run on any thread
};

}  // namespace

std::optional<std::string> kmod_unavailable(const char* device) {
    std::string why;
    const int fd = open_device(device, why);
    if (fd < 0) return why;
    ::close(fd);
    return std::nullopt;
}

std::unique_ptr<Backend> make_kmod_backend(const char* device, std::uint64_t job_token) {
    std::string why;
    const int fd = open_device(device, why);
    if (fd < 0) fail("SI_WAKE=kmod: {}", why);
    // Slots registered through this file are the job's, and its wakes reach
    // only the job's slots (kmod/include/si_wake_abi.h).
    si_wake_join join{job_token};
    if (job_token != 0 && ::ioctl(fd, SI_WAKE_IOC_JOIN, &join) != 0) {
        const int err = errno;
        ::close(fd);
        fail("SI_WAKE=kmod: {} refuses to join the job ({})", device, std::strerror(err));
    }
    return std::make_unique<KmodBackend>(fd);
}

}  // namespace si::wake
