#include "progress/ghost.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>

#include "base/cpu.hpp"
#include "base/cross_memory.hpp"
#include "base/log.hpp"
#include "progress/ghost_network.hpp"
#include "progress/ghost_process.hpp"
#include "progress/ghost_shared_maps.hpp"
#include "progress/node_process.hpp"
#include "wake/backends.hpp"
#include "wake/wake_word.hpp"

namespace si::progress {

namespace ghost_detail {

namespace {

using namespace std::chrono_literals;

// A referenced message moves through the ghost in pieces of this size (it
// cannot reach both ranks' memory at once: one read, one write per piece).
constexpr std::size_t kBounceBytes = std::size_t{256} << 10;
// How long a ghost polls its queues after it last found a cell before it
// sleeps until a rank rings it: a burst of messages costs no wake-up, an idle
// ghost no core.
constexpr auto kIdlePolling = 1ms;
// Empty passes between two yields while it polls.
constexpr int kPassesBeforeYield = 32;

}  // namespace

Ghost::Ghost(const node::GhostArea& area, const node::Region& region,
             const GhostAssignment& assignment)
    : area_(area),
      region_(region),
      assignment_(assignment),
      block_(area.ghost(assignment.index)),
      shape_(area.shape()),
      domains_(shape_.matching == config::GhostMatching::receiver
                   ? static_cast<std::size_t>(shape_.local_size)
                   : 1),
      offset_bits_(assignment.layout.offset_bits()),
      backlog_(static_cast<std::size_t>(shape_.local_size)),
      bounce_(kBounceBytes),
      shared_(area, region),
      backend_(wake::make_backend(config::WakeBackend::futex)) {
    for (int local = 0; local < shape_.local_size; ++local) {
        const auto world = static_cast<std::size_t>(world_rank_of(local));
        if (local_of_world_.size() <= world) local_of_world_.resize(world + 1, -1);
        local_of_world_[world] = local;
        offset_of_local_.push_back(
            static_cast<std::uint32_t>(assignment.layout.offset(static_cast<int>(world))));
    }
    if (assignment.layout.domains() > 1)
        network_ = std::make_unique<GhostNetwork>(
            block_.exchange, assignment.layout, assignment.ghost, shape_.inline_bytes,
            assignment.verbs_credits, block_.word, static_cast<GhostNetwork::Handler&>(*this));
}

void Ghost::run() {
    // Its last look before sleeping: a rank pushes, then rings (ring_ghost).
    const auto nothing_to_do = [&] {
        store_load_fence();
        if (network_ && (!network_->arm() || network_->progress() > 0)) return false;
        return block_.stop.load() == 0 && !anything_queued();
    };
    auto last_cell = std::chrono::steady_clock::now();
    int empty_passes = 0;
    while (block_.stop.load(std::memory_order_acquire) == 0) {
        if (backlogged_ != 0) flush_backlog();
        const bool network_work = network_ && network_->progress() > 0;
        if (drain() || network_work) {
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
        // Answers held back for a full completion ring go out as its rank
        // makes room, which rings no bell: the ghost polls until then.
        if (backlogged_ != 0 || std::chrono::steady_clock::now() - last_cell < kIdlePolling) {
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

bool Ghost::anything_queued() const {
    for (int rank = 0; rank < shape_.local_size; ++rank) {
        const node::PostQueue& queue = area_.queue(rank, assignment_.index);
        if (queue.tail.load(std::memory_order_relaxed) !=
            queue.head.load(std::memory_order_acquire))
            return true;
    }
    return false;
}

// Takes every cell queued to this ghost; true if there was one.
bool Ghost::drain() {
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

void Ghost::take(int owner, std::uint32_t index) {
    block_.cells.fetch_add(1, std::memory_order_relaxed);
    PostCell& cell = area_.cell(owner, index);
    const bool overflow = (cell.flags & node::kCellOverflow) != 0;
    const Origin origin{owner, index, overflow ? cell.result_bytes : 0};
    if (cell.kind == node::CellKind::receive)
        receive_posted(origin, cell);
    else if (cell.kind == node::CellKind::probe || cell.kind == node::CellKind::matched_probe)
        probe(origin, cell);
    else if (cell.kind == node::CellKind::matched_receive)
        matched_receive(origin, cell);
    else if (cell.kind == node::CellKind::cancel)
        cancel(origin, cell);
    else
        message_sent(origin, cell);
    // Everything is copied out of an overflow cell: its rank may reuse it,
    // and may be waiting for it (every cell in transit).
    if (overflow) {
        cell.state.store(static_cast<std::uint32_t>(CellState::done),
                         std::memory_order_release);
        ring_owner(owner);
    }
    block_.scanned.store(scanned_, std::memory_order_relaxed);
}

// Where messages to local rank `receiver` and its receives match.
Domain& Ghost::domain(int receiver) {
    return domains_.size() == 1 ? domains_.front()
                                : domains_[static_cast<std::size_t>(receiver)];
}

// The key of a receive posted by, or of a message to, local rank `receiver`.
Key Ghost::key(std::uint16_t context, std::int32_t source, std::int32_t tag, int receiver) const {
    const std::uint32_t offset = offset_of_local_[static_cast<std::size_t>(receiver)];
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
auto Ghost::find(Entries& entries, Found found) {
    auto it = entries.begin();
    for (; it != entries.end() && !found(*it); ++it) ++scanned_;
    return it;
}

void Ghost::message_sent(const Origin& origin, const PostCell& cell) {
    if ((cell.flags & node::kCellRemote) != 0) {
        carry(origin, cell);
        return;
    }
    const bool inline_data = cell.payload >= 0;
    Send send{origin,
              cell.payload,
              true,
              key(cell.context, cell.rank, cell.tag, cell.peer),
              cell.tag,
              cell.bytes,
              inline_data ? 0 : cell.address,
              {},
              -1,
              {}};
    if (matched_on_arrival(send, cell.peer)) return;
    Domain& domain = this->domain(cell.peer);
    // Small data leaves the cell, so that the sender gets it back: a
    // sender's cells must not run out on messages its peers have not
    // asked for yet (each could be waiting for a receive it cannot post).
    if (inline_data && (cell.flags & node::kCellSynchronous) == 0) {
        const std::byte* data = area_.payload(origin.owner, cell.payload);
        send.data.assign(data, data + cell.bytes);
        send.held = false;
        reply(origin, {});
    }
    domain.unexpected.push_back(std::move(send));
}

// Delivers a message to local rank `receiver` if a receive waits for it;
// otherwise counts it as unexpected.
bool Ghost::matched_on_arrival(const Send& send, int receiver) {
    Domain& domain = this->domain(receiver);
    const auto it = find(
        domain.posted, [&](const Receive& receive) { return matches(receive.key, send.key); });
    if (it == domain.posted.end()) {
        block_.unexpected.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    const Receive taken = *it;
    domain.posted.erase(it);
    deliver(send, taken);
    return true;
}

// The first message of the domain that a receive of `cell`'s envelope
// posted by `owner` matches.
std::deque<Send>::iterator Ghost::first_match(Domain& domain, const Key& receive) {
    return find(domain.unexpected,
                [&](const Send& send) { return matches(receive, send.key); });
}

void Ghost::receive_posted(const Origin& origin, const PostCell& cell) {
    Domain& domain = this->domain(origin.owner);
    const Receive receive{origin, key(cell.context, cell.peer, cell.tag, origin.owner),
                          cell.address, cell.bytes, cell.payload};
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
void Ghost::probe(const Origin& origin, const PostCell& cell) {
    Domain& domain = this->domain(origin.owner);
    const auto it = first_match(domain, key(cell.context, cell.peer, cell.tag, origin.owner));
    Answer answer{};
    if (it != domain.unexpected.end()) {
        answer = {.bytes = it->bytes, .source = it->key.source, .tag = it->tag, .found = 1};
        if (cell.kind == node::CellKind::matched_probe) {
            answer.taken = ++last_taken_;
            taken_.emplace(answer.taken, std::move(*it));
            domain.unexpected.erase(it);
        }
    }
    reply(origin, answer);
}

// The receive of a message a matched probe took.
void Ghost::matched_receive(const Origin& origin, const PostCell& cell) {
    const auto it = taken_.find(cell.peer);
    if (it == taken_.end()) {
        log::error("ghost {}: rank {} receives message {}, which no matched probe took",
                   assignment_.index, world_rank_of(origin.owner), cell.peer);
        reply(origin, {.error = kErrOther});
        return;
    }
    const Send send = std::move(it->second);
    taken_.erase(it);
    deliver(send, Receive{origin, {}, cell.address, cell.bytes, cell.payload});
}

// Takes back a receive or a held send no match took yet. The cancel
// cell names it: its cell in `peer` and its token in `address` (0: it
// answers in its cell), and in `rank` a send's receiver (-1: a receive).
void Ghost::cancel(const Origin& origin, const PostCell& cell) {
    const Origin target{origin.owner, static_cast<std::uint32_t>(cell.peer), cell.address};
    std::optional<Origin> found;
    if (cell.rank < 0) {
        auto& posted = domain(origin.owner).posted;
        const auto it = std::find_if(posted.begin(), posted.end(),
                                     [&](const Receive& r) { return r.origin == target; });
        if (it != posted.end()) {
            found = it->origin;
            posted.erase(it);
        }
    } else if ((cell.flags & node::kCellRemote) == 0) {
        auto& unexpected = domain(cell.rank).unexpected;
        const auto it = std::find_if(unexpected.begin(), unexpected.end(), [&](const Send& s) {
            return s.held && s.origin == target;
        });
        if (it != unexpected.end()) {
            found = it->origin;
            unexpected.erase(it);
        }
    }
    if (found) reply(*found, {.found = 1});
    reply(origin, {});
}

// Copies a matched message into its receive and completes both.
void Ghost::deliver(const Send& send, const Receive& to) {
    block_.matches.fetch_add(1, std::memory_order_relaxed);
    if (send.from_ghost >= 0 && send.remote.rts != 0) {
        start_read(send, to);
        return;
    }
    const int sender = send.origin.owner;
    const int receiver = to.origin.owner;
    const std::size_t bytes = std::min(send.bytes, to.capacity);
    std::byte* slot = to.payload >= 0 ? area_.payload(receiver, to.payload) : nullptr;
    const int err = copy(send, to.address, bytes, receiver, slot);
    if (err != 0)
        log::error("ghost {}: moving {} bytes from {} to rank {} (pid {}) failed: {}{}",
                   assignment_.index, bytes,
                   send.from_ghost >= 0 ? std::string("another node")
                                        : fmt::format("rank {} (pid {})", world_rank_of(sender),
                                                      pid_of(sender)),
                   world_rank_of(receiver), pid_of(receiver), std::strerror(err),
                   err == ESRCH ? " (one of them has died)" : "");
    const int error = err != 0 ? kErrOther : send.bytes > to.capacity ? kErrTruncate : 0;
    reply(to.origin, {.bytes = err == 0 ? bytes : 0,
                      .source = send.key.source,
                      .tag = send.tag,
                      .error = error});
    if (send.from_ghost < 0) {
        if (send.held) reply(send.origin, {});
    } else if (send.remote.synchronous != 0) {
        network_->send_done(send.from_ghost, send.remote.id, 0);
    }
}

// One copy where the ghost maps either end (a shared block, or the
// receive's payload slot `slot`), two through the bounce buffer otherwise.
int Ghost::copy(const Send& send, std::uint64_t to, std::size_t bytes, int receiver,
                std::byte* slot) {
    if (bytes == 0) return 0;
    const pid_t destination = pid_of(receiver);
    std::byte* mapped_to = slot != nullptr ? slot : shared_.find(receiver, to, bytes);
    if (send.address == 0) {
        block_.inline_bytes.fetch_add(bytes, std::memory_order_relaxed);
        const std::byte* data =
            send.held ? area_.payload(send.origin.owner, send.payload) : send.data.data();
        if (mapped_to != nullptr) {
            std::memcpy(mapped_to, data, bytes);
            return 0;
        }
        return cross_memory::write(destination, data, bytes, to);
    }
    block_.referenced_bytes.fetch_add(bytes, std::memory_order_relaxed);
    const pid_t source = pid_of(send.origin.owner);
    std::byte* mapped_from = shared_.find(send.origin.owner, send.address, bytes);
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

// The answer in the operation's cell, then its completion flag; or in
// its owner's completion ring. Then the owner's doorbell.
void Ghost::reply(const Origin& origin, Answer answer) {
    if (origin.token == 0) {
        PostCell& cell = area_.cell(origin.owner, origin.cell);
        cell.result_source = answer.source;
        cell.result_tag = answer.tag;
        cell.result_error = answer.error;
        cell.result_found = answer.found;
        cell.result_bytes = answer.bytes;
        if (answer.taken != 0) cell.peer = answer.taken;
        cell.state.store(static_cast<std::uint32_t>(CellState::done),
                         std::memory_order_release);
    } else {
        answer.token = origin.token;
        auto& backlog = backlog_[static_cast<std::size_t>(origin.owner)];
        if (!backlog.empty() || !push_completion(origin.owner, answer)) {
            backlog.push_back(answer);
            ++backlogged_;
            block_.backlogged.fetch_add(1, std::memory_order_relaxed);
        }
    }
    ring_owner(origin.owner);
}

// After an answer: the rank may sleep in MPI_Wait (p2p/wait.cpp re-checks
// after arming its doorbell).
void Ghost::ring_owner(int owner) {
    store_load_fence();
    wake::wake_if_sleeping(*backend_, region_.rank_block(owner).doorbell);
}

bool Ghost::push_completion(int owner, const node::CompletionEntry& entry) {
    node::CompletionRing& ring = area_.completions(assignment_.index, owner);
    const std::uint64_t head = ring.head.load(std::memory_order_relaxed);
    if (head - ring.tail.load(std::memory_order_acquire) >= node::kCompletionEntries)
        return false;
    ring.entries[head % node::kCompletionEntries] = entry;
    ring.head.store(head + 1, std::memory_order_release);
    return true;
}

// Answers a full ring held back, as its rank makes room.
void Ghost::flush_backlog() {
    for (int owner = 0; owner < shape_.local_size; ++owner) {
        auto& backlog = backlog_[static_cast<std::size_t>(owner)];
        bool pushed = false;
        while (!backlog.empty() && push_completion(owner, backlog.front())) {
            backlog.pop_front();
            --backlogged_;
            pushed = true;
        }
        if (pushed) ring_owner(owner);
    }
}

}  // namespace ghost_detail

void run_ghost(const node::GhostArea& area, const node::Region& region,
               const GhostAssignment& assignment) {
    ghost_detail::Ghost(area, region, assignment).run();
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
