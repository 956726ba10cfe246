// Arrivals that found no posted receive. The engine keeps them in arrival
// order, and per exact (context, source, tag) too, so that a receive naming
// source and tag takes its message with one hash look-up; a wildcard receive
// walks them in arrival order. A matched probe (MPI_Mprobe) takes one out and
// hands it to the API layer until MPI_Mrecv consumes it.
//
// Records are pooled: an unexpected message costs no heap allocation once the
// pool has seen as many at a time, unless its body is larger than any a
// pooled record kept (records keep at most kPooledBodyBytes of buffer, and the
// pool at most kPooledRecords records, so it holds at most 256 KiB).
#pragma once

#include <cstddef>
#include <vector>

#include "p2p/bucket_index.hpp"
#include "p2p/intrusive_list.hpp"
#include "p2p/request.hpp"
#include "p2p/tuple.hpp"
#include "p2p/wire.hpp"

namespace si::p2p {

// What a wildcard receive's walk reads, the tuple and the next link, shares the
// first cache line of the record.
struct UnexpectedMessage {
    Tuple tuple;
    int peer;                           // world rank of the sender
    UnexpectedMessage* next = nullptr;  // arrival order
    UnexpectedMessage* prev = nullptr;
    UnexpectedMessage* key_next = nullptr;  // arrival order within its exact key
    UnexpectedMessage* key_prev = nullptr;
    RtsHeader rts;                // kind == rts
    std::vector<std::byte> data;  // kind == eager

    std::size_t bytes() const { return tuple.kind == MessageKind::eager ? data.size() : rts.bytes; }
    Completion completion() const { return Completion{tuple.source, tuple.tag, 0, bytes()}; }
};

class UnexpectedMessages {
  public:
    UnexpectedMessages() = default;
    ~UnexpectedMessages();
    UnexpectedMessages(const UnexpectedMessages&) = delete;
    UnexpectedMessages& operator=(const UnexpectedMessages&) = delete;

    // A record of an arrival (an eager body is copied, an RTS's header kept),
    // not yet queued.
    UnexpectedMessage* make(const Tuple& tuple, int peer, const std::byte* body, std::size_t bytes);
    // A record nobody refers to any more.
    void recycle(UnexpectedMessage* message);

    void push_back(UnexpectedMessage* message);
    // Out of the queue; the caller owns it (recycle it when done).
    void erase(UnexpectedMessage* message);

    // The oldest message `spec` matches, or nullptr.
    UnexpectedMessage* find(const MatchSpec& spec) const;
    // The oldest message for which predicate holds, or nullptr.
    template <typename Predicate>
    UnexpectedMessage* find_if(Predicate predicate) const {
        return arrival_.find(predicate);
    }

  private:
    static constexpr std::size_t kPooledRecords = 256;
    static constexpr std::size_t kPooledBodyBytes = 1024;

    IntrusiveList<UnexpectedMessage> arrival_;
    BucketIndex<UnexpectedMessage, &UnexpectedMessage::key_prev, &UnexpectedMessage::key_next>
        by_key_;
    std::vector<UnexpectedMessage*> pool_;
};

}  // namespace si::p2p
