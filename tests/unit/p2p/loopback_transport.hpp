// An in-process transport joining several engines, for unit tests of the
// protocol: bounded receive slots per sender (to exercise the send queue),
// RDMA by memcpy, completed at once (then vectored reads too) or at the next
// progress call.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "transport/transport.hpp"

namespace si::test {

class LoopbackFabric {
public:
    LoopbackFabric(int ranks, int slots_per_sender, bool deferred_rdma);
    ~LoopbackFabric();
    transport::Transport& endpoint(int rank);

private:
    class Endpoint;
    struct Message {
        std::uint64_t tuple;
        std::vector<std::byte> body;
    };
    std::vector<std::unique_ptr<Endpoint>> endpoints_;
    // inbox_[receiver][sender]
    std::vector<std::vector<std::deque<Message>>> inbox_;
    int slots_;
    bool deferred_rdma_;
};

}  // namespace si::test
