// The target side: messages to this window, served one at a time in arrival
// order (which makes same-operation accumulates atomic per element), and the
// window's lock.
#include <cstdint>
#include <cstring>

#include "base/log.hpp"
#include "rma/window.hpp"
#include "rma/wire.hpp"

namespace si::rma {

void Window::post_service_receive() {
    if (stopping_) return;
    service_buffer_.resize(kMessageBytes);
    // Lock requests and accumulates are eager messages a computing target
    // should serve at once: SmartInterrupts wakes it for them too.
    service_ = engine_.irecv_locked(service_buffer_.data(), service_buffer_.size(), p2p::kAnySource,
                                    kMessageTag, comm(), context_, false, nullptr,
                                    /*wake_for_eager=*/true);
}

std::optional<std::uint64_t> Window::window_bytes() const {
    if (dynamic_) return std::nullopt;
    return bytes_;
}

void Window::serve(int origin, std::span<const std::byte> message) {
    if (const std::string wrong = check_message(message, window_bytes()); !wrong.empty()) {
        log::error("RMA: dropped a message from rank {} to this window: {}", origin, wrong);
        return;
    }
    MessageHeader header;
    std::memcpy(&header, message.data(), sizeof header);
    engine_.add_stat(&p2p::Stats::rma_messages_served);
    if (header.type == MessageType::lock || header.type == MessageType::unlock) {
        if (header.type == MessageType::lock)
            lock_requested(origin, static_cast<LockType>(header.lock_type));
        else
            lock_released(origin);
        signal(origin, Counter::applied, header.sequence);
        return;
    }
    if (header.data_inline) {
        const std::size_t layout = sizeof header + header.blocks * sizeof(TargetBlock);
        apply(origin, message.first(layout), message.subspan(layout));
        return;
    }
    // The data (after the layout, if that did not fit either) follows on its
    // own tag: nothing else is served until it came.
    follow_up_origin_ = origin;
    follow_up_header_.assign(message.begin(), message.end());
    follow_up_data_.resize((header.blocks_follow ? header.blocks * sizeof(TargetBlock) : 0) +
                           header.data_bytes);
    follow_up_ = engine_.irecv_locked(follow_up_data_.data(), follow_up_data_.size(), origin,
                                      data_tag(header.sequence), comm(), context_);
}

void Window::apply_follow_up() {
    MessageHeader header;
    std::memcpy(&header, follow_up_header_.data(), sizeof header);
    std::span<const std::byte> data = follow_up_data_;
    if (header.blocks_follow) {
        const std::size_t blocks_bytes = header.blocks * sizeof(TargetBlock);
        follow_up_header_.insert(follow_up_header_.end(), data.begin(),
                                 data.begin() + static_cast<std::ptrdiff_t>(blocks_bytes));
        data = data.subspan(blocks_bytes);
    }
    apply(follow_up_origin_, follow_up_header_, data);
}

namespace {

// The byte at `offset` of item i. In integers: a dynamic window's
// displacement is an address (its base is null), and the parts may pass
// outside the window before the sum lands inside it (decode_access checked).
std::byte* at(std::byte* base, const MessageHeader& header, std::uint64_t i, std::int64_t offset) {
    return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(base) +
                                        header.displacement +
                                        i * static_cast<std::uint64_t>(header.extent) +
                                        static_cast<std::uint64_t>(offset));
}

// A pair type whose value and index are apart in memory (MPI_DOUBLE_INT, and
// MPI_SHORT_INT with padding between them) is two runs per unit, while its
// operator takes whole packed pairs: each item is gathered, reduced and put back.
void apply_gathered(std::byte* base, const TargetAccess& access, std::vector<std::byte>* reply) {
    const MessageHeader& header = access.header;
    const std::byte* in = access.data.data();
    std::vector<std::byte> item_data;
    for (std::uint64_t i = 0; i < header.count; ++i) {
        item_data.clear();
        for (const TargetBlock& block : access.blocks) {
            const std::byte* from = at(base, header, i, block.offset);
            item_data.insert(item_data.end(), from, from + block.length);
        }
        if (reply != nullptr) reply->insert(reply->end(), item_data.begin(), item_data.end());
        datatype::apply(*access.op, *access.element, in, item_data.data(),
                        item_data.size() / access.element->packed);
        in += item_data.size();
        const std::byte* from = item_data.data();
        for (const TargetBlock& block : access.blocks) {
            std::memcpy(at(base, header, i, block.offset), from, block.length);
            from += block.length;
        }
    }
}

}  // namespace

