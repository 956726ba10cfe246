#include "progress/ghost.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>

#include "base/cpu.hpp"
#include "base/cross_memory.hpp"
#include "base/log.hpp"
#include "progress/node_process.hpp"
#include "wake/backends.hpp"
#include "wake/wake_word.hpp"

namespace si::progress {

namespace {

using namespace std::chrono_literals;
using node::CellState;
using node::PostCell;

constexpr int kErrTruncate = 15;  // MPI_ERR_TRUNCATE
constexpr int kErrOther = 16;     // MPI_ERR_OTHER
// A referenced message moves through the ghost in pieces of this size (it
// cannot reach both ranks' memory at once: one read, one write per piece).
constexpr std::size_t kBounceBytes = std::size_t{256} << 10;
// How long a ghost polls its queues after it last found a cell before it
// sleeps until a rank rings it: a burst of messages costs no wake-up, an idle
// ghost no core.
constexpr auto kIdlePolling = 1ms;
// Empty passes between two yields while it polls.
constexpr int kPassesBeforeYield = 32;

// What a ghost matches on (ghost.hpp: SI_GHOST_MATCHING): the envelope, with
// the receiver folded into the context or the tag when one domain serves
// several receivers.
struct Key {
    std::uint32_t context = 0;
    std::int32_t source = 0;  // or kGhostAnySource
    std::int32_t tag = 0;     // or kGhostAnyTag
};

bool matches(const Key& receive, const Key& message) {
    return receive.context == message.context &&
           (receive.source == node::kGhostAnySource || receive.source == message.source) &&
           (receive.tag == node::kGhostAnyTag || receive.tag == message.tag);
}

// A send the ghost took: still in its cell (`held`: a large or synchronous
// one, whose sender waits), or with its small data copied out of a cell the
// sender already got back.
struct Send {
    int owner = 0;
    std::uint32_t cell = 0;
    std::int32_t payload = -1;  // its slot while held, if its data is in one
    bool held = true;
    Key key;
    std::int32_t tag = 0;  // the sender's, which the receive's status reports
    std::uint64_t bytes = 0;
    std::uint64_t address = 0;  // referenced data in the sender's memory; 0: inline
    std::vector<std::byte> data;
};

// The ghost's mappings of the ranks' shared blocks (MPI_Alloc_mem memory),
// made when a message first touches one and remade when its entry's
// generation changed.
class SharedMaps {
  public:
    SharedMaps(const node::GhostArea& area, const node::Region& region)
        : area_(area),
          region_(region),
          maps_(static_cast<std::size_t>(area.shape().local_size) * node::kSharedBlocks) {}
    ~SharedMaps() {
        for (const Map& map : maps_)
            if (map.base != nullptr) ::munmap(map.base, map.bytes);
    }
    SharedMaps(const SharedMaps&) = delete;
    SharedMaps& operator=(const SharedMaps&) = delete;

    // Where [address, address + bytes) of local rank `rank` is mapped here,
    // or null if it is not in one of its shared blocks.
    std::byte* find(int rank, std::uint64_t address, std::size_t bytes) {
        node::SharedBlock* blocks = area_.shared_blocks(rank);
        for (std::size_t i = 0; i < node::kSharedBlocks; ++i) {
            const std::uint64_t generation = blocks[i].generation.load(std::memory_order_acquire);
            if (generation == 0 || address < blocks[i].address ||
                address + bytes > blocks[i].address + blocks[i].bytes)
                continue;
            Map& map = maps_[static_cast<std::size_t>(rank) * node::kSharedBlocks + i];
            if (map.generation != generation && !remap(map, rank, blocks[i], generation))
                return nullptr;
            return map.base + (address - blocks[i].address);
        }
        return nullptr;
    }

  private:
    struct Map {
        std::uint64_t generation = 0;
        std::byte* base = nullptr;
        std::size_t bytes = 0;
    };

