#include "wake/backends.hpp"

#include "base/futex.hpp"
#include "wake/kmod_backend.hpp"

namespace si::wake {

namespace {

class FutexBackend final : public Backend {
public:
    const char* name() const override { return "futex"; }

    void wait(std::atomic<std::uint32_t>& word, std::chrono::milliseconds timeout) override {
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
        const timespec relative{static_cast<time_t>(seconds.count()),
                                static_cast<long>((timeout - seconds).count()) * 1'000'000L};
        const std::uint32_t sleeping = word.load(std::memory_order_acquire);
        if (state_of(sleeping) == kSleeping) futex::wait(word, sleeping, &relative);
    }

    void wake(std::atomic<std::uint32_t>& word) override { futex::wake(word, 1); }
};

}  // namespace

void futex_wait(std::atomic<std::uint32_t>& word, std::chrono::milliseconds timeout) {
    FutexBackend().wait(word, timeout);
}

void futex_wake(std::atomic<std::uint32_t>& word) { FutexBackend().wake(word); }

std::optional<std::string> backend_unavailable(config::WakeBackend choice) {
    switch (choice) {
        case config::WakeBackend::futex: return std::nullopt;
        case config::WakeBackend::kmod: return kmod_unavailable(kKmodDevice);
    }
    return std::nullopt;
}

std::unique_ptr<Backend> make_backend(config::WakeBackend choice, std::uint64_t job_token) {
    switch (choice) {
        case config::WakeBackend::futex: break;
        case config::WakeBackend::kmod: return make_kmod_backend(kKmodDevice, job_token);
    }
    return std::make_unique<FutexBackend>();
}

}  // namespace si::wake
