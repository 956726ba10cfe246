// The ghost process's insides (ghost.hpp says what a ghost is), shared by
// the two files that define its methods: ghost.cpp, the ghost's loop, its
// queues, and the matching and copies on its node; ghost_carry.cpp, the
// messages to and from other nodes' ghosts (its GhostNetwork::Handler side).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/config.hpp"
#include "base/error_class.hpp"
#include "node/ghost_area.hpp"
#include "node/region.hpp"
#include "progress/ghost.hpp"
#include "progress/ghost_network.hpp"
#include "progress/ghost_shared_maps.hpp"
#include "wake/backends.hpp"

namespace si::progress::ghost_detail {

using node::CellState;
using node::PostCell;

constexpr int kErrTruncate = error_class::kTruncate;
constexpr int kErrOther = error_class::kOther;

// What a ghost matches on (ghost.hpp: SI_GHOST_MATCHING): the envelope, with
// the receiver folded into the context or the tag when one domain serves
// several receivers.
struct Key {
    std::uint32_t context = 0;
    std::int32_t source = 0;  // or kGhostAnySource
    std::int32_t tag = 0;     // or kGhostAnyTag
};

inline bool matches(const Key& receive, const Key& message) {
    return receive.context == message.context &&
           (receive.source == node::kGhostAnySource || receive.source == message.source) &&
           (receive.tag == node::kGhostAnyTag || receive.tag == message.tag);
}

// Where an operation's answer goes: into its cell, or, for an overflow
// cell (node/ghost_area.hpp), into its owner's completion ring under its token.
struct Origin {
    int owner = 0;
    std::uint32_t cell = 0;
    std::uint64_t token = 0;  // 0: the cell

    bool operator==(const Origin&) const = default;
};

// What the ghost answers is a node::CompletionEntry, whether it goes into the
// operation's cell or into its owner's completion ring (reply() fills the token).
using Answer = node::CompletionEntry;

// A send the ghost took: still in its cell (`held`: a large or synchronous
// one, whose sender waits), or with its small data copied out of a cell the
// sender already got back; or one another node's ghost carried here
// (`from_ghost`), with its data if eager.
struct Send {
    Origin origin;
    std::int32_t payload = -1;  // its slot while held, if its data is in one
    bool held = true;
    Key key;
    std::int32_t tag = 0;  // the sender's, which the receive's status reports
    std::uint64_t bytes = 0;
    std::uint64_t address = 0;  // referenced data in the sender's memory; 0: inline
    std::vector<std::byte> data;
    int from_ghost = -1;
    RemoteEnvelope remote;
};

// A receive the ghost took, with what it needs of its cell.
struct Receive {
    Origin origin;
    Key key;
    std::uint64_t address = 0;
    std::uint64_t capacity = 0;
    std::int32_t payload = -1;  // a small receive's slot, which its rank copies out of
};

// A matching domain: the receives no message matched yet, in posting order,
// and the messages no receive matched yet, in arrival order (per sender,
// sending order). One per served receiver, or one for all of them.
struct Domain {
    std::deque<Receive> posted;
    std::deque<Send> unexpected;
};

// A send carried to another node's ghost, until it answers done.
struct Carried {
    Origin origin;
    int to = 0;                      // the receiver's ghost
    std::vector<std::byte> staging;  // a copy of the data the sender's memory held
};

// An RDMA Read of a matched RTS from another node, until it completes.
struct Read {
    Send send;
    Receive receive;
    std::size_t bytes = 0;
    std::vector<std::byte> staging;  // when the ghost does not map the receive's memory
};

class Ghost final : private GhostNetwork::Handler {
  public:
    Ghost(const node::GhostArea& area, const node::Region& region,
          const GhostAssignment& assignment);

    void run();

  private:
    bool anything_queued() const;
    bool drain();
    void take(int owner, std::uint32_t index);
    Domain& domain(int receiver);
    Key key(std::uint16_t context, std::int32_t source, std::int32_t tag, int receiver) const;
    template <typename Entries, typename Found>
    auto find(Entries& entries, Found found);
    void message_sent(const Origin& origin, const PostCell& cell);
    bool matched_on_arrival(const Send& send, int receiver);

    // ghost_carry.cpp: across nodes.
    void carry(const Origin& origin, const PostCell& cell);
    void remote_message(int from, const RemoteEnvelope& envelope,
                        std::span<const std::byte> data) override;
    void remote_done(std::uint64_t id, int error) override;
    void ghost_failed(int ghost) override;
    void start_read(const Send& send, const Receive& to);
    void read_done(std::uint64_t cookie, int error) override;

    std::deque<Send>::iterator first_match(Domain& domain, const Key& receive);
    void receive_posted(const Origin& origin, const PostCell& cell);
    void probe(const Origin& origin, const PostCell& cell);
    void matched_receive(const Origin& origin, const PostCell& cell);
    void cancel(const Origin& origin, const PostCell& cell);
    void deliver(const Send& send, const Receive& to);
    int copy(const Send& send, std::uint64_t to, std::size_t bytes, int receiver, std::byte* slot);

    pid_t pid_of(int local_index) const { return region_.rank_block(local_index).pid; }
    int world_rank_of(int local_index) const { return region_.rank_block(local_index).world_rank; }

    void reply(const Origin& origin, Answer answer);
    void ring_owner(int owner);
    bool push_completion(int owner, const node::CompletionEntry& entry);
    void flush_backlog();

    const node::GhostArea& area_;
    const node::Region& region_;
    const GhostAssignment& assignment_;
    node::GhostBlock& block_;
    const node::GhostArea::Shape shape_;
    // SI_GHOST_MATCHING=receiver: one per local rank (only served ones fill);
    // dup and tag: one.
    std::vector<Domain> domains_;
    const int offset_bits_;
    std::uint64_t scanned_ = 0;  // entries matching looked at and passed over
    // Per local rank, answers its full completion ring could not take yet.
    std::vector<std::deque<node::CompletionEntry>> backlog_;
    std::size_t backlogged_ = 0;
    std::unordered_map<std::int32_t, Send> taken_;  // by matched probes, by number
    std::int32_t last_taken_ = 0;
    std::vector<std::byte> bounce_;
    SharedMaps shared_;
    std::unique_ptr<wake::Backend> backend_;
    std::vector<int> local_of_world_;  // -1: not on this host
    // Per local rank, its offset among its ghost's receivers (GhostLayout::offset).
    std::vector<std::uint32_t> offset_of_local_;
    // Across nodes (ghost_network.hpp): only when the job has several domains.
    std::unique_ptr<GhostNetwork> network_;
    std::unordered_map<std::uint64_t, Carried> carried_;  // by id, until done
    std::uint64_t last_carried_ = 0;
    std::unordered_map<std::uint64_t, Read> reads_;  // by cookie
    std::uint64_t last_read_ = 0;
};

}  // namespace si::progress::ghost_detail
