#include "api/packing.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>

#include "p2p/segments.hpp"

namespace si::api {

// A send's packed copy, and for a streamed one the count of bytes packed so
// far, which its receiver follows. The send's hook and, while it packs, the
// sending call share it: whichever lets go last frees it, so a thread that
// completes the send never frees what the caller still packs into. In a
// transport's staging memory the count comes first, on a line of its own,
// so that the receiver reads both as memory.
struct Outgoing::Packed {
    static constexpr std::size_t kCountBytes = 64;

    // Without room in the staging memory: a private copy if `may_own`, else
    // no memory at all (`bytes` null).
    Packed(std::size_t bytes_packed, transport::Transport* stream_through, bool may_own)
        : size(bytes_packed) {
        if (stream_through != nullptr) staging = stream_through->acquire_staging(kCountBytes + size);
        if (staging != nullptr) {
            transport = stream_through;
            ready = new (staging) std::atomic<std::uint64_t>(0);
            bytes = staging + kCountBytes;
        } else if (may_own) {
            own = std::make_unique_for_overwrite<std::byte[]>(size);
            ready = &own_ready;
            bytes = own.get();
        }
    }
    ~Packed() {
        if (staging != nullptr) transport->release_staging(staging, kCountBytes + size);
    }
    Packed(const Packed&) = delete;
    Packed& operator=(const Packed&) = delete;

    std::size_t size;
    std::byte* bytes = nullptr;
    std::atomic<std::uint64_t>* ready = nullptr;
    std::byte* staging = nullptr;
    transport::Transport* transport = nullptr;  // whose staging
    std::unique_ptr<std::byte[]> own;
    std::atomic<std::uint64_t> own_ready{0};
    // A contiguous message copied in rather than packed (here, so that the
    // common Outgoing has no field more to set).
    const std::byte* copy_from = nullptr;
};

namespace {

class KeepPacked final : public p2p::CompletionHook {
  public:
    KeepPacked(std::shared_ptr<const Outgoing::Packed> packed, bool streamed)
        : packed_(std::move(packed)), streamed_(streamed) {}
    void completed(const p2p::Completion&) override {}
    const std::atomic<std::uint64_t>* bytes_ready() const override {
        return streamed_ ? packed_->ready : nullptr;
    }

  private:
    std::shared_ptr<const Outgoing::Packed> packed_;
    bool streamed_;
};

class UnpackReceived final : public p2p::CompletionHook {
  public:
    UnpackReceived(const datatype::Type& type, void* buffer, std::size_t count,
                   std::unique_ptr<std::byte[]> packed)
        : type_(type), buffer_(buffer), count_(count), packed_(std::move(packed)) {}
    void completed(const p2p::Completion& result) override {
        if (result.cancelled || unpacker_) return;
        datatype::unpack(type_, packed_.get(), std::min(result.bytes, type_.bytes(count_)), buffer_);
    }
    bool unpack_part(const std::byte* data, std::size_t bytes) override {
        if (!unpacker_) unpacker_.emplace(type_, buffer_, count_);
        unpacker_->next(data, bytes);
        return true;
    }

  private:
    datatype::Type type_;
    void* buffer_;
    std::size_t count_;
    std::unique_ptr<std::byte[]> packed_;
    std::optional<datatype::Unpacker> unpacker_;  // once parts came straight from a sender
};

// The list of pieces a receive in pieces keeps until it completes.
class HoldPieces final : public p2p::CompletionHook {
  public:
    explicit HoldPieces(std::vector<transport::Segment> pieces) : pieces_(std::move(pieces)) {}
    void completed(const p2p::Completion&) override {}
    std::span<const transport::Segment> segments() const override { return pieces_; }

