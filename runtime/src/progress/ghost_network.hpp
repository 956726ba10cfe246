// SI_PROGRESS=ghost across nodes: the ghosts of different ghost domains
// (ghost_layout.hpp) talk to each other over verbs, as seed 003's ghosts
// issue MPI calls to the ghosts of other nodes.
//
// A send to a rank of another domain reaches a ghost of the sender's domain
// in a post cell like any other (node::kCellRemote), and that ghost carries
// it: a message of at most SI_GHOST_THRESHOLD bytes travels whole (eager);
// a larger one as a request to send (RTS) naming registered memory that
// holds it, the sender's MPI_Alloc_mem block the ghost maps, or else a copy.
// The receiver's ghost matches it as a message of its own domain; for an RTS
// it reads the data with an RDMA Read, straight into the receiver's memory
// when it maps it, and then answers `done`, as it does for a synchronous
// eager message once matched. The carrying ghost then completes the send.
//
// Each ghost has its own device context and queue pairs (a forked ghost
// cannot use its rank's), created after the ranks' transports; their
// addresses go through the ranks' bootstrap (node::GhostExchange).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "node/ghost_area.hpp"
#include "progress/ghost_layout.hpp"
#include "transport/transport.hpp"

namespace si::progress {

// A message between ghosts. `id` names the send at the ghost that carries it.
struct RemoteEnvelope {
    std::uint64_t id = 0;
    std::uint64_t bytes = 0;    // the message's size
    std::uint64_t address = 0;  // an RTS: where to read it
    std::uint64_t key = 0;
    std::int32_t receiver = 0;  // world rank
    std::int32_t source = 0;    // the sender's rank in the communicator
    std::int32_t tag = 0;
    std::int32_t error = 0;  // done: an MPI error class
    std::uint16_t context = 0;
    std::uint8_t synchronous = 0;  // eager: answer done once matched
    std::uint8_t rts = 0;          // set on arrival: an RTS, not eager data
};

class GhostNetwork final : private transport::Events {
  public:
    // What the ghost does with what arrives.
    class Handler {
      public:
        // A message for a receiver this ghost serves: eager with its data,
        // or an RTS (data empty).
        virtual void remote_message(int from, const RemoteEnvelope& envelope,
                                    std::span<const std::byte> data) = 0;
        // The receiver's ghost is done with send `id` (error: an MPI class).
        virtual void remote_done(std::uint64_t id, int error) = 0;
        // An RDMA Read started by read() finished.
        virtual void read_done(std::uint64_t cookie, int error) = 0;
        // Ghost `ghost` is unreachable (it died, or its link did).
        virtual void ghost_failed(int ghost) = 0;

      protected:
        ~Handler() = default;
    };

    // Connects ghost `me` to the ghosts of the other domains, through its
    // node's first rank (connect_ghost_network, below). `word` is the
    // ghost's wake word, rung when an armed completion arrives. Throws
    // si::Error saying what failed.
    GhostNetwork(node::GhostExchange& exchange, const GhostLayout& layout, int me,
                 std::size_t eager_bytes, int credits, std::atomic<std::uint32_t>& word,
                 Handler& handler);
    ~GhostNetwork();
    GhostNetwork(const GhostNetwork&) = delete;
    GhostNetwork& operator=(const GhostNetwork&) = delete;

    std::size_t eager_bytes() const { return eager_bytes_; }
    // A message of at most eager_bytes() to ghost `to`, sent in order after
    // what went to it before.
    void send(int to, const RemoteEnvelope& envelope, std::span<const std::byte> data = {});
    // An RTS for `bytes` at `data` (this process's memory, which stays
    // registered until the receiver's ghost answers done); false if it
    // cannot be registered.
    bool send_rts(int to, RemoteEnvelope envelope, const void* data, std::size_t bytes);
    // Tells ghost `to` that its send `id` is done here.
    void send_done(int to, std::uint64_t id, int error);
    // Reads what an RTS names into `into`; read_done(cookie) follows.
    bool read(int from, const RemoteEnvelope& rts, void* into, std::size_t bytes,
              std::uint64_t cookie);

    // Sends what waited for credits, and handles arrivals and completions;
    // how many it handled.
    int progress();
    // Before the ghost sleeps: the next completion rings its word. False:
    // it must not sleep.
    bool arm();

  private:
    // The transport's tuple: what a message between ghosts is.
    enum class Wire : std::uint64_t { eager = 1, rts = 2, done = 3 };
    struct Outgoing {
        Wire wire = Wire::eager;
        RemoteEnvelope envelope;
        std::vector<std::byte> data;
    };

    bool message_arrived(const transport::Arrival& arrival) override;
    void rdma_completed(std::uint64_t cookie, int error) override;
    void peer_failed(int peer) override;
    // In order behind what waits for credits to `to`.
    void queue(int to, Wire wire, const RemoteEnvelope& envelope, std::span<const std::byte> data);
    bool try_send(int to, Wire wire, const RemoteEnvelope& envelope,
                  std::span<const std::byte> data);
    std::deque<Outgoing>& waiting(int to) { return waiting_[static_cast<std::size_t>(to)]; }

    const std::size_t eager_bytes_;
    Handler& handler_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> icb_;  // the transport's tuples
    std::unique_ptr<transport::Transport> transport_;
    std::vector<std::deque<Outgoing>> waiting_;  // per ghost: sends that found no credit
    std::unordered_map<std::uint64_t, transport::Registration> registered_;  // by send id
};

// The ranks' side of the set-up: every rank of the job calls it after the
// ghosts started (it fences twice); a domain's first rank names its ghosts'
// blocks and serves their exchange, the others pass none. Throws si::Error
// when a ghost failed or died.
void connect_ghost_network(bootstrap::Bootstrap& bootstrap, const node::GhostArea& area,
                           std::span<const int> blocks);

}  // namespace si::progress
