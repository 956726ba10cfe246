// The blocking collectives of protocols.hpp: the peers enter first, rank 0 (the
// root) counts its call once they have had time to send what they can without it.
#include <algorithm>
#include <memory>
#include <thread>

#include "collectives/collective_call.hpp"
#include "instructions/protocols.hpp"

namespace si::bench::instructions {

namespace {

constexpr int kCounted = 0;

class CollectiveProtocol : public Protocol {
  public:
    CollectiveProtocol(coll::Collective collective, const ProtocolSetup& setup, std::size_t size)
        : setup_(setup), call_(collective, setup.comm, std::max<std::size_t>(size, 8)) {
        call_.prepare(size);
        blocking_ = call_.blocking_call();
    }

    void run(CallgrindCounter* counter) override {
        Handshake& handshake = *setup_.handshake;
        if (setup_.rank != kCounted) {
            handshake.signal(kCounted);
            blocking_();
            return;
        }
        for (int peer = 0; peer < setup_.ranks; ++peer)
            if (peer != kCounted) handshake.wait_for(peer);
        // Long enough for every peer that said it is entering to send what it can
        // before rank 0 takes part. Warm-up repetitions settle too, so that what rank 0
        // did before its counted calls does not depend on how fast its peers were.
        std::this_thread::sleep_for(setup_.settle);
        if (counter != nullptr) counter->start();
        counted(counter, [&] { blocking_(); });
    }

    [[nodiscard]] bool delivered() const override { return call_.outputs_hold(); }

  private:
    ProtocolSetup setup_;
    coll::CollectiveCall call_;
    coll::BlockingCall blocking_;
};

}  // namespace

std::unique_ptr<Protocol> make_collective_protocol(const std::string& name,
                                                   const ProtocolSetup& setup, std::size_t size) {
    // The benchmark's names are the blocking calls' ("bcast"); CollectiveCall names
    // its collectives by their nonblocking form ("ibcast").
    const auto collective = coll::parse_collective("i" + name);
    if (!collective) return nullptr;
    return std::make_unique<CollectiveProtocol>(*collective, setup, size);
}

}  // namespace si::bench::instructions
