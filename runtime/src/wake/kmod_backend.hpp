// The `kmod` wake backend: a sleeper waits in its own slot of the si_wake
// device (kmod/, ABI in kmod/include/si_wake_abi.h) and wakers wake the slot
// by id. Words nobody attached, or whose sleeper got no slot, use the futex.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "wake/wake_word.hpp"

namespace si::wake {

inline constexpr const char* kKmodDevice = "/dev/si_wake";

// Why `device` is unusable (absent, not openable, another ABI), or nothing.
std::optional<std::string> kmod_unavailable(const char* device);

// Opens `device` and joins the job `job_token` (0: none); throws si::Error
// if it is unusable.
std::unique_ptr<Backend> make_kmod_backend(const char* device, std::uint64_t job_token);

// The futex backend's two operations, for words without a slot.
void futex_wait(std::atomic<std::uint32_t>& word, std::chrono::milliseconds timeout);
void futex_wake(std::atomic<std::uint32_t>& word);

}  // namespace si::wake
