// The shared memory between a node's ranks and its ghost processes
// (SI_PROGRESS=ghost, progress/ghost.hpp): seed 003's post cells and
// single-producer/single-consumer queues.
//
// Each rank owns a pool of post cells, and a smaller pool of payload slots
// (a small message's data: only sends need one, so that receives, which wait
// longest, never hold the room). To hand a send or a receive to a ghost
// it fills a free cell (with the data in a slot if it is small), then pushes the
// cell's index into its queue to that ghost; the ghost pops it, matches,
// copies, writes the result into the cell and marks it done, which is the
// completion flag the rank's MPI_Test/MPI_Wait read. A queue per (rank,
// ghost) pair keeps one producer and one consumer on each, so neither side
// takes a lock; a queue has room for every cell of its rank, so a push never
// finds it full.
//
// A rank keeps only so many operations in cells until the ghost completes
// them (three quarters of its cells per kind: ghost_client.hpp). Beyond
// that, a cell only carries an operation to the ghost (an overflow cell):
// the ghost copies what it needs, gives the cell back at once, and answers
// in the rank's completion ring from it, so that the number of receives a
// rank may have posted has no limit, as MPI requires.
//
// A rank also lists here the memory it got from MPI_Alloc_mem, which in this
// mode is a memory file the ghosts can map (SharedBlock): a message between
// two such buffers is one memcpy in the ghost, and one with either end there
// one cross-memory copy, instead of two through the ghost's bounce buffer.
//
// Layout: Header | GhostBlock x ghosts | queues (local ranks x ghosts) |
//         cells (local ranks x cells per rank) | payload slots (local ranks x
//         slots per rank) | shared blocks (local ranks x kSharedBlocks) |
//         completion rings (ghosts x local ranks).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/config.hpp"
#include "base/shm_segment.hpp"