    bool remap(Map& map, int rank, const node::SharedBlock& block, std::uint64_t generation) {
        if (map.base != nullptr) ::munmap(map.base, map.bytes);
        map = Map{};
        const std::string path =
            fmt::format("/proc/{}/fd/{}", region_.rank_block(rank).pid, block.fd);
        const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) return false;
        void* memory = ::mmap(nullptr, block.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        ::close(fd);
        if (memory == MAP_FAILED) return false;
        map = Map{generation, static_cast<std::byte*>(memory), block.bytes};
        return true;
    }

    const node::GhostArea& area_;
    const node::Region& region_;
    std::vector<Map> maps_;  // per rank, per entry
};

struct Receive {
    int owner = 0;
    std::uint32_t cell = 0;
    Key key;
};

// A matching domain: the receives no message matched yet, in posting order,
// and the messages no receive matched yet, in arrival order (per sender,
// sending order). One per served receiver, or one for all of them.
struct Domain {
    std::deque<Receive> posted;
    std::deque<Send> unexpected;
};

class Ghost {
  public:
    Ghost(const node::GhostArea& area, const node::Region& region,
          const GhostAssignment& assignment)
        : area_(area),
          region_(region),
          assignment_(assignment),
          block_(area.ghost(assignment.index)),
          shape_(area.shape()),
          domains_(shape_.matching == config::GhostMatching::receiver
                       ? static_cast<std::size_t>(shape_.local_size)
                       : 1),
          offset_bits_(ghost_offset_bits(shape_)),
          bounce_(kBounceBytes),
          shared_(area, region),
          backend_(wake::make_backend(config::WakeBackend::futex)) {}

    void run() {
        // Its last look before sleeping: a rank pushes, then rings (ring_ghost).
        const auto nothing_to_do = [&] {
            store_load_fence();
            return block_.stop.load() == 0 && !anything_queued();
        };
        auto last_cell = std::chrono::steady_clock::now();
        int empty_passes = 0;
        while (block_.stop.load(std::memory_order_acquire) == 0) {
            if (drain()) {
                empty_passes = 0;
                last_cell = std::chrono::steady_clock::now();
                continue;
            }
            // A few passes back to back first: a yield is a system call,
            // which a ghost with a core of its own would pay on every cell.
            if (++empty_passes % kPassesBeforeYield != 0) {
                cpu_relax();
                continue;
            }
            if (std::chrono::steady_clock::now() - last_cell < kIdlePolling) {
                // Without a core of its own, the ghost shares the ranks'
                // cores: a rank woken on this one (its operation complete)
                // must not wait for the end of our time slice.
                ::sched_yield();
                continue;
            }
            block_.cpu_ns.store(process_cpu_ns(), std::memory_order_relaxed);
            block_.sleeps.fetch_add(1, std::memory_order_relaxed);
            wake::sleep(*backend_, block_.word, 1s, nothing_to_do);
            last_cell = std::chrono::steady_clock::now();
        }
        block_.cpu_ns.store(process_cpu_ns(), std::memory_order_relaxed);
    }

  private:
    bool anything_queued() const {
        for (int rank = 0; rank < shape_.local_size; ++rank) {
            const node::PostQueue& queue = area_.queue(rank, assignment_.index);
            if (queue.tail.load(std::memory_order_relaxed) !=
                queue.head.load(std::memory_order_acquire))
                return true;
        }
        return false;
    }

    // Takes every cell queued to this ghost; true if there was one.
    bool drain() {
        bool found = false;
        for (int rank = 0; rank < shape_.local_size; ++rank) {
            node::PostQueue& queue = area_.queue(rank, assignment_.index);
            const std::uint32_t* slots = area_.queue_slots(rank, assignment_.index);
            std::uint64_t tail = queue.tail.load(std::memory_order_relaxed);
            const std::uint64_t head = queue.head.load(std::memory_order_acquire);
            for (; tail != head; ++tail) {
                take(rank, slots[tail & (shape_.cells_per_rank - 1)]);
                found = true;
            }
            queue.tail.store(tail, std::memory_order_release);
        }
        return found;
    }

