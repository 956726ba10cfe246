#include "progress/ghost_client.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>

#include "base/error_class.hpp"
#include "base/log.hpp"
#include "progress/ghost.hpp"
#include "progress/ghost_network.hpp"
#include "progress/node_process.hpp"
#include "wake/backends.hpp"

namespace si::progress {

namespace {

using namespace std::chrono_literals;
using node::CellState;

constexpr int kErrOther = error_class::kOther;
// How long MPI_Finalize waits for a ghost to stop before killing it.
constexpr auto kGhostStopGrace = 2s;
// How often a rank waiting for its ghosts checks that they live: a blocked
// rank may make only a pass per sleep, so the period is in time.
constexpr auto kLivenessPeriod = 20ms;

// What a cell says about its operation, kept by the operation until it has
// a cell.
struct Fields {
    std::uint8_t flags = 0;  // node::kCellSynchronous, kCellRemote
    std::uint16_t context = 0;
    std::int32_t peer = 0;
    std::int32_t rank = 0;
    std::int32_t tag = 0;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
};

}  // namespace

// One send or receive handed to a ghost, as an engine Activity: the first
// advance fills a cell and posts it (or waits for a free one), the others
// read the cell's completion flag.
class GhostOperation final : public p2p::Activity {
  public:
    GhostOperation(GhostClient& client, node::CellKind kind, int ghost, const Fields& fields,
                   const void* data)
        : client_(client), kind_(kind), ghost_(ghost), fields_(fields), data_(data) {}

    ~GhostOperation() override {
        if (token_ != 0 && !answer_) client_.overflow_operations_.erase(token_);
    }

    bool advance(p2p::Engine&) override {
        if (!cell_) {
            // Cancelled before the ghost had it: nothing can have matched it.
            if (!cancel_wanted_) return post();
            std::erase(
                kind_ == node::CellKind::send ? client_.sends_waiting_ : client_.receives_waiting_,
                this);
            completion_.cancelled = true;
            return true;
        }
        if (cancel_wanted_ && !cancel_sent_) send_cancel();
        node::PostCell& cell = client_.area_.cell(client_.local_index_, *cell_);
        if (token_ != 0) {
            client_.collect_completions();
        } else if (cell.state.load(std::memory_order_acquire) ==
                   static_cast<std::uint32_t>(CellState::done)) {
            answer_ = node::CompletionEntry{.bytes = cell.result_bytes,
                                            .source = cell.result_source,
                                            .tag = cell.result_tag,
                                            .error = cell.result_error,
                                            .found = cell.result_found,
                                            .taken = cell.peer};
        }
        if (!answer_) {
            if (client_.ghosts_alive()) return false;
            completion_.error = kErrOther;
            return true;
        }
        if (probe()) {
            found_ = answer_->found != 0;
            taken_ = answer_->taken;
        } else if (answer_->found != 0) {
            completion_.cancelled = true;
        }
        // A send fails only when its data could not reach another node.
        if (kind_ == node::CellKind::send) completion_.error = answer_->error;
        if (kind_ != node::CellKind::send && !completion_.cancelled) {
            completion_.source = answer_->source;
            completion_.tag = answer_->tag;
            completion_.error = answer_->error;
            completion_.bytes = answer_->bytes;
            if (payload_ >= 0 && answer_->bytes > 0)
                std::memcpy(reinterpret_cast<void*>(fields_.address),
                            client_.area_.payload(client_.local_index_, payload_), answer_->bytes);
        }
        // An overflow cell went back once the ghost took it (detached).
        if (token_ == 0) client_.release_cell(*cell_);
        return true;
    }

    // The ghost's answer to an overflow cell, from the completion ring.
    void answered(const node::CompletionEntry& entry) { answer_ = entry; }

    int result() const override { return completion_.error; }

    // MPI_Cancel of a send or a receive: done at the next advance if it still
    // waits for a cell; otherwise a cancel cell behind this one's, to the
    // same ghost, which answers for this one (sent when a cell is free).
    void cancel() override {
        if (answer_ || (kind_ != node::CellKind::send && kind_ != node::CellKind::receive)) return;
        cancel_wanted_ = true;
        send_cancel();
    }
    p2p::Completion completion() const override { return completion_; }

