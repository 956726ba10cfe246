// Communicators: a group of world ranks, a pair of context ids (one for
// point-to-point traffic, one for collectives, so the two never match each
// other), and the error handler that reports errors raised on it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/handles.hpp"
#include "coll/node_collectives.hpp"
#include "mpi.h"
#include "p2p/engine.hpp"

namespace si::api {

struct Topology;  // topology.hpp

struct Communicator {
    MPI_Comm handle = MPI_COMM_NULL;
    std::vector<int> world_of;  // communicator rank -> world rank (the local group)
    int rank = 0;
    std::uint16_t pair = 0;  // context pair: p2p context 2*pair, collectives 2*pair + 1
    // Intercommunicators only: the remote group, which point-to-point ranks
    // name, and the context pair its members receive on (each group agreed
    // on its own pair; messages go out on the other group's).
    std::vector<int> remote_of;
    std::uint16_t remote_pair = 0;
    MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
    std::string name;
    std::shared_ptr<const Topology> topology;  // null unless made by a topology call
    // The window whose own communicator this is (api/win.hpp): its error
    // handler is the window's, and a user handler is called with the window.
    MPI_Win window = MPI_WIN_NULL;
    // Nonblocking collectives started on it (coll::nonblocking_tag_base).
    std::uint32_t nonblocking_collectives = 0;
    // Its blocking collectives through the node's shared memory, if its
    // ranks share a node (node_collectives_of). Decided at its first
    // blocking collective; a copy of the struct (MPI_Comm_dup of an
    // intercommunicator copies it) starts undecided, never sharing them.
    struct NodeState {
        bool decided = false;
        std::unique_ptr<coll::NodeCollectives> collectives;
        NodeState() = default;
        NodeState(const NodeState&) {}
        NodeState& operator=(const NodeState&) { return *this; }
        NodeState(NodeState&&) noexcept = default;
        NodeState& operator=(NodeState&&) noexcept = default;
        ~NodeState() = default;
    };
    mutable NodeState node;

    int size() const { return static_cast<int>(world_of.size()); }
    bool inter() const { return !remote_of.empty(); }
    // The ranks point-to-point calls address: the remote group's, if any.
    int peers() const { return inter() ? static_cast<int>(remote_of.size()) : size(); }
    // Contexts this process receives on, and sends on.
    std::uint16_t p2p_context() const { return static_cast<std::uint16_t>(2 * pair); }
    std::uint16_t coll_context() const { return static_cast<std::uint16_t>(2 * pair + 1); }
    std::uint16_t send_context() const {
        return static_cast<std::uint16_t>(2 * (inter() ? remote_pair : pair));
    }
    std::uint16_t send_coll_context() const {
        return static_cast<std::uint16_t>(send_context() + 1);
    }
    p2p::CommRef ref() const {
        return p2p::CommRef{p2p_context(), rank, inter() ? remote_of : world_of};
    }
    // The priority of a context allocation over this communicator that
    // starts now (CommunicatorTable::allocate_pair): by context, then by the
    // order of its collectives, which every member counts alike.
    std::uint64_t allocation_priority() const {
        return std::uint64_t{pair} << 32 | nonblocking_collectives;
    }
};

// All communicators of the process. Every call looks one up, so lookups are a
// single atomic load; creation and removal take a mutex.
class CommunicatorTable {
  public:
    // Installs MPI_COMM_WORLD and MPI_COMM_SELF.
    void reset(int world_rank, int world_size);
    void clear();

    // nullptr for MPI_COMM_NULL, freed or foreign handles. Inline: every
    // message's call asks it.
    Communicator* find(MPI_Comm handle) const {
        if (!names_object(handle, HandleKind::communicator)) return nullptr;
        const int index = handle_index(handle);
        if (index >= kMaxCommunicators) return nullptr;
        return slots_[index].load(std::memory_order_acquire);
    }
    // Takes ownership; returns the new handle.
    MPI_Comm add(std::unique_ptr<Communicator> communicator);
    void remove(MPI_Comm handle);

    // Agrees with the other members of parent on a context pair no member uses.
    // Collective over parent, with tags above `tag_base` (coll::Context).
    // Returns an MPI error class.
    int allocate_pair(const Communicator& parent, std::uint16_t& pair, int tag_base = 0);

