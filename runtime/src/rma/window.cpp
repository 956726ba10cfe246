// A window's memory, its counter block, and the activity that drives it.
#include "rma/window.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "base/error.hpp"
#include "base/log.hpp"

namespace si::rma {

void Epoch::reset(Kind kind_, const std::vector<int>& members_, int window_size) {
    kind = kind_;
    members.assign(members_.begin(), members_.end());
    member_of.assign(static_cast<std::size_t>(window_size), -1);
    for (std::size_t i = 0; i < members.size(); ++i)
        member_of[static_cast<std::size_t>(members[i])] = static_cast<int>(i);
    lock_type = LockType::shared;
    active = closed = completed = false;
    error = 0;
    fence_number = 0;
    number.assign(members.size(), 0);
    granted.assign(members.size(), 0);
    pending.assign(members.size(), 0);
    signalled.assign(members.size(), 0);
    deferred.clear();
}

namespace {

constexpr std::size_t kPage = 4096;

// Inbox rows, outbox rows, and a word holding 1: what an RDMA Write that
// raises a peer's flag sends (it must come from registered memory).
std::size_t flag_source_index(std::size_t members) {
    return 2 * members * kCounters;
}

std::size_t counter_bytes(std::size_t members) {
    const std::size_t bytes = (flag_source_index(members) + 1) * sizeof(std::uint64_t);
    return (bytes + kPage - 1) / kPage * kPage;
}

constexpr std::size_t kSignalFlags = 64;

}  // namespace

Window::Window(p2p::Engine& engine, std::vector<int> world_of, int rank, std::uint16_t context,
               Memory memory, const std::string& segment_name)
    : engine_(engine),
      world_of_(std::move(world_of)),
      rank_(rank),
      context_(context),
      base_(memory.base),
      bytes_(memory.size),
      disp_unit_(memory.disp_unit),
      dynamic_(memory.dynamic) {
    const std::size_t n = world_of_.size();
    const std::size_t counters = counter_bytes(n);
    bool memory_in_segment = memory.allocate && memory.size > 0;
    try {
        segment_ =
            SharedSegment::create(segment_name, counters + (memory_in_segment ? memory.size : 0));
    } catch (const Error&) {
        // No room in /dev/shm for the window: its memory stays private
        // (reached by cross-memory attach), only the counters are shared.
        if (!memory_in_segment) throw;
        memory_in_segment = false;
        segment_ = SharedSegment::create(segment_name, counters);
    }
    counters_ = static_cast<std::uint64_t*>(segment_.data());
    counters_[flag_source_index(n)] = 1;
    if (memory.allocate) {
        if (memory_in_segment) {
            base_ = static_cast<std::byte*>(segment_.data()) + counters;
        } else if (memory.size > 0) {
            if (::posix_memalign(&private_memory_, 64, memory.size) != 0)
                throw Error("cannot allocate " + std::to_string(memory.size) +
                            " bytes for the window");
            base_ = private_memory_;
        }
    }
    memory_in_segment_ = memory_in_segment;
    accesses_requested_.assign(n, 0);
    exposures_opened_.assign(n, 0);
    locks_requested_.assign(n, 0);
    locks_granted_.assign(n, 0);
    sequence_.assign(n, 0);
    unfinished_.resize(n);
    ages_.assign(n, 0);
    all_ranks_.resize(n);
    std::iota(all_ranks_.begin(), all_ranks_.end(), 0);
    mapped_.resize(n);
    mapped_counters_.assign(n, nullptr);
    mapped_memory_.assign(n, nullptr);
    // Only a transport that pins memory needs a registration before a peer
    // can reach it; cross-memory attach reaches any address.
    p2p::ProgressObserver* observer = engine_.progress_observer();
    std::uint8_t* flags = observer != nullptr ? observer->signal_flags() : nullptr;
    for (transport::Transport* transport : engine_.transports()) {
        if (!transport->capabilities().pins_memory) continue;
        Registered r{transport, {}, {}, {}};
        if (bytes_ > 0) r.window = transport->register_memory(base_, bytes_);
        r.counters = transport->register_memory(counters_, counters);
        if (flags != nullptr) r.flags = transport->register_memory(flags, kSignalFlags);
        registered_.push_back(r);
    }
}

Window::~Window() {
    for (Registered& r : registered_) {
        if (r.window.handle != nullptr) r.transport->deregister_memory(r.window);
        if (r.flags.handle != nullptr) r.transport->deregister_memory(r.flags);
        r.transport->deregister_memory(r.counters);
    }
    std::free(private_memory_);
}

PeerWindow Window::describe() const {
    PeerWindow me{reinterpret_cast<std::uint64_t>(base_),
                  bytes_,
                  disp_unit_,
                  0,
                  reinterpret_cast<std::uint64_t>(counters_),
                  0,
                  segment_.size(),
                  counter_bytes(world_of_.size()),
                  memory_in_segment_ ? 1u : 0u};
    if (dynamic_) me.size = UINT64_MAX;  // whatever is attached, at its address
    // At most one transport pins memory (verbs); shared memory needs no key.
    if (!registered_.empty()) {
        me.key = registered_.front().window.key;
        me.counters_key = registered_.front().counters.key;
        if (registered_.front().flags.handle != nullptr) {
            me.signal_flags =
                reinterpret_cast<std::uint64_t>(engine_.progress_observer()->signal_flags());
            me.signal_flags_key = registered_.front().flags.key;
        }
    }
    return me;
}

void Window::connect(std::vector<PeerWindow> peers, const std::vector<std::string>& segment_names) {
    peers_ = std::move(peers);
    for (int peer = 0; peer < size(); ++peer) {
        const auto p = static_cast<std::size_t>(peer);
        if (peer == rank_) {
            mapped_counters_[p] = counters_;
            if (memory_in_segment_) mapped_memory_[p] = static_cast<std::byte*>(base_);
            continue;
        }
        // Peers that cross-memory attach reaches share this host.
        if (!engine_.transport_to(world_of_[p]).capabilities().direct_write) continue;
        mapped_[p] = SharedSegment::open(segment_names[p]);
        auto* data = static_cast<std::byte*>(mapped_[p].data());
        mapped_counters_[p] = reinterpret_cast<std::uint64_t*>(data);
        if (peers_[p].memory_in_segment) mapped_memory_[p] = data + peers_[p].memory_offset;
    }
    {
        p2p::ProgressGuard guard(engine_.lock());
        post_service_receive();
    }
    activity_ = engine_.start(*this);
}

void Window::disconnect() {
    p2p::Request* service = nullptr;
    {
        p2p::ProgressGuard guard(engine_.lock());
        service = std::exchange(service_, nullptr);
        stopping_ = true;
        // Nothing is recorded any more (MPI_Win_free waited for every epoch).
        p2p::ProgressObserver* observer = engine_.progress_observer();
        if (observer != nullptr && awaited_.peers() != 0)
            observer->signals_awaited(std::exchange(awaited_, {}), {});
    }
    if (service != nullptr) {
        engine_.cancel(service);
        engine_.wait(service);
        engine_.release(service);
    }
    if (activity_ != nullptr) {
        engine_.wait(activity_);
        engine_.release(std::exchange(activity_, nullptr));
    }
}

bool Window::idle_locked() const {
    for (const auto& epoch : epochs_) {
        if (epoch->completed) continue;  // a request still holds it
        const bool empty_open_fence =
            epoch->kind == Epoch::Kind::fence && !epoch->closed && epoch->quiet();
        if (!empty_open_fence) return false;
    }
    for (int peer = 0; peer < size(); ++peer)
        if (inbox(peer, Counter::applied) < sequence_[static_cast<std::size_t>(peer)]) return false;
    return in_flight_.empty() && fire_and_forget_.empty() && outgoing_.empty() &&
           follow_up_ == nullptr;
}

// ---- counters ------------------------------------------------------------------

std::uint64_t Window::inbox(int peer, Counter counter) const {
    const std::uint64_t* word =
        &counters_[static_cast<std::size_t>(peer) * kCounters + static_cast<std::size_t>(counter)];
    // Written by the peer's NIC or process_vm_writev, not by this program.
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

std::uint64_t& Window::outbox(int peer, Counter counter) {
    return counters_[(world_of_.size() + static_cast<std::size_t>(peer)) * kCounters +
                     static_cast<std::size_t>(counter)];
}

void Window::signal(int peer, Counter counter, std::uint64_t value) {
    const std::size_t slot =
        static_cast<std::size_t>(rank_) * kCounters + static_cast<std::size_t>(counter);
    if (std::uint64_t* mapped = mapped_counters_[static_cast<std::size_t>(peer)]) {
        // Release: what this process wrote into the peer's window before
        // (a memcpy Put) is visible to whoever sees the counter.
        __atomic_store_n(&mapped[slot], value, __ATOMIC_RELEASE);
        if (counter != Counter::applied) raise_flag(peer, /*through_memory=*/true);
        return;
    }
    std::uint64_t& word = outbox(peer, counter);
    // Values only grow, so a write still in flight from this word that
    // carries the newer value says nothing the peer may not know yet.
    word = value;
    const std::uint64_t offset = slot * sizeof(std::uint64_t);
    const PeerWindow& p = peers_[static_cast<std::size_t>(peer)];
    p2p::Request* write = engine_.rdma_locked(world_of_[static_cast<std::size_t>(peer)],
                                              p2p::Engine::Direction::write, &word, sizeof word,
                                              {p.counters + offset, p.counters_key});
    fire_and_forget_.push_back(write);
    if (counter != Counter::applied) raise_flag(peer, /*through_memory=*/false);
}

// Through memory, the observer raises the flag. Otherwise an RDMA Write
// raises it, posted after the counter's on the same connection, so that it
// lands after it. Either way the peer's helper is rung if it shares the host
// (a helper serving peers on other hosts polls).
void Window::raise_flag(int peer, bool through_memory) {
    p2p::ProgressObserver* observer = engine_.progress_observer();
    if (observer == nullptr || peer == rank_) return;
    const auto p = static_cast<std::size_t>(peer);
    if (through_memory) {
        observer->ring_peer(world_of_[p], /*raise_signal=*/true);
        return;
    }
    if (peers_[p].signal_flags == 0) return;
    const auto mine = static_cast<std::uint64_t>(world_of_[static_cast<std::size_t>(rank_)]);
    std::uint64_t* one = &counters_[flag_source_index(world_of_.size())];
    p2p::Request* write = engine_.rdma_locked(
        world_of_[p], p2p::Engine::Direction::write, one, 1,
        {peers_[p].signal_flags + mine % kSignalFlags, peers_[p].signal_flags_key});
    fire_and_forget_.push_back(write);
    observer->ring_peer(world_of_[p], /*raise_signal=*/false);
}

// What a wake-up would let this process do in the background: start the
// operations recorded in an epoch. Each grant (PSCW access, lock) it misses
// for a target with operations recorded lets those go; an earlier epoch that
// is closed holds it back until every signal that epoch misses came (fences,
// the completions of an exposure, grants).
p2p::AwaitedSignals Window::awaited_signals() const {
    std::size_t last = epochs_.size();
    for (std::size_t i = 0; i < epochs_.size(); ++i)
        if (!epochs_[i]->deferred.empty()) last = i;
    p2p::AwaitedSignals awaited;
    if (last == epochs_.size()) return awaited;
    auto bit = [&](int peer) {
        const int world = world_of_[static_cast<std::size_t>(peer)];
        return peer == rank_ ? 0 : std::uint64_t{1} << (world % 64);
    };
    for (std::size_t i = 0; i <= last; ++i) {
        const Epoch& epoch = *epochs_[i];
        if (!epoch.active || epoch.completed) continue;
        if (!epoch.deferred.empty()) {
            for (const auto& op : epoch.deferred)
                if (!epoch.granted[static_cast<std::size_t>(op->member)])
                    awaited.any |= bit(op->request.target);
            continue;
        }
        // An open epoch holds no later one back (MPI lets them run together).
        if (!epoch.closed) continue;
        for (std::size_t m = 0; m < epoch.members.size(); ++m) {
            const int peer = epoch.members[m];
            bool missing = !epoch.granted[m];
            if (epoch.kind == Epoch::Kind::fence)
                missing = inbox(peer, Counter::fence) < epoch.fence_number;
            if (epoch.kind == Epoch::Kind::exposure)
                missing = inbox(peer, Counter::done) < epoch.number[m];
            if (missing) awaited.all |= bit(peer);
        }
    }
    return awaited;
}

void Window::publish_awaited() {
    p2p::ProgressObserver* observer = engine_.progress_observer();
    if (observer == nullptr) return;
    for (;;) {
        const p2p::AwaitedSignals awaited = awaited_signals();
        if (awaited == awaited_) return;
        if (!observer->signals_awaited(std::exchange(awaited_, awaited), awaited)) return;
        // A signal that came before the await was published raised a flag
        // that is reset now: look at the counters again.
        for (auto& epoch : epochs_) advance_epoch(*epoch);
        activate_ready();
    }
}

transport::RemoteKey Window::window_key(int peer, std::uint64_t offset) const {
    const PeerWindow& p = peers_[static_cast<std::size_t>(peer)];
    return {p.base + offset, p.key};
}

// ---- flush ------------------------------------------------------------------------

Window::FlushMark Window::flush_mark_locked(int target) const {
    FlushMark mark{target, {}};
    if (target >= 0)
        mark.ages.push_back(ages_[static_cast<std::size_t>(target)]);
    else
        mark.ages = ages_;
    return mark;
}

bool Window::flushed_locked(const FlushMark& mark) const {
    auto flushed = [&](int target, std::uint64_t age) {
        const auto& unfinished = unfinished_[static_cast<std::size_t>(target)];
        return unfinished.empty() || unfinished.front()->age > age;
    };
    if (mark.target >= 0) return flushed(mark.target, mark.ages.front());
    for (int t = 0; t < size(); ++t)
        if (!flushed(t, mark.ages[static_cast<std::size_t>(t)])) return false;
    return true;
}

// ---- the activity -------------------------------------------------------------------

bool Window::advance(p2p::Engine&) {
    if (stopping_) return true;
    // Target side first: a lock granted or an accumulate applied lets the
    // origin side of this very pass move on when the origin is us. Every
    // message already here is served: a receive posted again takes the next
    // one at once, and nothing would come back for it (a helper wakes the
    // rank only for a message its posted receive still waits for).
    for (bool served = true; served;) {
        served = false;
        if (service_ != nullptr && service_->complete.load(std::memory_order_acquire) &&
            follow_up_ == nullptr) {
            const p2p::Completion result = service_->result;
            engine_.release_locked(std::exchange(service_, nullptr));
            if (result.error == 0)
                serve(result.source, {service_buffer_.data(), result.bytes});
            else
                log::error("RMA: a message to this window failed (error class {})",
                           result.error);
            if (follow_up_ == nullptr) post_service_receive();
            served = true;
        }
        if (follow_up_ != nullptr && follow_up_->complete.load(std::memory_order_acquire)) {
            engine_.release_locked(std::exchange(follow_up_, nullptr));
            apply_follow_up();
            post_service_receive();
            served = true;
        }
    }
    reap_sends();

    for (std::size_t i = 0; i < in_flight_.size();) {
        if (!reap(*in_flight_[i])) {
            ++i;
            continue;
        }
        finish(*in_flight_[i]);
        in_flight_[i] = std::move(in_flight_.back());
        in_flight_.pop_back();
    }
    for (auto& epoch : epochs_) advance_epoch(*epoch);
    activate_ready();
    drop_completed_epochs();
    publish_awaited();

    polls_memory_ =
        !in_flight_.empty() || std::any_of(epochs_.begin(), epochs_.end(), [](const auto& e) {
            return !e->completed && (e->closed || !e->active || !e->deferred.empty());
        });
    return false;
}

void Window::reap_sends() {
    std::erase_if(fire_and_forget_, [&](p2p::Request* r) {
        if (!r->complete.load(std::memory_order_acquire)) return false;
        if (r->result.error != 0) log::error("RMA: a counter write or message failed");
        engine_.release_locked(r);
        return true;
    });
    std::erase_if(outgoing_, [&](Outgoing& sent) {
        if (!sent.request->complete.load(std::memory_order_acquire)) return false;
        engine_.release_locked(sent.request);
        return true;
    });
}

}  // namespace si::rma
