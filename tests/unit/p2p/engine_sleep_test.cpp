// Engine::wait's sleep on the doorbell and what it counts: a message that
// rings ends the sleep; a sleep that outlasts a slow peer times out harmlessly
// (wait_timeouts); a message that arrives during a sleep without ringing is a
// lost wake-up (lost_wakeups), the counter the integration tests require to
// stay 0. The message comes from another thread through a one-message
// transport, so that the arrival falls inside the sleep.
#include "p2p/engine.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "p2p/tuple.hpp"
#include "wake/backends.hpp"

namespace si::p2p {
namespace {

using namespace std::chrono_literals;

constexpr std::uint16_t kContext = 4;
constexpr int kTag = 9;

// Rank 0 talking to itself; deliver() hands one eager message to the next
// progress pass, from any thread.
class OneMessageTransport final : public transport::Transport {
public:
    void deliver() { ready_.store(true, std::memory_order_release); }

    const transport::Capabilities& capabilities() const override { return capabilities_; }
    transport::Registration register_memory(const void* address, std::size_t bytes) override {
        return {const_cast<void*>(address), bytes, 0, nullptr};
    }
    void deregister_memory(transport::Registration& registration) override { registration = {}; }
    transport::Result send(int, std::uint64_t, std::span<const std::byte>,
                           std::span<const std::byte>) override {
        return transport::Result::failed;
    }
    void repost(const transport::Arrival&) override {}
    transport::Result rdma_read(int, void*, std::size_t, transport::RemoteKey,
                                std::uint64_t) override {
        return transport::Result::failed;
    }
    transport::Result rdma_write(int, const void*, std::size_t, transport::RemoteKey,
                                 std::uint64_t) override {
        return transport::Result::failed;
    }
    int progress(transport::Events& events) override {
        if (delivered_ || !ready_.load(std::memory_order_acquire)) return 0;
        delivered_ = true;
        transport::Arrival arrival;
        arrival.peer = 0;
        arrival.tuple = Tuple{MessageKind::eager, kContext, 0, kTag}.pack();
        arrival.body = reinterpret_cast<const std::byte*>(&payload_);
        arrival.bytes = sizeof payload_;
        events.message_arrived(arrival);
        return 1;
    }
    transport::Armed arm() override { return transport::Armed::ok; }
    std::size_t messages_in_flight(int) const override { return 0; }
    bool last_message_untaken(int) const override { return false; }

private:
    transport::Capabilities capabilities_{"one-message", 64, false, false, true};
    std::atomic<bool> ready_{false};
    bool delivered_ = false;
    int payload_ = 42;
};

class EngineSleep : public ::testing::Test {
protected:
    EngineSleep()
        : backend_(wake::make_backend(config::WakeBackend::futex)), lock_(lock_word_),
          engine_(0, {&transport_}, lock_, Engine::Options{16384, std::chrono::microseconds(0)}) {
        engine_.set_doorbell(doorbell_, *backend_);
    }

    // Posts a receive, has another thread deliver the message after `delay`
    // (ringing the doorbell if `ring`), and waits for it.
    void receive_delivered_after(std::chrono::milliseconds delay, bool ring) {
        int value = 0;
        const std::int32_t world[] = {0};
        Request* request =
            engine_.irecv(&value, sizeof value, 0, kTag, CommRef{kContext, 0, world}, kContext);
        std::thread peer([&] {
            std::this_thread::sleep_for(delay);
            transport_.deliver();
            if (ring) wake::wake_if_sleeping(*backend_, doorbell_);
        });
        engine_.wait(request);
        peer.join();
        EXPECT_EQ(value, 42);
        engine_.release(request);
    }

    std::unique_ptr<wake::Backend> backend_;
    std::atomic<std::uint32_t> lock_word_{0};
    std::atomic<std::uint32_t> doorbell_{0};
    ProgressLock lock_;
    OneMessageTransport transport_;
    Engine engine_;
};

TEST_F(EngineSleep, AMessageThatRingsEndsTheSleep) {
    receive_delivered_after(20ms, true);
    EXPECT_GE(engine_.stats().wait_sleeps, 1u);
    EXPECT_EQ(engine_.stats().lost_wakeups, 0u);
}

TEST_F(EngineSleep, ASleepThatOutlastsASlowPeerIsNoLostWakeup) {
    receive_delivered_after(300ms, true);
    EXPECT_GE(engine_.stats().wait_timeouts, 1u);
    EXPECT_EQ(engine_.stats().lost_wakeups, 0u);
}

TEST_F(EngineSleep, AMessageThatDoesNotRingIsALostWakeup) {
    receive_delivered_after(20ms, false);
    EXPECT_GE(engine_.stats().wait_timeouts, 1u);
    EXPECT_EQ(engine_.stats().lost_wakeups, 1u);
}

}  // namespace
}  // namespace si::p2p
