// The target side: messages to this window, served one at a time in arrival
// order (which makes same-operation accumulates atomic per element), and the
// window's lock.
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

void Window::serve(int origin, std::span<const std::byte> message) {
    MessageHeader header;
    if (message.size() < sizeof header) {
        log::error("RMA: a message of {} bytes from rank {} is too short", message.size(), origin);
        return;
    }
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
        apply(origin, message.first(layout), message.subspan(layout, header.data_bytes));
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

// A pair type whose value and index are apart in memory (MPI_DOUBLE_INT, and
// MPI_SHORT_INT with padding between them) is two runs per unit, while its
// operator takes whole packed pairs: each item is gathered, reduced and put back.
void apply_gathered(std::byte* window, const MessageHeader& header,
                    std::span<const TargetBlock> blocks, const datatype::Op& op,
                    const datatype::Type& element, const std::byte* in,
                    std::vector<std::byte>* reply) {
    std::vector<std::byte> item_data;
    for (std::uint64_t i = 0; i < header.count; ++i) {
        std::byte* item = window + static_cast<std::int64_t>(i) * header.extent;
        item_data.clear();
        for (const TargetBlock& block : blocks)
            item_data.insert(item_data.end(), item + block.offset,
                             item + block.offset + block.length);
        if (reply != nullptr) reply->insert(reply->end(), item_data.begin(), item_data.end());
        datatype::apply(op, element, in, item_data.data(), item_data.size() / element.packed);
        in += item_data.size();
        const std::byte* from = item_data.data();
        for (const TargetBlock& block : blocks) {
            std::memcpy(item + block.offset, from, block.length);
            from += block.length;
        }
    }
}

}  // namespace

void Window::apply(int origin, std::span<const std::byte> message,
                   std::span<const std::byte> data) {
    MessageHeader header;
    std::memcpy(&header, message.data(), sizeof header);
    std::vector<TargetBlock> blocks(header.blocks);
    std::memcpy(blocks.data(), message.data() + sizeof header, blocks.size() * sizeof(TargetBlock));

    std::byte* window = static_cast<std::byte*>(base_) + header.displacement;
    const bool replies = header.type == MessageType::get ||
                         header.type == MessageType::get_accumulate ||
                         header.type == MessageType::compare_and_swap;
    std::vector<std::byte> reply;
    const datatype::Op* op = header.op != 0 ? datatype::lookup_op(header.op) : nullptr;
    const datatype::Type* element =
        header.base != MPI_DATATYPE_NULL ? datatype::lookup(header.base) : nullptr;

    if (header.type == MessageType::compare_and_swap) {
        const std::size_t size = data.size() / 2;
        reply.assign(window, window + size);
        if (std::memcmp(window, data.data(), size) == 0)
            std::memcpy(window, data.data() + size, size);
    } else if (op != nullptr && element != nullptr && !header.no_op && element->map &&
               element->map->size() > 1) {
        apply_gathered(window, header, blocks, *op, *element, data.data(),
                       replies ? &reply : nullptr);
    } else {
        const std::byte* in = data.data();
        for (std::uint64_t i = 0; i < header.count; ++i) {
            std::byte* item = window + static_cast<std::int64_t>(i) * header.extent;
            for (const TargetBlock& block : blocks) {
                std::byte* at = item + block.offset;
                if (replies) reply.insert(reply.end(), at, at + block.length);
                if (header.type == MessageType::get || header.no_op) continue;
                if (op == nullptr || element == nullptr)  // put, MPI_REPLACE
                    std::memcpy(at, in, block.length);
                else
                    datatype::apply(*op, *element, in, at, block.length / element->packed);
                in += block.length;
            }
        }
    }
    if (replies) send_message(origin, reply_tag(header.sequence), std::move(reply));
    signal(origin, Counter::applied, header.sequence);
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
