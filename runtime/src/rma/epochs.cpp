// Epochs: opening, closing, serial activation, and what each kind waits for.
#include <algorithm>

#include "rma/window.hpp"

namespace si::rma {

namespace {

constexpr std::size_t kSpareEpochs = 4;

std::shared_ptr<Epoch> make_epoch(std::vector<std::shared_ptr<Epoch>>& spares, Epoch::Kind kind,
                                  const std::vector<int>& members, int window_size) {
    if (spares.empty()) return std::make_shared<Epoch>(kind, members, window_size);
    std::shared_ptr<Epoch> epoch = std::move(spares.back());
    spares.pop_back();
    epoch->reset(kind, members, window_size);
    return epoch;
}

}  // namespace

void Window::drop_completed_epochs() {
    std::erase_if(epochs_, [this](std::shared_ptr<Epoch>& e) {
        if (!e->completed || e.use_count() > 1) return false;
        if (spare_epochs_.size() < kSpareEpochs) spare_epochs_.push_back(std::move(e));
        return true;
    });
}

std::shared_ptr<Epoch> Window::open(std::shared_ptr<Epoch> epoch) {
    // A closing often completes in its own call, with no progress pass to
    // drop it: the list would grow, and every scan of it with it.
    drop_completed_epochs();
    epochs_.push_back(epoch);
    activate_ready();
    if (!epoch->active) engine_.add_stat(&p2p::Stats::rma_epochs_deferred);
    publish_awaited();
    return epoch;
}

bool may_activate_after(const Epoch& earlier, const Epoch& epoch, const Reordering& reordering) {
    if (earlier.completed) return true;
    if (!earlier.active) return false;
    // Epochs MPI lets a program hold open together (post + start, locks
    // towards several targets) run together.
    if (!earlier.closed) return true;
    // Closed, not complete: only a flag lets the later one go; a fence
    // keeps its barrier.
    if (earlier.kind == Epoch::Kind::fence || epoch.kind == Epoch::Kind::fence) return false;
    if (epoch.is_access())
        return earlier.is_access() ? reordering.access_after_access
                                   : reordering.access_after_exposure;
    return earlier.is_access() ? reordering.exposure_after_access
                               : reordering.exposure_after_exposure;
}

// Epochs activate in the order they were opened (may_activate_after): with
// no flag, one opened after a nonblocking close waits for the closed one.
void Window::activate_ready() {
    for (std::size_t i = 0; i < epochs_.size(); ++i) {
        Epoch& epoch = *epochs_[i];
        if (epoch.completed || epoch.active) continue;
        for (std::size_t j = 0; j < i; ++j)
            if (!may_activate_after(*epochs_[j], epoch, reordering_)) return;
        activate(epoch);
        advance_epoch(epoch);
    }
}

void Window::set_reordering_locked(const Reordering& reordering) {
    reordering_ = reordering;
    activate_ready();
    publish_awaited();
}

void Window::activate(Epoch& epoch) {
    epoch.active = true;
    engine_.add_stat(&p2p::Stats::rma_epochs);
    for (std::size_t m = 0; m < epoch.members.size(); ++m) {
        const int peer = epoch.members[m];
        const auto p = static_cast<std::size_t>(peer);
        switch (epoch.kind) {
            case Epoch::Kind::fence:
                // The fence that opened it completed only once every member
                // had reached it: everyone's window is open to us.
                epoch.granted[m] = 1;
                break;
            case Epoch::Kind::access:
                epoch.number[m] = ++accesses_requested_[p];
                break;
            case Epoch::Kind::exposure:
                epoch.number[m] = ++exposures_opened_[p];
                signal(peer, Counter::grant, epoch.number[m]);
                break;
            case Epoch::Kind::lock:
            case Epoch::Kind::lock_all:
                epoch.number[m] = ++locks_requested_[p];
                send_lock_message(peer, /*release=*/false, epoch.lock_type);
                break;
        }
    }
}

void Window::advance_epoch(Epoch& epoch) {
    if (!epoch.active || epoch.completed) return;
    const std::size_t n = epoch.members.size();
    // Grants: the counter a target writes reached this epoch's number.
    for (std::size_t m = 0; m < n; ++m) {
        if (epoch.granted[m]) continue;
        const int peer = epoch.members[m];
        if (epoch.kind == Epoch::Kind::access)
            epoch.granted[m] = inbox(peer, Counter::grant) >= epoch.number[m];
        else if (epoch.kind == Epoch::Kind::lock || epoch.kind == Epoch::Kind::lock_all)
            epoch.granted[m] = inbox(peer, Counter::lock) >= epoch.number[m];
    }
    // Replay what was recorded, in order, towards granted targets.
    for (auto it = epoch.deferred.begin(); it != epoch.deferred.end();) {
        if (epoch.granted[static_cast<std::size_t>((*it)->member)]) {
            std::shared_ptr<Operation> op = std::move(*it);
            it = epoch.deferred.erase(it);
            start_transfer(op);
        } else {
            ++it;
        }
    }
    if (!epoch.closed) return;

    bool all_signalled = true;
    switch (epoch.kind) {
        case Epoch::Kind::fence: {
            if (!epoch.quiet()) return;
            if (!epoch.signalled[0]) {
                // Our operations of the epoch are done everywhere: tell every
                // member, which is also the barrier of the fence.
                for (int peer = 0; peer < size(); ++peer)
                    signal(peer, Counter::fence, epoch.fence_number);
                epoch.signalled[0] = 1;
            }
            for (int peer = 0; peer < size(); ++peer)
                if (inbox(peer, Counter::fence) < epoch.fence_number) return;
            break;
        }
        case Epoch::Kind::exposure:
            if (!exposure_done(epoch)) return;
            break;
        case Epoch::Kind::access:
        case Epoch::Kind::lock:
        case Epoch::Kind::lock_all:
            for (std::size_t m = 0; m < n; ++m) {
                if (epoch.signalled[m]) continue;
                // A lock is released only once granted (the target would not
                // know which of our requests the release meant otherwise); a
                // PSCW access needs no grant to say it did nothing.
                const bool lock = epoch.kind != Epoch::Kind::access;
                if (epoch.pending[m] != 0 || (lock && !epoch.granted[m])) {
                    all_signalled = false;
                    continue;
                }
                // The operations are complete at the target now, which is
                // all an unlock promises; the release itself needs no answer
                // (MPI_Win_free waits until every message was served).
                if (lock)
                    send_lock_message(epoch.members[m], /*release=*/true, epoch.lock_type);
                else
                    signal(epoch.members[m], Counter::done, epoch.number[m]);
                epoch.signalled[m] = 1;
            }
            if (!all_signalled) return;
            break;
    }
    epoch.completed = true;
}

// ---- opening and closing -----------------------------------------------------

std::shared_ptr<Epoch> Window::fence_locked(bool last) {
    std::shared_ptr<Epoch> closing;
    for (auto& epoch : epochs_)
        if (epoch->kind == Epoch::Kind::fence && !epoch->closed) closing = epoch;
    if (closing == nullptr)
        closing = open(make_epoch(spare_epochs_, Epoch::Kind::fence, all_ranks_, size()));
    closing->closed = true;
    closing->fence_number = ++fences_;
    if (!last) open(make_epoch(spare_epochs_, Epoch::Kind::fence, all_ranks_, size()));
    advance_epoch(*closing);
    return closing;
}

void Window::start_locked(const std::vector<int>& targets) {
    open(make_epoch(spare_epochs_, Epoch::Kind::access, targets, size()));
}

void Window::post_locked(const std::vector<int>& origins) {
    open(make_epoch(spare_epochs_, Epoch::Kind::exposure, origins, size()));
}

void Window::lock_locked(int target, LockType type) {
    auto epoch = make_epoch(spare_epochs_, Epoch::Kind::lock, {target}, size());
    epoch->lock_type = type;
    open(std::move(epoch));
}

void Window::lock_all_locked() {
    open(make_epoch(spare_epochs_, Epoch::Kind::lock_all, all_ranks_, size()));
}

namespace {

template <typename Match>
std::shared_ptr<Epoch> close_first(std::vector<std::shared_ptr<Epoch>>& epochs, Match match) {
    for (auto& epoch : epochs)
        if (!epoch->closed && match(*epoch)) {
            epoch->closed = true;
            return epoch;
        }
    return nullptr;
}

}  // namespace

std::shared_ptr<Epoch> Window::complete_locked() {
    auto epoch = close_first(epochs_, [](const Epoch& e) { return e.kind == Epoch::Kind::access; });
    if (epoch) advance_epoch(*epoch);
    return epoch;
}

std::shared_ptr<Epoch> Window::wait_locked() {
    auto epoch =
        close_first(epochs_, [](const Epoch& e) { return e.kind == Epoch::Kind::exposure; });
    if (epoch) advance_epoch(*epoch);
    return epoch;
}

std::shared_ptr<Epoch> Window::unlock_locked(int target) {
    auto epoch = close_first(epochs_, [&](const Epoch& e) {
        return e.kind == Epoch::Kind::lock && e.members.front() == target;
    });
    if (epoch) advance_epoch(*epoch);
    return epoch;
}

std::shared_ptr<Epoch> Window::unlock_all_locked() {
    auto epoch =
        close_first(epochs_, [](const Epoch& e) { return e.kind == Epoch::Kind::lock_all; });
    if (epoch) advance_epoch(*epoch);
    return epoch;
}

bool Window::exposure_done(const Epoch& epoch) const {
    for (std::size_t m = 0; m < epoch.members.size(); ++m)
        if (inbox(epoch.members[m], Counter::done) < epoch.number[m]) return false;
    return true;
}

int Window::test_locked() {
    for (auto& epoch : epochs_) {
        if (epoch->kind != Epoch::Kind::exposure || epoch->closed) continue;
        if (!epoch->active || !exposure_done(*epoch)) return 0;
        epoch->closed = true;
        epoch->completed = true;
        return 1;
    }
    return -1;
}

// ---- which epoch is open --------------------------------------------------------

namespace {

bool open_of(const Epoch& e, Epoch::Kind kind) {
    return !e.closed && e.kind == kind;
}

}  // namespace

bool Window::exposure_open() const {
    return std::any_of(epochs_.begin(), epochs_.end(),
                       [](const auto& e) { return open_of(*e, Epoch::Kind::exposure); });
}

bool Window::access_open_to(int target) const {
    return access_epoch_to(target) != nullptr;
}

bool Window::lock_open_to(int target) const {
    return std::any_of(epochs_.begin(), epochs_.end(), [&](const auto& e) {
        return open_of(*e, Epoch::Kind::lock) && e->members.front() == target;
    });
}

bool Window::lock_all_open() const {
    return std::any_of(epochs_.begin(), epochs_.end(),
                       [](const auto& e) { return open_of(*e, Epoch::Kind::lock_all); });
}

bool Window::passive_open() const {
    return std::any_of(epochs_.begin(), epochs_.end(), [](const auto& e) {
        return open_of(*e, Epoch::Kind::lock) || open_of(*e, Epoch::Kind::lock_all);
    });
}

bool Window::pscw_access_open() const {
    return std::any_of(epochs_.begin(), epochs_.end(),
                       [](const auto& e) { return open_of(*e, Epoch::Kind::access); });
}

// A passive or PSCW epoch towards the target before a fence epoch: a program
// that left a fence epoch open (no MPI_MODE_NOSUCCEED) and then locks means
// the lock.
Epoch* Window::access_epoch_to(int target) const {
    Epoch* fence = nullptr;
    for (auto it = epochs_.rbegin(); it != epochs_.rend(); ++it) {
        Epoch& e = **it;
        if (e.closed || !e.is_access() || !e.covers(target)) continue;
        if (e.kind != Epoch::Kind::fence) return &e;
        if (fence == nullptr) fence = &e;
    }
    return fence;
}

}  // namespace si::rma
