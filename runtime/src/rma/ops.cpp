// The origin side: operations recorded in an epoch, started when it may
// transfer, and reaped when done.
#include "rma/window.hpp"
#include "rma/wire.hpp"

namespace si::rma {

namespace {

template <typename T>
void append(std::vector<std::byte>& out, const T& value) {
    const auto* bytes = reinterpret_cast<const std::byte*>(&value);
    out.insert(out.end(), bytes, bytes + sizeof value);
}

bool fetches(Window::Request::Kind kind) {
    return kind == Window::Request::Kind::get || kind == Window::Request::Kind::get_accumulate ||
           kind == Window::Request::Kind::compare_and_swap;
}

}  // namespace

std::shared_ptr<Operation> Window::issue_locked(const Request& request) {
    Epoch* epoch = access_epoch_to(request.target);
    auto op = std::make_shared<Operation>();
    op->request = request;
    // The program may free its datatypes at once: keep copies.
    if (request.origin_type) op->origin_type = *request.origin_type;
    if (request.result_type) op->result_type = *request.result_type;
    op->target_type = *request.target_type;
    op->request.origin_type = &op->origin_type;
    op->request.result_type = &op->result_type;
    op->request.target_type = &op->target_type;
    op->epoch = epoch;
    op->member = epoch->member_of[static_cast<std::size_t>(request.target)];
    const auto t = static_cast<std::size_t>(request.target);
    op->age = ++ages_[t];
    unfinished_[t].push_back(op);
    ++epoch->pending[static_cast<std::size_t>(op->member)];
    if (epoch->active && epoch->deferred.empty() &&
        epoch->granted[static_cast<std::size_t>(op->member)])
        start_transfer(op);
    else
        epoch->deferred.push_back(op);
    // The program may compute now: asynchronous progress must know what for.
    if (!epoch->deferred.empty()) publish_awaited();
    return op;
}

bool Window::copy_at_once_locked(const Request& request) {
    Epoch* epoch = access_epoch_to(request.target);
    const auto member =
        static_cast<std::size_t>(epoch->member_of[static_cast<std::size_t>(request.target)]);
    // What a progress pass would have seen by now: the closing before this
    // epoch completed (a blocking fence returns on it), the target's grant.
    if (!epoch->active) activate_ready();
    if (epoch->active && !epoch->granted[member]) advance_epoch(*epoch);
    return epoch->active && epoch->deferred.empty() && epoch->granted[member] &&
           copy_on_node(request);
}

std::uint32_t Window::next_sequence(int target) {
    return ++sequence_[static_cast<std::size_t>(target)];
}

void Window::start_transfer(std::shared_ptr<Operation> shared) {
    Operation& op = *shared;
    if (engine_.in_background_pass()) engine_.add_stat(&p2p::Stats::rma_started_in_background);
    const Request& r = op.request;
    if (copy_on_node(r)) {
        finish(op);
        return;
    }
    in_flight_.push_back(std::move(shared));
    const int world = world_of_[static_cast<std::size_t>(r.target)];
    // A dynamic window's memory has no key a pinning transport could use.
    const bool direct = op.target_type.contiguous &&
                        (r.kind == Request::Kind::put || r.kind == Request::Kind::get) &&
                        (!dynamic_ || engine_.transport_to(world).capabilities().direct_write);
    if (!direct) {
        send_to_target(op);
        return;
    }
    const std::size_t bytes = op.target_type.bytes(r.target_count);
    if (bytes == 0) return;
    const std::uint64_t offset = r.target_disp * peer(r.target).disp_unit +
                                 static_cast<std::uint64_t>(op.target_type.true_lb);
    if (r.kind == Request::Kind::put) {
        const void* data = op.origin_type.data(r.origin);
        if (!op.origin_type.contiguous) {
            op.packed.resize(bytes);
            datatype::pack(op.origin_type, r.origin, r.origin_count, op.packed.data());
            data = op.packed.data();
        }
        op.transfers.push_back(engine_.rdma_locked(world, p2p::Engine::Direction::write,
                                                   const_cast<void*>(data), bytes,
                                                   window_key(r.target, offset)));
        return;
    }
    void* into = op.result_type.data(r.result);
    if (!op.result_type.contiguous) {
        op.packed.resize(bytes);
        op.unpack_result = true;
        into = op.packed.data();
    }
    op.transfers.push_back(engine_.rdma_locked(world, p2p::Engine::Direction::read, into, bytes,
                                               window_key(r.target, offset)));
}

// A contiguous Put or Get into a member's window mapped here: a copy.
bool Window::copy_on_node(const Request& r) {
    std::byte* window = mapped_memory_[static_cast<std::size_t>(r.target)];
    if (window == nullptr || !r.target_type->contiguous ||
        (r.kind != Request::Kind::put && r.kind != Request::Kind::get))
        return false;
    const std::size_t bytes = r.target_type->bytes(r.target_count);
    std::byte* at = window + r.target_disp * peer(r.target).disp_unit +
                    static_cast<std::uint64_t>(r.target_type->true_lb);
    if (r.kind == Request::Kind::put)
        datatype::pack(*r.origin_type, r.origin, r.origin_count, at);
    else
        datatype::unpack(*r.result_type, at, bytes, r.result);
    engine_.add_stat(&p2p::Stats::rma_copies);
    engine_.add_stat(&p2p::Stats::rma_copy_bytes, bytes);
    return true;
}

// Everything the target's CPU must do: a message with the target layout and
// the data, and for the fetching kinds a receive of the reply.
void Window::send_to_target(Operation& op) {
    const Request& r = op.request;
    const datatype::Type& target = op.target_type;
    op.sequence = next_sequence(r.target);

    // By Request::Kind.
    static constexpr MessageType kMessageOf[] = {
        MessageType::put, MessageType::get, MessageType::accumulate, MessageType::get_accumulate,
        MessageType::compare_and_swap};
    MessageHeader header{};
    header.type = kMessageOf[static_cast<std::size_t>(r.kind)];
    header.op = r.op != nullptr ? r.op->handle : 0;
    header.base = target.base;
    header.sequence = op.sequence;
    header.no_op = r.no_op ? 1 : 0;
    header.displacement = r.target_disp * peer(r.target).disp_unit;
    // A contiguous target is one run, so the owner applies the operator to
    // all of it at once rather than item by item.
    datatype::Block storage;
    std::span<const datatype::Block> blocks = target.blocks(storage);
    header.count = r.target_count;
    header.extent = target.extent;
    if (target.contiguous) {
        storage = datatype::Block{target.true_lb, target.bytes(r.target_count), 1, 1};
        blocks = {&storage, 1};
        header.count = 1;
    }
    header.blocks = static_cast<std::uint32_t>(blocks.size());

    // The data: packed, or, when the origin's is one run that will not fit
    // in the message, sent straight from the program's buffer (which MPI
    // forbids it to change before the operation completes).
    std::vector<std::byte> data;
    std::span<const std::byte> origin_run;
    const bool sends_origin = r.origin != nullptr && !r.no_op && r.kind != Request::Kind::get;
    const std::size_t blocks_bytes = blocks.size() * sizeof(TargetBlock);
    header.blocks_follow = sizeof header + blocks_bytes > kMessageBytes ? 1 : 0;
    // What the first message carries of the layout.
    const std::size_t layout = sizeof header + (header.blocks_follow ? 0 : blocks_bytes);
    if (r.kind == Request::Kind::compare_and_swap) {
        const auto* compare = static_cast<const std::byte*>(r.compare);
        const auto* value = static_cast<const std::byte*>(r.origin);
        data.assign(compare, compare + target.size);
        data.insert(data.end(), value, value + target.size);
    } else if (sends_origin) {
        const std::size_t bytes = op.origin_type.bytes(r.origin_count);
        if (op.origin_type.contiguous && !header.blocks_follow && layout + bytes > kMessageBytes) {
            origin_run = {op.origin_type.data(r.origin), bytes};
        } else {
            data.resize(bytes);
            datatype::pack(op.origin_type, r.origin, r.origin_count, data.data());
        }
    }
    header.data_bytes = origin_run.empty() ? data.size() : origin_run.size();
    header.data_inline =
        !header.blocks_follow && layout + header.data_bytes <= kMessageBytes ? 1 : 0;

    std::vector<std::byte> message;
    message.reserve(layout + (header.data_inline ? data.size() : 0));
    append(message, header);
    if (header.blocks_follow) {
        std::vector<std::byte> follow;
        follow.reserve(blocks_bytes + data.size());
        for (const datatype::Block& block : blocks)
            append(follow, TargetBlock{block.offset, block.length});
        follow.insert(follow.end(), data.begin(), data.end());
        data = std::move(follow);
    } else {
        for (const datatype::Block& block : blocks)
            append(message, TargetBlock{block.offset, block.length});
    }
    if (header.data_inline) message.insert(message.end(), data.begin(), data.end());

    if (fetches(r.kind)) {
        const std::size_t bytes = target.bytes(r.target_count);
        void* into = op.result_type.data(r.result);
        if (!op.result_type.contiguous) {
            op.packed.resize(bytes);
            op.unpack_result = true;
            into = op.packed.data();
        }
        // The reply completes the operation: worth a wake-up when it is eager.
        op.transfers.push_back(engine_.irecv_locked(into, bytes, r.target, reply_tag(op.sequence),
                                                    comm(), context_, false, nullptr, true));
    }
    send_message(r.target, kMessageTag, std::move(message));
    if (header.data_inline) return;
    if (origin_run.empty())
        send_message(r.target, data_tag(op.sequence), std::move(data));
    else
        op.transfers.push_back(engine_.isend_locked(origin_run.data(), origin_run.size(), r.target,
                                                    data_tag(op.sequence), comm(), context_,
                                                    p2p::SendMode::standard));
}

void Window::send_message(int target, int tag, std::vector<std::byte> buffer) {
    Outgoing& out = outgoing_.emplace_back(Outgoing{nullptr, std::move(buffer)});
    out.request = engine_.isend_locked(out.data.data(), out.data.size(), target, tag, comm(),
                                       context_, p2p::SendMode::standard);
    // Its receive wakes for eager data (post_service_receive): a sleeping
    // helper must hear of it.
    if (p2p::ProgressObserver* observer = engine_.progress_observer())
        observer->ring_peer(world_of_[static_cast<std::size_t>(target)], /*raise_signal=*/false);
}

void Window::send_lock_message(int target, bool release, LockType type) {
    MessageHeader header{};
    header.type = release ? MessageType::unlock : MessageType::lock;
    header.lock_type = static_cast<std::uint8_t>(type);
    header.sequence = next_sequence(target);
    std::vector<std::byte> message;
    append(message, header);
    send_message(target, kMessageTag, std::move(message));
}

bool Window::reap(Operation& op) {
    for (p2p::Request* transfer : op.transfers)
        if (!transfer->complete.load(std::memory_order_acquire)) return false;
    // A message is done once the target applied it (the counter it writes
    // after each message it served).
    return op.sequence == 0 || inbox(op.request.target, Counter::applied) >= op.sequence;
}

void Window::finish(Operation& op) {
    for (p2p::Request* transfer : op.transfers) {
        if (transfer->result.error != 0 && op.error == 0) op.error = transfer->result.error;
        engine_.release_locked(transfer);
    }
    op.transfers.clear();
    const Request& r = op.request;
    if (op.unpack_result && op.error == 0)
        datatype::unpack(op.result_type, op.packed.data(), op.packed.size(), r.result);
    op.packed = {};
    op.done = true;
    if (op.error != 0 && op.epoch->error == 0) op.epoch->error = op.error;
    --op.epoch->pending[static_cast<std::size_t>(op.member)];
    auto& unfinished = unfinished_[static_cast<std::size_t>(r.target)];
    while (!unfinished.empty() && unfinished.front()->done) unfinished.pop_front();
}

}  // namespace si::rma