void apply_access(std::byte* base, const TargetAccess& access, std::vector<std::byte>& reply) {
    const MessageHeader& header = access.header;
    const bool replying = replies(header.type);
    const datatype::Op* op = access.op;
    const datatype::Type* element = access.element;
    if (header.type == MessageType::compare_and_swap) {
        const std::size_t size = access.data.size() / 2;
        std::byte* window = at(base, header, 0, 0);
        reply.assign(window, window + size);
        if (std::memcmp(window, access.data.data(), size) == 0)
            std::memcpy(window, access.data.data() + size, size);
        return;
    }
    if (access.bytes == 0) return;  // no item has a byte (a type of size 0)
    if (op != nullptr && element != nullptr && !header.no_op && element->map &&
        element->map->size() > 1) {
        apply_gathered(base, access, replying ? &reply : nullptr);
        return;
    }
    const std::byte* in = access.data.data();
    for (std::uint64_t i = 0; i < header.count; ++i) {
        for (const TargetBlock& block : access.blocks) {
            std::byte* place = at(base, header, i, block.offset);
            if (replying) reply.insert(reply.end(), place, place + block.length);
            if (header.type == MessageType::get || header.no_op) continue;
            if (op == nullptr || element == nullptr)  // put, MPI_REPLACE
                std::memcpy(place, in, block.length);
            else
                datatype::apply(*op, *element, in, place, block.length / element->packed);
            in += block.length;
        }
    }
}

void Window::apply(int origin, std::span<const std::byte> layout,
                   std::span<const std::byte> data) {
    TargetAccess access;
    if (const std::string wrong = decode_access(layout, data, window_bytes(), access);
        !wrong.empty()) {
        // Counted as applied, so that the origin's flush does not wait forever.
        log::error("RMA: dropped an operation from rank {} on this window: {}", origin, wrong);
        signal(origin, Counter::applied, access.header.sequence);
        return;
    }
    std::vector<std::byte> reply;
    apply_access(static_cast<std::byte*>(base_), access, reply);
    if (replies(access.header.type))
        send_message(origin, reply_tag(access.header.sequence), std::move(reply));
    signal(origin, Counter::applied, access.header.sequence);
}

// ---- the lock ------------------------------------------------------------------------

namespace {

bool compatible(LockType type, int exclusive_holder, int shared_holders) {
    if (exclusive_holder >= 0) return false;
    return type == LockType::shared || shared_holders == 0;
}

}  // namespace

void Window::lock_requested(int origin, LockType type) {
    // First come, first served: a request waits behind any earlier one, so
    // that an exclusive request is not starved by a stream of shared ones.
    lock_queue_.emplace_back(origin, type);
    grant_waiting_locks();
    if (!lock_queue_.empty() && lock_queue_.back().first == origin)
        engine_.add_stat(&p2p::Stats::rma_lock_waits);
}

void Window::lock_released(int origin) {
    if (exclusive_holder_ == origin)
        exclusive_holder_ = -1;
    else if (shared_holders_ > 0)
        --shared_holders_;
    else
        log::error("RMA: rank {} released a lock it does not hold", origin);
    grant_waiting_locks();
}

void Window::grant_waiting_locks() {
    while (!lock_queue_.empty()) {
        const auto [origin, type] = lock_queue_.front();
        if (!compatible(type, exclusive_holder_, shared_holders_)) return;
        lock_queue_.pop_front();
        if (type == LockType::exclusive)
            exclusive_holder_ = origin;
        else
            ++shared_holders_;
        const auto o = static_cast<std::size_t>(origin);
        signal(origin, Counter::lock, ++locks_granted_[o]);
    }
}

}  // namespace si::rma