namespace si::node {

enum class CellState : std::uint32_t { free, posted, done };
enum class CellKind : std::uint8_t { send, receive, probe, cancel, matched_probe, matched_receive };

// One posted operation. A send names its receiver (a local index) and
// carries its sender's rank in the communicator, which the receive's status
// reports; a receive names its source (a rank in the communicator, or
// kGhostAnySource) and its tag (or kGhostAnyTag). A probe is a receive that
// only looks: the ghost says whether a message would match it, and which.
// A cancel names in `peer` an earlier cell of its rank, a receive or a send
// to the same ghost, which completes as cancelled if nothing matched it yet.
// A matched probe (MPI_Mprobe) also takes the message it finds out of
// matching, and the ghost answers with its number in `peer`; a matched
// receive (MPI_Mrecv) names that number in `peer` and receives it.
struct alignas(64) PostCell {
    std::atomic<std::uint32_t> state;  // CellState
    CellKind kind;
    std::uint8_t flags;  // kCellSynchronous, kCellOverflow
    std::uint16_t context;
    std::int32_t peer;
    std::int32_t rank;
    std::int32_t tag;
    std::int32_t payload;   // a send's payload slot holding its data, or -1
    std::uint64_t address;  // the owner's memory (a send with its data in a slot: unused)
    std::uint64_t bytes;    // a send's size, a receive's capacity
    // A receive's status, written by the ghost before `state` says done.
    std::int32_t result_source;
    std::int32_t result_tag;
    std::int32_t result_error;   // an MPI error class
    std::int32_t result_found;   // a probe's answer; for any other, 1 if cancelled
    std::uint64_t result_bytes;  // an overflow cell's: its token, until the ghost took it
};
static_assert(sizeof(PostCell) == 64);
inline constexpr std::uint8_t kCellSynchronous = 1;  // a send that completes only once matched
inline constexpr std::uint8_t kCellOverflow = 2;     // answered in the completion ring
// A send to a rank of another ghost domain (progress/ghost_layout.hpp): `peer`
// is its receiver's world rank, and the ghost forwards it to that domain's.
inline constexpr std::uint8_t kCellRemote = 4;

// The answer to an overflow cell's operation, by its token: the fields a
// cell's result_* would have held, and a matched probe's message number.
struct CompletionEntry {
    std::uint64_t token = 0;
    std::uint64_t bytes = 0;
    std::int32_t source = 0;
    std::int32_t tag = 0;
    std::int32_t error = 0;
    std::int32_t found = 0;  // a probe's answer; for any other operation, cancelled
    std::int32_t taken = 0;  // a matched probe's message number
    std::int32_t unused = 0;
};
inline constexpr std::uint32_t kCompletionEntries = 256;

// One ghost's completions to one rank: the ghost writes `head`, the rank
// `tail`. A full ring makes the ghost keep its answers until there is room.
struct alignas(64) CompletionRing {
    std::atomic<std::uint64_t> head;
    alignas(64) std::atomic<std::uint64_t> tail;
    CompletionEntry entries[kCompletionEntries];
};
inline constexpr std::int32_t kGhostAnySource = -1;
inline constexpr std::int32_t kGhostAnyTag = -1;

// One queue: the owner rank writes `head`, the ghost `tail`.
struct alignas(64) PostQueue {
    std::atomic<std::uint64_t> head;
    alignas(64) std::atomic<std::uint64_t> tail;
};

// One block of a rank's MPI_Alloc_mem memory: a memory file, open in the
// rank as `fd`, mapped there at `address`. `generation` is 0 while the entry
// is free; a new block in the entry gets a new one, so that a ghost knows
// its mapping of the entry is stale.
struct alignas(64) SharedBlock {
    std::atomic<std::uint64_t> generation;
    std::uint64_t address;
    std::uint64_t bytes;
    std::int32_t fd;
};
inline constexpr std::size_t kSharedBlocks = 64;

// How a ghost sets up its verbs connections to other nodes' ghosts
// (progress/ghost_network.hpp) through the ranks' bootstrap, which it cannot
// reach: it writes what it publishes into `text` ("key value" lines) and says
// published; its node's first rank puts that, fences with the job, says
// fenced, and then answers the ghost's lookups one by one (a key in `text`,
// `asked` one more; the value in `text`, `answered` = `asked`, `found` 0 if
// there was none) until the ghost says connected. On failure `text` says why.
enum class ExchangeState : std::uint32_t { starting, published, fenced, connected, failed };
inline constexpr std::size_t kExchangeBytes = 16384;
struct alignas(64) GhostExchange {
    std::atomic<std::uint32_t> state;  // ExchangeState
    std::atomic<std::uint32_t> asked;
    std::atomic<std::uint32_t> answered;
    std::uint32_t found;
    char text[kExchangeBytes];
};

// A ghost's wake word (it sleeps when no queue has anything for it), its stop
// flag, and its counters, read at MPI_Finalize.
struct alignas(64) GhostBlock {
    std::atomic<std::uint32_t> word;
    std::atomic<std::uint32_t> word_handle;
    std::atomic<std::uint32_t> stop;
    std::atomic<std::int32_t> pid;
    alignas(64) std::atomic<std::uint64_t> cells;  // cells it took from queues
    std::atomic<std::uint64_t> matches;            // sends matched with receives
    std::atomic<std::uint64_t> unexpected;         // sends that found no receive
    std::atomic<std::uint64_t> scanned;            // entries matching passed over
    std::atomic<std::uint64_t> backlogged;         // answers a full completion ring held back
    std::atomic<std::uint64_t> inline_bytes;       // copied from cells
    std::atomic<std::uint64_t> referenced_bytes;   // copied from the senders' memory
    std::atomic<std::uint64_t> single_copy_bytes;  // ... of which in one copy (shared blocks)
    std::atomic<std::uint64_t> sleeps;             // times it slept with nothing to do
    std::atomic<std::uint64_t> cpu_ns;             // its CPU time, updated as it goes
    std::atomic<std::uint64_t> forwarded;          // messages sent on to other nodes' ghosts
    std::atomic<std::uint64_t> rdma_read_bytes;    // read from other nodes' ghosts
    GhostExchange exchange;
};

class GhostArea {
  public:
    struct Shape {
        int local_size = 0;
        int ghosts = 0;  // blocks: the ghosts of every domain on the host
        std::uint32_t cells_per_rank = 0;  // a power of two
        std::uint32_t payloads_per_rank = 0;
        std::size_t inline_bytes = 0;  // room for data in each payload slot
        config::GhostMatching matching = config::GhostMatching::receiver;
    };

    GhostArea() = default;
    // The first rank of a host creates it; the others open it after a fence.
    static GhostArea create(const std::string& job_id, Shape shape);
    static GhostArea open(const std::string& job_id);
    void unlink() { segment_.unlink(); }
    bool mapped() const { return segment_.data() != nullptr; }

    Shape shape() const;
    GhostBlock& ghost(int index) const;
    PostQueue& queue(int local_index, int ghost) const;
    std::uint32_t* queue_slots(int local_index, int ghost) const;
    PostCell& cell(int local_index, std::uint32_t index) const;
    std::byte* payload(int local_index, std::int32_t slot) const;
    SharedBlock* shared_blocks(int local_index) const;  // kSharedBlocks of them
    CompletionRing& completions(int ghost, int local_index) const;

  private:
    struct Header;
    Header& header() const;
    std::size_t queue_bytes() const;
    std::size_t payload_stride() const;

    SharedSegment segment_;
};

}  // namespace si::node