    void take(int owner, std::uint32_t index) {
        block_.cells.fetch_add(1, std::memory_order_relaxed);
        PostCell& cell = area_.cell(owner, index);
        if (cell.kind == node::CellKind::receive)
            receive_posted(owner, index, cell);
        else if (cell.kind == node::CellKind::probe || cell.kind == node::CellKind::matched_probe)
            probe(owner, cell);
        else if (cell.kind == node::CellKind::matched_receive)
            matched_receive(owner, index, cell);
        else if (cell.kind == node::CellKind::cancel)
            cancel(owner, cell);
        else
            message_sent(owner, index, cell);
        block_.scanned.store(scanned_, std::memory_order_relaxed);
    }

    // Where messages to local rank `receiver` and its receives match.
    Domain& domain(int receiver) {
        return domains_.size() == 1 ? domains_.front()
                                    : domains_[static_cast<std::size_t>(receiver)];
    }

    // The key of a receive posted by, or of a message to, local rank `receiver`.
    Key key(std::uint16_t context, std::int32_t source, std::int32_t tag, int receiver) const {
        const auto offset = static_cast<std::uint32_t>(ghost_offset(receiver, shape_.ghosts));
        switch (shape_.matching) {
            case config::GhostMatching::dup:
                return {(std::uint32_t{context} << offset_bits_) | offset, source, tag};
            case config::GhostMatching::tag:
                // MPI_TAG_UB leaves the room, and the API refuses MPI_ANY_TAG.
                if (tag == node::kGhostAnyTag) return {context, source, tag};
                return {context, source,
                        static_cast<std::int32_t>(
                            (static_cast<std::uint32_t>(tag) << offset_bits_) | offset)};
            case config::GhostMatching::receiver:
                break;
        }
        return {context, source, tag};
    }

    // The first entry of `entries` that `found` accepts, counting the look.
    template <typename Entries, typename Found>
    auto find(Entries& entries, Found found) {
        auto it = entries.begin();
        for (; it != entries.end() && !found(*it); ++it) ++scanned_;
        return it;
    }

    void message_sent(int owner, std::uint32_t index, PostCell& cell) {
        const bool inline_data = cell.payload >= 0;
        Send send{owner,
                  index,
                  cell.payload,
                  true,
                  key(cell.context, cell.rank, cell.tag, cell.peer),
                  cell.tag,
                  cell.bytes,
                  inline_data ? 0 : cell.address,
                  {}};
        Domain& domain = this->domain(cell.peer);
        const auto it = find(
            domain.posted, [&](const Receive& receive) { return matches(receive.key, send.key); });
        if (it != domain.posted.end()) {
            const Receive taken = *it;
            domain.posted.erase(it);
            deliver(send, taken);
            return;
        }
        block_.unexpected.fetch_add(1, std::memory_order_relaxed);
        // Small data leaves the cell, so that the sender gets it back: a
        // sender's cells must not run out on messages its peers have not
        // asked for yet (each could be waiting for a receive it cannot post).
        if (inline_data && cell.synchronous == 0) {
            const std::byte* data = area_.payload(owner, cell.payload);
            send.data.assign(data, data + cell.bytes);
            send.held = false;
            finish(owner, cell);
        }
        domain.unexpected.push_back(std::move(send));
    }

    // The first message of the domain that a receive of `cell`'s envelope
    // posted by `owner` matches.
    std::deque<Send>::iterator first_match(Domain& domain, const Key& receive) {
        return find(domain.unexpected,
                    [&](const Send& send) { return matches(receive, send.key); });
    }

    void receive_posted(int owner, std::uint32_t index, PostCell& cell) {
        Domain& domain = this->domain(owner);
        const Receive receive{owner, index, key(cell.context, cell.peer, cell.tag, owner)};
        const auto it = first_match(domain, receive.key);
        if (it != domain.unexpected.end()) {
            const Send send = std::move(*it);
            domain.unexpected.erase(it);
            deliver(send, receive);
            return;
        }
        domain.posted.push_back(receive);
    }