  private:
    std::vector<transport::Segment> pieces_;
};

// The user's memory of `count` items of a non-contiguous type as pieces, or
// nothing if its runs are too short to receive into one by one.
std::vector<transport::Segment> pieces_of(const datatype::Type& type, const void* buffer,
                                          std::size_t count) {
    datatype::Block storage;
    const std::span<const datatype::Block> blocks = type.blocks(storage);
    std::vector<transport::Segment> pieces;
    if (blocks.empty() || type.packed / blocks.size() < kMinPieceBytes) return pieces;
    pieces.reserve(blocks.size() * count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::byte* item = datatype::at(buffer, static_cast<std::ptrdiff_t>(i) * type.extent);
        for (const datatype::Block& block : blocks) {
            const auto address = reinterpret_cast<std::uint64_t>(datatype::at(item, block.offset));
            if (!pieces.empty() && pieces.back().address + pieces.back().bytes == address)
                pieces.back().bytes += block.length;
            else if (block.length > 0)
                pieces.push_back(transport::Segment{address, block.length});
        }
    }
    return pieces;
}

}  // namespace

Outgoing::Outgoing(const void* buffer, std::size_t count, const datatype::Type& type,
                   transport::Transport* stream_through)
    : data_(nullptr), bytes_(type.bytes(count)) {
    if (type.contiguous) {
        data_ = message_data(buffer, count, type);
        return;
    }
    packed_ = std::make_shared<Packed>(bytes_, stream_through, true);
    data_ = packed_->bytes;
    if (stream_through == nullptr)
        datatype::pack(type, buffer, count, packed_->bytes);
    else
        packer_.emplace(type, buffer, count);
}

Outgoing::Outgoing(const void* data, std::size_t bytes, transport::Transport& through)
    : data_(data), bytes_(bytes) {
    if (bytes_ == 0) return;
    auto staged = std::make_shared<Packed>(bytes_, &through, false);
    if (staged->bytes == nullptr) return;  // no room: sent from the user's memory
    staged->copy_from = static_cast<const std::byte*>(data_);
    packed_ = std::move(staged);
    data_ = packed_->bytes;
}

Outgoing::~Outgoing() = default;

std::unique_ptr<p2p::CompletionHook> Outgoing::keep_until_sent() {
    if (!packed_) return nullptr;
    const bool streamed = packer_.has_value() || packed_->copy_from != nullptr;
    return std::make_unique<KeepPacked>(streamed ? packed_ : std::move(packed_), streamed);
}

void Outgoing::pack_while_sent() {
    if (packer_) {
        std::size_t done = 0;
        while (const std::size_t n = packer_->next(packed_->bytes + done, p2p::kStreamPart)) {
            done += n;
            packed_->ready->store(done, std::memory_order_release);
        }
        packer_.reset();
    } else if (packed_ && packed_->copy_from != nullptr) {
        for (std::size_t done = 0; done < bytes_;) {
            const std::size_t n = std::min(p2p::kStreamPart, bytes_ - done);
            std::memcpy(packed_->bytes + done, packed_->copy_from + done, n);
            done += n;
            packed_->ready->store(done, std::memory_order_release);
        }
    } else {
        return;
    }
    packed_.reset();
}

Incoming::Incoming(void* buffer, std::size_t count, const datatype::Type& type, bool keep_contents,
                   Streaming streaming)
    : buffer_(buffer), data_(nullptr), capacity_(type.bytes(count)) {
    if (type.contiguous) {
        data_ = message_data(buffer, count, type);
        return;
    }
    if (streaming == Streaming::allowed && !keep_contents) pieces_ = pieces_of(type, buffer, count);
    if (!pieces_.empty()) return;
    type_ = type;
    packed_ = std::make_unique_for_overwrite<std::byte[]>(capacity_);
    data_ = packed_.get();
    if (keep_contents) datatype::pack(type, buffer, count, packed_.get());
}

std::unique_ptr<p2p::CompletionHook> Incoming::unpack_when_received() {
    if (!pieces_.empty()) return std::make_unique<HoldPieces>(std::move(pieces_));
    if (!packed_) return nullptr;
    // Whole items: the capacity is type.bytes(count).
    const std::size_t count = type_->packed == 0 ? 0 : capacity_ / type_->packed;
    return std::make_unique<UnpackReceived>(*type_, buffer_, count, std::move(packed_));
}

void Incoming::unpack(std::size_t bytes) const {
    if (packed_) datatype::unpack(*type_, packed_.get(), std::min(bytes, capacity_), buffer_);
}

BlockBuffer::BlockBuffer(const void* buffer, std::span<const Layout> layout, bool pack_contents) {
    std::size_t scratch_bytes = 0;
    for (const Layout& l : layout)
        if (!l.type->contiguous) scratch_bytes += l.type->bytes(l.count);
    if (scratch_bytes > 0) scratch_ = std::make_unique_for_overwrite<std::byte[]>(scratch_bytes);
    std::byte* next = scratch_.get();
    blocks_.reserve(layout.size());
    for (const Layout& l : layout) {
        std::byte* user = datatype::at(buffer, l.displacement);
        const std::size_t bytes = l.type->bytes(l.count);
        if (l.type->contiguous || bytes == 0) {
            blocks_.push_back(coll::Block{l.type->data(user), bytes});
            continue;
        }
        packed_.push_back(Packed{blocks_.size(), user, l.count, *l.type});
        blocks_.push_back(coll::Block{next, bytes});
        if (pack_contents) datatype::pack(*l.type, user, l.count, next);
        next += bytes;
    }
}

void BlockBuffer::unpack() const {
    for (const Packed& p : packed_)
        datatype::unpack(p.type, blocks_[p.block].data, blocks_[p.block].bytes, p.user);
}

}  // namespace si::api
