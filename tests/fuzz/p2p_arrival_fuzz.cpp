// Arrivals at a rank's engine as a peer (or a corrupt one) may send them:
// eager data, RTSs, FINs and the other control messages, for receives
// posted, unexpected, cancelled or completed. The input is a script: each
// step either posts a receive or a send of the rank's own (so arrivals meet
// requests in every state) or delivers one message (tuple and body) from
// one of two peers. The transport touches no memory it was not given: a
// read or write of peer memory completes without copying (alternately with
// an error), as a NIC or process_vm_readv refuses an address outside the
// peer; the engine must not read or write outside what it owns either.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

#include "p2p/engine.hpp"

namespace {

using namespace si;

class InertTransport final : public transport::Transport {
  public:
    InertTransport() { capabilities_ = transport::Capabilities{"inert", 1 << 16, true, true}; }
    const transport::Capabilities& capabilities() const override { return capabilities_; }
    transport::Registration register_memory(const void* address, std::size_t bytes) override {
        return {const_cast<void*>(address), bytes, 1, nullptr};
    }
    void deregister_memory(transport::Registration& r) override { r = {}; }
    transport::Result send(int, std::uint64_t, std::span<const std::byte>,
                           std::span<const std::byte>) override {
        return transport::Result::done;
    }
    void repost(const transport::Arrival&) override {
        arrivals_.pop_front();
        delivering_ = false;
    }
    transport::Result rdma_read(int, void*, std::size_t, transport::RemoteKey,
                                std::uint64_t cookie) override {
        completions_.push_back(cookie);
        return transport::Result::posted;
    }
    transport::Result rdma_write(int, const void*, std::size_t, transport::RemoteKey,
                                 std::uint64_t cookie) override {
        completions_.push_back(cookie);
        return transport::Result::posted;
    }
    std::size_t messages_in_flight(int) const override { return 0; }
    bool last_message_untaken(int) const override { return false; }
    int progress(transport::Events& events) override {
        std::vector<std::uint64_t> done;
        done.swap(completions_);
        for (std::uint64_t cookie : done) events.rdma_completed(cookie, (flip_ = !flip_) ? 0 : 5);
        int handled = static_cast<int>(done.size());
        // One arrival at a time, taken back by repost() as a slot is.
        while (!arrivals_.empty() && !delivering_) {
            const Message& m = arrivals_.front();
            delivering_ = true;
            if (!events.message_arrived(
                    transport::Arrival{m.peer, m.tuple, m.body.data(), m.bytes, 0}))
                break;
            ++handled;
        }
        return handled;
    }
    // A message from `peer`, delivered at the next progress().
    void arrive(int peer, std::uint64_t tuple, std::span<const std::byte> body) {
        std::vector<std::byte> copy(body.begin(), body.end());
        copy.resize(std::max<std::size_t>(copy.size(), 64));  // headers are read whole
        arrivals_.push_back(Message{peer, tuple, std::move(copy), body.size()});
    }
    transport::Armed arm() override { return transport::Armed::ok; }

  private:
    struct Message {
        int peer;
        std::uint64_t tuple;
        std::vector<std::byte> body;
        std::size_t bytes;
    };
    transport::Capabilities capabilities_;
    std::vector<std::uint64_t> completions_;
    std::deque<Message> arrivals_;
    bool delivering_ = false;
    bool flip_ = false;
};

// Reads the script's bytes in order; zeros once it runs out.
class Script {
  public:
    explicit Script(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
    bool done() const { return at_ >= bytes_.size(); }
    template <typename T>
    T take() {
        T value{};
        const std::size_t n = std::min(sizeof value, bytes_.size() - std::min(at_, bytes_.size()));
        if (n > 0) std::memcpy(&value, bytes_.data() + at_, n);
        at_ += sizeof value;
        return value;
    }
    std::span<const std::byte> take_bytes(std::size_t n) {
        const std::size_t start = std::min(at_, bytes_.size());
        const std::size_t count = std::min(n, bytes_.size() - start);
        at_ += n;
        return {reinterpret_cast<const std::byte*>(bytes_.data() + start), count};
    }

  private:
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    constexpr int kRanks = 3;  // this rank is 0
    InertTransport transport;
    std::atomic<std::uint32_t> word{0};
    p2p::ProgressLock lock(word);
    p2p::Engine::Options options;
    options.eager_limit = 64;
    p2p::Engine engine(0, std::vector<transport::Transport*>(kRanks, &transport), lock, options);
    std::vector<int> world(kRanks);
    std::iota(world.begin(), world.end(), 0);
    const p2p::CommRef comm{4, 0, world};

    std::vector<std::vector<std::byte>> buffers;
    std::vector<p2p::Request*> requests;
    Script script({data, size});
    for (int step = 0; step < 64 && !script.done(); ++step) {
        const auto what = script.take<std::uint8_t>();
        const auto tag = static_cast<int>(script.take<std::uint8_t>() % 4);
        const int peer = 1 + what % 2;
        switch (what / 2 % 4) {
            case 0: {  // a receive of up to 255 bytes (any source, any tag alternately)
                buffers.emplace_back(script.take<std::uint8_t>());
                requests.push_back(engine.irecv(buffers.back().data(), buffers.back().size(),
                                                what & 8 ? p2p::kAnySource : peer,
                                                what & 16 ? p2p::kAnyTag : tag, comm, 4));
                break;
            }
            case 1: {  // a send, eager or rendezvous
                buffers.emplace_back(static_cast<std::size_t>(script.take<std::uint8_t>()) * 2);
                requests.push_back(engine.isend(buffers.back().data(), buffers.back().size(), peer,
                                                tag, comm, 4, p2p::SendMode::standard));
                break;
            }
            case 2: {  // an arrival: tuple, then a body of up to 255 bytes
                const auto tuple = script.take<std::uint64_t>();
                transport.arrive(peer, tuple, script.take_bytes(script.take<std::uint8_t>()));
                engine.progress();
                break;
            }
            default:
                if (!requests.empty()) {
                    p2p::Request* request = requests[script.take<std::uint8_t>() % requests.size()];
                    if (what & 8) engine.cancel(request);
                }
                engine.progress();
        }
    }
    engine.progress();
    for (p2p::Request* request : requests) engine.release(request);
    return 0;
}