    // The first message a receive of the probe's envelope would match; a
    // matched probe takes it out of matching, under a number.
    void probe(int owner, PostCell& cell) {
        Domain& domain = this->domain(owner);
        const auto it = first_match(domain, key(cell.context, cell.peer, cell.tag, owner));
        cell.result_found = it != domain.unexpected.end() ? 1 : 0;
        if (cell.result_found != 0) {
            cell.result_source = it->key.source;
            cell.result_tag = it->tag;
            cell.result_bytes = it->bytes;
            if (cell.kind == node::CellKind::matched_probe) {
                cell.peer = ++last_taken_;
                taken_.emplace(cell.peer, std::move(*it));
                domain.unexpected.erase(it);
            }
        }
        cell.result_error = 0;
        finish(owner, cell);
    }

    // The receive of a message a matched probe took.
    void matched_receive(int owner, std::uint32_t index, PostCell& cell) {
        const auto it = taken_.find(cell.peer);
        if (it == taken_.end()) {
            log::error("ghost {}: rank {} receives message {}, which no matched probe took",
                       assignment_.index, world_rank_of(owner), cell.peer);
            cell.result_error = kErrOther;
            cell.result_bytes = 0;
            finish(owner, cell);
            return;
        }
        const Send send = std::move(it->second);
        taken_.erase(it);
        deliver(send, Receive{owner, index, {}});
    }

    // Takes back a receive or a held send no match took yet.
    void cancel(int owner, PostCell& cell) {
        const auto target = static_cast<std::uint32_t>(cell.peer);
        PostCell& cancelled = area_.cell(owner, target);
        const bool receive = cancelled.kind == node::CellKind::receive;
        bool found = false;
        if (receive) {
            auto& posted = domain(owner).posted;
            found = std::erase_if(posted, [&](const Receive& r) {
                        return r.owner == owner && r.cell == target;
                    }) != 0;
        } else if (cancelled.peer >= 0 && cancelled.peer < shape_.local_size) {
            auto& unexpected = domain(cancelled.peer).unexpected;
            found = std::erase_if(unexpected, [&](const Send& s) {
                        return s.held && s.owner == owner && s.cell == target;
                    }) != 0;
        }
        if (found) {
            cancelled.result_found = 1;
            finish(owner, cancelled);
        }
        finish(owner, cell);
    }

    // Copies a matched message into its receive and completes both.
    void deliver(const Send& send, Receive to) {
        block_.matches.fetch_add(1, std::memory_order_relaxed);
        PostCell& receive = area_.cell(to.owner, to.cell);
        const std::size_t bytes = std::min(send.bytes, receive.bytes);
        // A small receive has a payload slot the rank copies out of.
        std::byte* slot = receive.payload >= 0 ? area_.payload(to.owner, receive.payload) : nullptr;
        const int err = copy(send, receive.address, bytes, to.owner, slot);
        receive.result_found = 0;
        receive.result_source = send.key.source;
        receive.result_tag = send.tag;
        receive.result_bytes = err == 0 ? bytes : 0;
        receive.result_error = err != 0 ? kErrOther : send.bytes > receive.bytes ? kErrTruncate : 0;
        if (err != 0)
            log::error(
                "ghost {}: moving {} bytes from rank {} (pid {}) to rank {} (pid {}) failed: "
                "{}{}",
                assignment_.index, bytes, world_rank_of(send.owner), pid_of(send.owner),
                world_rank_of(to.owner), pid_of(to.owner), std::strerror(err),
                err == ESRCH ? " (one of them has died)" : "");
        finish(to.owner, receive);
        if (send.held) {
            PostCell& sent = area_.cell(send.owner, send.cell);
            sent.result_found = 0;
            finish(send.owner, sent);
        }
    }