    // A probe's answer, once complete; a matched probe's message number.
    bool found() const { return found_; }
    std::int32_t taken() const { return taken_; }

  private:
    void send_cancel() {
        if (!cell_ || cancel_sent_ || answer_) return;
        const node::PostCell& cell = client_.area_.cell(client_.local_index_, *cell_);
        if (token_ == 0 && cell.state.load(std::memory_order_acquire) !=
                               static_cast<std::uint32_t>(CellState::posted))
            return;
        client_.reclaim_detached_cells();
        const std::optional<GhostClient::CellGrant> grant = client_.acquire_cell(true);
        if (!grant) return;
        cancel_sent_ = true;
        // Named by its cell and token (ghost.cpp: cancel), and a send by its receiver.
        node::PostCell& request = client_.area_.cell(client_.local_index_, grant->index);
        request.kind = node::CellKind::cancel;
        request.flags = fields_.flags & node::kCellRemote;
        request.payload = -1;
        request.peer = static_cast<std::int32_t>(*cell_);
        request.address = token_;
        request.rank = kind_ == node::CellKind::send ? fields_.peer : -1;
        request.state.store(static_cast<std::uint32_t>(CellState::posted),
                            std::memory_order_relaxed);
        client_.post(grant->index, ghost_);
        client_.detach_cell(grant->index);
    }

    bool probe() const {
        return kind_ == node::CellKind::probe || kind_ == node::CellKind::matched_probe;
    }

    bool post() {
        // Sends reach the ghost in the order they were started, and so do
        // receives and probes (MPI's matching order): one that waits for a
        // cell holds back the others of its kind, not those of the other.
        const bool send = kind_ == node::CellKind::send;
        std::deque<GhostOperation*>& waiting =
            send ? client_.sends_waiting_ : client_.receives_waiting_;
        const bool first = waiting.empty() || waiting.front() == this;
        client_.reclaim_detached_cells();
        // A small send's data goes in a payload slot if one is free (else the
        // ghost copies it from here, as a large one's); a small receive gets
        // one too, which the ghost fills with a plain copy and this rank
        // copies out of (no system call on either side). Receives leave half
        // of the slots to sends, whose eager completion programs may count on.
        const std::size_t free_slots = client_.free_payloads_.size();
        const bool slot_wanted = fields_.bytes <= client_.shape_.inline_bytes &&
                                 (send ? free_slots > 0
                                       : !probe() && fields_.bytes > 0 &&
                                             free_slots > client_.shape_.payloads_per_rank / 2);
        // A small standard send gives its cell back as soon as the ghost took it.
        const bool synchronous = (fields_.flags & node::kCellSynchronous) != 0;
        const bool transient = send && slot_wanted && !synchronous;
        std::optional<GhostClient::CellGrant> grant;
        if (first) grant = client_.acquire_cell(transient);
        if (grant) cell_ = grant->index;
        if (!cell_) {
            if (!waited_) {
                ++client_.stats_.cell_waits;
                waiting.push_back(this);
            }
            waited_ = true;
            if (client_.ghosts_alive()) return false;
            std::erase(waiting, this);
            completion_.error = kErrOther;
            return true;
        }
        if (waited_) waiting.pop_front();
        node::PostCell& cell = client_.area_.cell(client_.local_index_, *cell_);
        cell.kind = kind_;
        cell.flags = fields_.flags;
        cell.context = fields_.context;
        cell.peer = fields_.peer;
        cell.rank = fields_.rank;
        cell.tag = fields_.tag;
        cell.address = fields_.address;
        cell.bytes = fields_.bytes;
        cell.payload = -1;
        if (grant->overflow) {
            // The ghost answers in the completion ring under this token and
            // gives the cell back at once, so it carries no payload slot.
            token_ = ++client_.last_token_;
            client_.overflow_operations_.emplace(token_, this);
            cell.flags |= node::kCellOverflow;
            cell.result_bytes = token_;
        } else if (slot_wanted) {
            cell.payload = client_.free_payloads_.back();
            client_.free_payloads_.pop_back();
            payload_ = cell.payload;
            if (send && fields_.bytes > 0)
                std::memcpy(client_.area_.payload(client_.local_index_, cell.payload), data_,
                            fields_.bytes);
        }
        const bool inline_send = send && cell.payload >= 0;
        cell.state.store(static_cast<std::uint32_t>(CellState::posted), std::memory_order_relaxed);
        client_.post(*cell_, ghost_);
        if (grant->overflow) {
            client_.detach_cell(*cell_);
            return false;
        }
        if (!inline_send || synchronous) return false;
        // The data is in the cell: the send is complete, the cell the ghost's
        // until it says done.
        ++client_.stats_.inline_sends;
        client_.detach_cell(*cell_);
        return true;
    }

