#include "loopback_transport.hpp"

#include <cstring>

namespace si::test {

class LoopbackFabric::Endpoint final : public transport::Transport {
public:
    Endpoint(LoopbackFabric& fabric, int rank)
        : fabric_(fabric), rank_(rank), delivered_(fabric.inbox_.size(), 0) {
        capabilities_ = transport::Capabilities{"loopback", 1 << 20, true, true};
        // Vectored transports finish every read before returning.
        capabilities_.vectored = !fabric.deferred_rdma_;
    }

    const transport::Capabilities& capabilities() const override { return capabilities_; }

    transport::Registration register_memory(const void* address, std::size_t bytes) override {
        return {const_cast<void*>(address), bytes, 7, nullptr};
    }
    void deregister_memory(transport::Registration& r) override { r = {}; }

    transport::Result send(int peer, std::uint64_t tuple, std::span<const std::byte> header,
                           std::span<const std::byte> payload) override {
        auto& queue = fabric_.inbox_[peer][rank_];
        if (static_cast<int>(queue.size()) >= fabric_.slots_) return transport::Result::retry;
        Message message{tuple, {}};
        message.body.insert(message.body.end(), header.begin(), header.end());
        message.body.insert(message.body.end(), payload.begin(), payload.end());
        queue.push_back(std::move(message));
        return transport::Result::done;
    }

    void repost(const transport::Arrival& arrival) override {
        fabric_.inbox_[rank_][arrival.peer].pop_front();
        --delivered_[arrival.peer];
    }

    transport::Result rdma_read(int, void* local, std::size_t bytes, transport::RemoteKey remote,
                                std::uint64_t cookie) override {
        std::memcpy(local, reinterpret_cast<const void*>(remote.address), bytes);
        return finish(cookie);
    }
    transport::Result rdma_readv(int, std::span<const transport::Segment> local,
                                 transport::RemoteKey key) override {
        std::uint64_t remote = key.address;
        for (const transport::Segment& piece : local) {
            std::memcpy(reinterpret_cast<void*>(piece.address), reinterpret_cast<const void*>(remote),
                        piece.bytes);
            remote += piece.bytes;
        }
        return transport::Result::done;
    }
    transport::Result rdma_write(int, const void* local, std::size_t bytes,
                                 transport::RemoteKey remote, std::uint64_t cookie) override {
        std::memcpy(reinterpret_cast<void*>(remote.address), local, bytes);
        return finish(cookie);
    }

    int progress(transport::Events& events) override {
        int handled = 0;
        std::vector<std::uint64_t> completions;
        completions.swap(deferred_);
        for (std::uint64_t cookie : completions) {
            events.rdma_completed(cookie, 0);
            ++handled;
        }
        for (int sender = 0; sender < static_cast<int>(delivered_.size()); ++sender) {
            auto& queue = fabric_.inbox_[rank_][sender];
            while (delivered_[sender] < queue.size()) {
                const Message& message = queue[delivered_[sender]++];
                transport::Arrival arrival{sender, message.tuple, message.body.data(),
                                           message.body.size(), 0};
                events.message_arrived(arrival);
                ++handled;
            }
        }
        return handled;
    }

    // The engine tests never sleep on a doorbell.
    transport::Armed arm() override { return transport::Armed::ok; }
    std::size_t messages_in_flight(int) const override { return 0; }
    bool last_message_untaken(int) const override { return false; }

private:
    transport::Result finish(std::uint64_t cookie) {
        if (!fabric_.deferred_rdma_) return transport::Result::done;
        deferred_.push_back(cookie);
        return transport::Result::posted;
    }

    LoopbackFabric& fabric_;
    int rank_;
    std::vector<std::size_t> delivered_;
    std::vector<std::uint64_t> deferred_;
    transport::Capabilities capabilities_;
};

transport::Transport& LoopbackFabric::endpoint(int rank) { return *endpoints_[rank]; }

LoopbackFabric::LoopbackFabric(int ranks, int slots_per_sender, bool deferred_rdma)
    : inbox_(ranks, std::vector<std::deque<Message>>(ranks)), slots_(slots_per_sender),
      deferred_rdma_(deferred_rdma) {
    for (int r = 0; r < ranks; ++r) endpoints_.push_back(std::make_unique<Endpoint>(*this, r));
}

}  // namespace si::test
namespace si::test { LoopbackFabric::~LoopbackFabric() = default; }
