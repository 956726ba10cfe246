// The `kmod` wake backend where the si_wake module is absent (as in the
// development containers): the runtime must learn why and fall back to the
// futex. The module itself is tested in the guest VM (tests/vm/).
#include "wake/kmod_backend.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "base/error.hpp"
#include "wake/backends.hpp"

namespace si::wake {
namespace {

TEST(KmodBackend, MissingDeviceIsNamed) {
    const auto why = kmod_unavailable("/nonexistent/si_wake");
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("cannot open /nonexistent/si_wake"), std::string::npos) << *why;
}

TEST(KmodBackend, DeviceThatIsNotSiWakeIsRefused) {
    const auto why = kmod_unavailable("/dev/null");
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("does not answer"), std::string::npos) << *why;
    EXPECT_THROW(make_kmod_backend("/dev/null", 0), si::Error);
}

TEST(KmodBackend, UnavailableHereMeansFallback) {
    if (::access(kKmodDevice, F_OK) == 0) GTEST_SKIP() << kKmodDevice << " exists here";
    EXPECT_TRUE(backend_unavailable(config::WakeBackend::kmod).has_value());
    EXPECT_THROW(make_backend(config::WakeBackend::kmod), si::Error);
    EXPECT_FALSE(backend_unavailable(config::WakeBackend::futex).has_value());
}

// The futex backend names no sleeper: it clears the handle, so that wakers
// of a word whose sleeper uses the futex use it too.
TEST(KmodBackend, FutexSleeperPublishesNoHandle) {
    auto backend = make_backend(config::WakeBackend::futex);
    std::atomic<std::uint32_t> word{kRunning};
    std::atomic<std::uint32_t> handle{1234};
    backend->attach_sleeper(word, handle);
    EXPECT_EQ(handle.load(), Backend::kNoHandle);
}

}  // namespace
}  // namespace si::wake