    GhostClient& client_;
    const node::CellKind kind_;
    const int ghost_;
    const Fields fields_;
    const void* data_;
    std::optional<std::uint32_t> cell_;
    std::int32_t payload_ = -1;  // its payload slot, if its cell has one
    std::uint64_t token_ = 0;    // an overflow cell's, which the ghost answers under
    std::optional<node::CompletionEntry> answer_;
    bool waited_ = false;
    bool found_ = false;
    std::int32_t taken_ = 0;
    bool cancel_wanted_ = false;
    bool cancel_sent_ = false;
    p2p::Completion completion_;
};

GhostClient::GhostClient(p2p::Engine& engine, const node::Region& region,
                         const node::GhostArea& area, const node::Locality& locality,
                         GhostLayout layout, int verbs_credits)
    : engine_(engine),
      area_(area),
      local_index_(locality.local_index()),
      world_rank_(locality.world_rank),
      shape_(area.shape()),
      layout_(std::move(layout)),
      local_of_world_(static_cast<std::size_t>(locality.world_size), -1),
      queue_heads_(static_cast<std::size_t>(shape_.ghosts), 0),
      ghost_pidfds_(static_cast<std::size_t>(shape_.ghosts), -1) {
    cell_held_.assign(shape_.cells_per_rank, false);
    for (int rank : locality.host_ranks)
        local_of_world_[static_cast<std::size_t>(rank)] = locality.local_index_of[rank];
    for (std::uint32_t cell = shape_.cells_per_rank; cell-- > 0;) free_cells_.push_back(cell);
    for (auto slot = static_cast<std::int32_t>(shape_.payloads_per_rank); slot-- > 0;)
        free_payloads_.push_back(slot);
    const int domain = layout_.domain_of(world_rank_);
    const int first = layout_.first_ghost(domain);
    for (int ghost = first; ghost < first + layout_.ghosts_in(domain); ++ghost)
        domain_blocks_.push_back(layout_.block_of(ghost));
    if (layout_.index_in_domain(world_rank_) != 0) return;
    // Forked now, before this process has runtime threads. Placed as one set
    // with the other domains' ghosts of the host (the same for every first
    // rank), so that two simulated nodes' ghosts do not take the same free core.
    const std::vector<ProcessPlacement> placement = place_node_processes(region, shape_.ghosts);
    for (std::size_t i = 0; i < domain_blocks_.size(); ++i) {
        GhostAssignment assignment;
        assignment.index = domain_blocks_[i];
        assignment.ghost = first + static_cast<int>(i);
        assignment.cpus = placement[static_cast<std::size_t>(assignment.index)].cpus;
        assignment.layout = layout_;
        assignment.verbs_credits = verbs_credits;
        const int pid = spawn_ghost(area, region, assignment);
        area.ghost(assignment.index).pid.store(pid, std::memory_order_release);
        started_ghosts_.emplace_back(assignment.index, pid);
    }
}

void GhostClient::connect(bootstrap::Bootstrap& bootstrap) {
    if (layout_.domains() < 2) return;
    std::vector<int> started;
    for (const auto& [block, pid] : started_ghosts_) started.push_back(block);
    connect_ghost_network(bootstrap, area_, started);
}

GhostClient::~GhostClient() {
    stop();
    for (int fd : ghost_pidfds_)
        if (fd >= 0) ::close(fd);
}

p2p::Request* GhostClient::isend(const void* data, std::size_t bytes, int dest, int tag,
                                 const p2p::CommRef& comm, std::uint16_t context,
                                 p2p::SendMode mode, std::unique_ptr<p2p::CompletionHook>&& hook) {
    // A receiver of this domain by its local index; one of another by its
    // world rank, for the ghost that carries the message there.
    const int world = comm.world_of[static_cast<std::size_t>(dest)];
    const bool remote = layout_.domain_of(world) != layout_.domain_of(world_rank_);
    std::uint8_t flags = mode == p2p::SendMode::synchronous ? node::kCellSynchronous : 0;
    if (remote) flags |= node::kCellRemote;
    const Fields fields{flags,
                        context,
                        remote ? world : local_of_world_[static_cast<std::size_t>(world)],
                        comm.rank,
                        tag,
                        reinterpret_cast<std::uint64_t>(data),
                        bytes};
    const int block = layout_.block_of(layout_.carrying_ghost(world_rank_, world));
    return engine_.start(
        std::make_unique<GhostOperation>(*this, node::CellKind::send, block, fields, data),
        p2p::Request::Kind::send, std::move(hook));
}

p2p::Request* GhostClient::irecv(void* buffer, std::size_t capacity, int source, int tag,
                                 const p2p::CommRef& comm, std::uint16_t context,
                                 std::unique_ptr<p2p::CompletionHook>&& hook) {
    const Fields fields{0,
                        context,
                        source == p2p::kAnySource ? node::kGhostAnySource : source,
                        comm.rank,
                        tag == p2p::kAnyTag ? node::kGhostAnyTag : tag,
                        reinterpret_cast<std::uint64_t>(buffer),
                        capacity};
    return engine_.start(
        std::make_unique<GhostOperation>(*this, node::CellKind::receive,
                                         serving_block(world_rank_), fields, nullptr),
        p2p::Request::Kind::receive, std::move(hook));
}

std::optional<p2p::Completion> GhostClient::iprobe(int source, int tag, const p2p::CommRef& comm,
                                                   std::uint16_t context) {
    const auto found = ask(node::CellKind::probe, source, tag, comm, context);
    if (!found) return std::nullopt;
    return found->second;
}

std::optional<std::pair<std::int32_t, p2p::Completion>> GhostClient::improbe(
    int source, int tag, const p2p::CommRef& comm, std::uint16_t context) {
    return ask(node::CellKind::matched_probe, source, tag, comm, context);
}

std::optional<std::pair<std::int32_t, p2p::Completion>> GhostClient::ask(node::CellKind kind,
                                                                         int source, int tag,
                                                                         const p2p::CommRef& comm,
                                                                         std::uint16_t context) {
    const Fields fields{0,
                        context,
                        source == p2p::kAnySource ? node::kGhostAnySource : source,
                        comm.rank,
                        tag == p2p::kAnyTag ? node::kGhostAnyTag : tag,
                        0,
                        0};
    GhostOperation probe(*this, kind, serving_block(world_rank_), fields, nullptr);
    p2p::Request* request = engine_.start(probe);
    engine_.wait(request);
    const p2p::Completion answer = request->result;
    engine_.release(request);
    if (!probe.found()) return std::nullopt;
    return std::pair{probe.taken(), answer};
}

p2p::Request* GhostClient::imrecv(std::int32_t message, void* buffer, std::size_t capacity,
                                  std::unique_ptr<p2p::CompletionHook>&& hook) {
    const Fields fields{0, 0, message, 0, 0, reinterpret_cast<std::uint64_t>(buffer), capacity};
    return engine_.start(
        std::make_unique<GhostOperation>(*this, node::CellKind::matched_receive,
                                         serving_block(world_rank_), fields, nullptr),
        p2p::Request::Kind::receive, std::move(hook));
}

void GhostClient::release_cell(std::uint32_t index) {
    node::PostCell& cell = area_.cell(local_index_, index);
    if (cell.payload >= 0) free_payloads_.push_back(cell.payload);
    if (cell_held_[index]) --held_cells_;
    cell_held_[index] = false;
    cell.state.store(static_cast<std::uint32_t>(CellState::free), std::memory_order_relaxed);
    free_cells_.push_back(index);
}

std::optional<GhostClient::CellGrant> GhostClient::acquire_cell(bool transient) {
    // Receives, and sends whose data stays with the sender, hold their cells
    // until matched, which may wait for what this rank posts next: they hold
    // at most three quarters of the cells, and beyond that get overflow
    // cells, which the ghost gives back as soon as it took them. The cells
    // never held are always coming back, so every operation gets one.
    const std::uint32_t cap =
        shape_.cells_per_rank - std::max<std::uint32_t>(1, shape_.cells_per_rank / 4);
    if (free_cells_.empty()) return std::nullopt;
    const std::uint32_t index = free_cells_.back();
    free_cells_.pop_back();
    const bool overflow = !transient && held_cells_ >= cap;
    if (!transient && !overflow) {
        ++held_cells_;
        cell_held_[index] = true;
    }
    if (overflow) ++stats_.overflow_posts;
    return CellGrant{index, overflow};
}

void GhostClient::collect_completions() {
    for (int g : domain_blocks_) {
        node::CompletionRing& ring = area_.completions(g, local_index_);
        std::uint64_t tail = ring.tail.load(std::memory_order_relaxed);
        const std::uint64_t head = ring.head.load(std::memory_order_acquire);
        if (tail == head) continue;
        for (; tail != head; ++tail) {
            const node::CompletionEntry& entry = ring.entries[tail % node::kCompletionEntries];
            // An operation destroyed unanswered (MPI_Finalize with it pending)
            // is no longer listed.
            const auto it = overflow_operations_.find(entry.token);
            if (it == overflow_operations_.end()) continue;
            it->second->answered(entry);
            overflow_operations_.erase(it);
        }
        ring.tail.store(tail, std::memory_order_release);
    }
}

void GhostClient::reclaim_detached_cells() {
    // Sends that completed at posting give their cells (and payload slots)
    // back once the ghost took their data, overflow and cancel cells once the
    // ghost took them. Done at every posting, so that small receives find
    // payload slots (they take one only while half are free: without one the
    // ghost writes into the rank with a system call).
    std::erase_if(detached_cells_, [&](std::uint32_t index) {
        const node::PostCell& cell = area_.cell(local_index_, index);
        if (cell.state.load(std::memory_order_acquire) !=
            static_cast<std::uint32_t>(CellState::done))
            return false;
        release_cell(index);
        return true;
    });
}

void GhostClient::post(std::uint32_t index, int ghost) {
    ++stats_.posts;
    node::PostQueue& queue = area_.queue(local_index_, ghost);
    std::uint64_t& head = queue_heads_[static_cast<std::size_t>(ghost)];
    area_.queue_slots(local_index_, ghost)[head & (shape_.cells_per_rank - 1)] = index;
    queue.head.store(++head, std::memory_order_release);
    ring_ghost(area_, ghost);
}

bool GhostClient::ghosts_alive() {
    if (ghost_lost_) return false;
    // Called at every pass that finds an operation unfinished: a coarse
    // clock (a few milliseconds' resolution) is enough and costs a fraction
    // of the precise one.
    timespec coarse{};
    ::clock_gettime(CLOCK_MONOTONIC_COARSE, &coarse);
    const auto now = std::chrono::seconds(coarse.tv_sec) + std::chrono::nanoseconds(coarse.tv_nsec);
    if (now - last_liveness_check_ < kLivenessPeriod) return true;
    last_liveness_check_ = now;
    for (int g : domain_blocks_) {
        const node::GhostBlock& ghost = area_.ghost(g);
        if (!node_process_exited(ghost.pid.load(std::memory_order_acquire),
                                 ghost_pidfds_[static_cast<std::size_t>(g)]) ||
            ghost.stop.load() != 0)
            continue;
        ghost_lost_ = true;
        log::error("ghost process {} (pid {}) died; the operations handed to it fail", g,
                   ghost.pid.load());
        return false;
    }
    return true;
}

void* GhostClient::allocate_shared(std::size_t bytes) {
    std::lock_guard lock(shared_mutex_);
    node::SharedBlock* blocks = area_.shared_blocks(local_index_);
    node::SharedBlock* entry =
        std::find_if(blocks, blocks + node::kSharedBlocks, [](const node::SharedBlock& b) {
            return b.generation.load(std::memory_order_relaxed) == 0;
        });
    if (entry == blocks + node::kSharedBlocks || bytes == 0) return nullptr;
    const int fd = ::memfd_create("si-alloc-mem", MFD_CLOEXEC);
    if (fd < 0) return nullptr;
    void* memory = MAP_FAILED;
    if (::ftruncate(fd, static_cast<off_t>(bytes)) == 0)
        memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
        ::close(fd);
        return nullptr;
    }
    entry->address = reinterpret_cast<std::uint64_t>(memory);
    entry->bytes = bytes;
    entry->fd = fd;
    // Published last: a ghost that sees the generation sees the rest.
    entry->generation.store(++shared_generation_, std::memory_order_release);
    return memory;
}