    // The same over any set of processes: `agree` ANDs this process's offer
    // (kMaskWords + 1 words) with every other participant's, so that all get
    // the same result; `priority` orders allocations waiting on one process
    // and must be the same for every participant (allocation_priority()).
    using Agreement = std::function<int(const std::vector<std::uint64_t>& offer,
                                        std::vector<std::uint64_t>& agreed)>;
    int allocate_pair(std::uint64_t priority, const Agreement& agree, std::uint16_t& pair);
    static constexpr int kMaskWords = (((p2p::kMaxContext + 1) / 2) + 63) / 64;
    void release_pair(std::uint16_t pair);

    // Blocking allocations (allocate_pair) and nonblocking ones
    // (MPI_Comm_idup) draw on separate halves of the context pairs, each
    // with its own mask below: an idup whose agreement is in flight, which
    // may wait for a member still in a blocking communicator creation of
    // another communicator, never keeps that creation from its pairs.
    enum class PairPool : unsigned char { blocking, nonblocking };

    // One attempt of an allocation, in two halves around the agreement, for
    // allocate_pair's loop and for MPI_Comm_idup, whose agreement is a
    // nonblocking schedule (comm_idup.cpp). offer_pairs fills `offer` and
    // says whether it lent this process's free pairs of `pool` (then held
    // until settle_offer); settle_offer takes the result: MPI_SUCCESS with
    // `pair` taken, kRetry (an attempt must follow, with the same priority),
    // or an error class. Between a kRetry and the next offer the allocation
    // counts as waiting, so that none ordered after it takes the mask
    // meanwhile.
    static constexpr int kRetry = -1;
    [[nodiscard]] bool offer_pairs(PairPool pool, std::uint64_t priority,
                                   std::vector<std::uint64_t>& offer);
    [[nodiscard]] int settle_offer(PairPool pool, std::uint64_t priority, bool offered,
                                   int agreement, const std::vector<std::uint64_t>& agreed,
                                   std::uint16_t& pair);

    static constexpr int kMaxCommunicators = (p2p::kMaxContext + 1) / 2;

  private:
    std::mutex mutex_;
    // Handle index (context pair) -> communicator.
    std::unique_ptr<std::atomic<Communicator*>[]> slots_ =
        std::make_unique<std::atomic<Communicator*>[]>(kMaxCommunicators);
    // Context pairs in use by this process; a set bit means free.
    std::vector<std::uint64_t> free_pairs_;
    // Per pool: only one allocation at a time may offer this process's free
    // pairs (an allocation that cannot offers zeros and tries again); among
    // waiting allocations the one of lowest priority goes first, which is
    // the same on every process and so cannot livelock: once it waits or
    // offers on every member, no other takes the mask there, and its next
    // attempt has every member's offer.
    struct Lending {
        bool mask_taken = false;
        std::vector<std::uint64_t> waiting;  // priorities
    };
    std::array<Lending, 2> lending_;  // by PairPool
};

// The shared-memory collectives of c (coll/node_collectives.hpp), made at
// the first call: an intracommunicator of 2 to NodeArea::kMaxRanks ranks
// that all run on this process's node (the simulated node of SI_NODE_SIZE)
// and talk through shared memory (not SI_TRANSPORT=verbs). Null otherwise.
coll::NodeCollectives* node_collectives_of(const Communicator& c);

// Makes a communicator of `world_of` (communicator rank -> world rank) in
// which this process has rank `rank`, with a context pair agreed over parent
// (collective over it, see allocate_pair); a process that is not a `member`
// takes part in the agreement and gets MPI_COMM_NULL. The new communicator
// inherits parent's error handler.
class Call;
int create_communicator(Call& call, const Communicator& parent, std::vector<int> world_of, int rank,
                        bool member, MPI_Comm* newcomm, int tag_base = 0);

// MPI_Comm_dup and MPI_Comm_split of an intercommunicator (intercomm.cpp).
int dup_intercommunicator(Call& call, const Communicator& inter, MPI_Comm* newcomm);
int split_intercommunicator(Call& call, const Communicator& inter, int color, int key,
                            MPI_Comm* newcomm);

}  // namespace si::api