    // One copy where the ghost maps either end (a shared block, or the
    // receive's payload slot `slot`), two through the bounce buffer otherwise.
    int copy(const Send& send, std::uint64_t to, std::size_t bytes, int receiver, std::byte* slot) {
        if (bytes == 0) return 0;
        const pid_t destination = pid_of(receiver);
        std::byte* mapped_to = slot != nullptr ? slot : shared_.find(receiver, to, bytes);
        if (send.address == 0) {
            block_.inline_bytes.fetch_add(bytes, std::memory_order_relaxed);
            const std::byte* data =
                send.held ? area_.payload(send.owner, send.payload) : send.data.data();
            if (mapped_to != nullptr) {
                std::memcpy(mapped_to, data, bytes);
                return 0;
            }
            return cross_memory::write(destination, data, bytes, to);
        }
        block_.referenced_bytes.fetch_add(bytes, std::memory_order_relaxed);
        const pid_t source = pid_of(send.owner);
        std::byte* mapped_from = shared_.find(send.owner, send.address, bytes);
        if (mapped_from != nullptr || mapped_to != nullptr) {
            block_.single_copy_bytes.fetch_add(bytes, std::memory_order_relaxed);
            if (mapped_from != nullptr && mapped_to != nullptr) {
                std::memcpy(mapped_to, mapped_from, bytes);
                return 0;
            }
            if (mapped_to != nullptr)
                return cross_memory::read(source, mapped_to, bytes, send.address);
            return cross_memory::write(destination, mapped_from, bytes, to);
        }
        for (std::size_t done = 0; done < bytes;) {
            const std::size_t piece = std::min(bytes - done, bounce_.size());
            if (int err = cross_memory::read(source, bounce_.data(), piece, send.address + done))
                return err;
            if (int err = cross_memory::write(destination, bounce_.data(), piece, to + done))
                return err;
            done += piece;
        }
        return 0;
    }

    pid_t pid_of(int local_index) const { return region_.rank_block(local_index).pid; }
    int world_rank_of(int local_index) const { return region_.rank_block(local_index).world_rank; }

    // The cell's completion flag, then the owner's doorbell: the rank may
    // sleep in MPI_Wait (p2p/wait.cpp re-checks after arming it).
    void finish(int owner, PostCell& cell) {
        cell.state.store(static_cast<std::uint32_t>(CellState::done), std::memory_order_release);
        store_load_fence();
        wake::wake_if_sleeping(*backend_, region_.rank_block(owner).doorbell);
    }

    const node::GhostArea& area_;
    const node::Region& region_;
    const GhostAssignment& assignment_;
    node::GhostBlock& block_;
    const node::GhostArea::Shape shape_;
    // SI_GHOST_MATCHING=receiver: one per local rank (only served ones fill);
    // dup and tag: one.
    std::vector<Domain> domains_;
    const int offset_bits_;
    std::uint64_t scanned_ = 0;                     // entries matching looked at and passed over
    std::unordered_map<std::int32_t, Send> taken_;  // by matched probes, by number
    std::int32_t last_taken_ = 0;
    std::vector<std::byte> bounce_;
    SharedMaps shared_;
    std::unique_ptr<wake::Backend> backend_;
};

}  // namespace

void run_ghost(const node::GhostArea& area, const node::Region& region,
               const GhostAssignment& assignment) {
    Ghost(area, region, assignment).run();
}

int spawn_ghost(const node::GhostArea& area, const node::Region& region,
                const GhostAssignment& assignment) {
    const NodeProcess process{"si-ghost", fmt::format("ghost{}", assignment.index), assignment.cpus,
                              false};
    return fork_node_process(process, [&] { run_ghost(area, region, assignment); });
}

void ring_ghost(const node::GhostArea& area, int ghost) {
    std::atomic<std::uint32_t>& word = area.ghost(ghost).word;
    // Pairs with the fence in the ghost's last look before it sleeps.
    store_load_fence();
    if (wake::state_of(word.load(std::memory_order_relaxed)) != wake::kSleeping) return;
    static const std::unique_ptr<wake::Backend> backend =
        wake::make_backend(config::WakeBackend::futex);
    wake::wake_if_sleeping(*backend, word);
}

}  // namespace si::progress