bool GhostClient::free_shared(void* base) {
    std::lock_guard lock(shared_mutex_);
    node::SharedBlock* blocks = area_.shared_blocks(local_index_);
    for (std::size_t i = 0; i < node::kSharedBlocks; ++i) {
        node::SharedBlock& entry = blocks[i];
        if (entry.generation.load(std::memory_order_relaxed) == 0 ||
            entry.address != reinterpret_cast<std::uint64_t>(base))
            continue;
        entry.generation.store(0, std::memory_order_release);
        ::munmap(base, entry.bytes);
        ::close(entry.fd);
        return true;
    }
    return false;
}

void GhostClient::stop() {
    static const std::unique_ptr<wake::Backend> backend =
        wake::make_backend(config::WakeBackend::futex);
    for (const auto& [index, pid] : started_ghosts_) {
        node::GhostBlock& ghost = area_.ghost(index);
        ghost.stop.store(1);
        wake::post(*backend, ghost.word);
    }
    const auto deadline = std::chrono::steady_clock::now() + kGhostStopGrace;
    for (auto& [index, pid] : started_ghosts_) reap_node_process("ghost process", pid, deadline);
}

std::vector<Counter> GhostClient::counters() const {
    std::vector<Counter> out = {
        {"ghost_posts", stats_.posts},
        {"ghost_inline_sends", stats_.inline_sends},
        {"ghost_cell_waits", stats_.cell_waits},
        {"ghost_overflow_posts", stats_.overflow_posts},
    };
    for (const auto& [index, pid] : started_ghosts_) {
        const node::GhostBlock& ghost = area_.ghost(index);
        const std::string prefix = "ghost" + std::to_string(index) + "_";
        out.emplace_back(prefix + "cells", ghost.cells.load());
        out.emplace_back(prefix + "matches", ghost.matches.load());
        out.emplace_back(prefix + "unexpected", ghost.unexpected.load());
        out.emplace_back(prefix + "scanned", ghost.scanned.load());
        out.emplace_back(prefix + "backlogged", ghost.backlogged.load());
        out.emplace_back(prefix + "inline_bytes", ghost.inline_bytes.load());
        out.emplace_back(prefix + "referenced_bytes", ghost.referenced_bytes.load());
        out.emplace_back(prefix + "single_copy_bytes", ghost.single_copy_bytes.load());
        out.emplace_back(prefix + "sleeps", ghost.sleeps.load());
        out.emplace_back(prefix + "forwarded", ghost.forwarded.load());
        out.emplace_back(prefix + "rdma_read_bytes", ghost.rdma_read_bytes.load());
        out.emplace_back(prefix + "cpu_us", ghost.cpu_ns.load() / 1000);
    }
    return out;
}

}  // namespace si::progress
