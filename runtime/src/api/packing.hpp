// Messages of any datatype as the engine and the collectives see them: one
// run of packed bytes (datatype.hpp). A contiguous type's run is the user's
// memory; any other is packed into, or received into, a scratch copy.
// Point-to-point rendezvous may stream where the engine can
// (Engine::streams_with, p2p/segments.hpp): a send packs after the engine
// took it, while its receiver reads, and a receive whose type's runs are
// long enough gives the engine the pieces of the user's memory instead.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "coll/collectives.hpp"
#include "datatype/datatype.hpp"
#include "p2p/request.hpp"

namespace si::api {

// Whether a message may stream (above).
enum class Streaming : bool { no, allowed };

// A type whose runs are shorter than this on average is received into a
// scratch copy and unpacked: reading into pieces pays the kernel per piece.
// On shared memory (microbench/p2p/dtype) pieces of 4 KiB lost to the copy
// by up to 10 % in 256 KiB - 4 MiB messages; from 16 KiB they won by up to
// 25 % (README, "Derived datatypes").
inline constexpr std::size_t kMinPieceBytes = std::size_t{16} * 1024;

// Where the data of `count` items of a contiguous type at `buffer` starts;
// no data: the buffer itself, which may be null.
template <typename Pointer>
Pointer message_data(Pointer buffer, std::size_t count, const datatype::Type& type) {
    return type.bytes(count) == 0 ? buffer : type.data(buffer);
}

// The bytes to send for `count` items of `type` at `buffer`. A send that
// streams names the transport to its peer (`stream_through`; null: it does
// not stream), and packs into that transport's staging memory when it has
// enough free (Transport::acquire_staging), else into a private copy. A
// contiguous type streams only for a sender that waits for the send anyway
// (streaming_to): its data is copied into the staging memory part by part
// while the receiver copies out, two plain copies at once on two cores,
// which beat one cross-memory read; without room it leaves from the user's
// memory as usual.
class Outgoing {
  public:
    Outgoing(const void* buffer, std::size_t count, const datatype::Type& type,
             transport::Transport* stream_through = nullptr);
    // The `bytes` of contiguous data at `data` of a sender that waits for the
    // send at once, streamed through `through`'s staging memory if it has
    // room (above).
    Outgoing(const void* data, std::size_t bytes, transport::Transport& through);
    ~Outgoing();
    const void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }
    // Keeps the packed copy (if any) alive until the send completes; null if
    // the data is the user's own.
    std::unique_ptr<p2p::CompletionHook> keep_until_sent();
    // A streamed message is packed only here, a part at a time, each part
    // published (CompletionHook::bytes_ready): call it right after the
    // engine took the send, before anything that may wait.
    void pack_while_sent();

    struct Packed;  // packing.cpp

  private:
    const void* data_;
    std::size_t bytes_;
    std::shared_ptr<Packed> packed_;
    std::optional<datatype::Packer> packer_;  // streamed, until packed
};

// Room to receive `count` items of `type` into `buffer`. `keep_contents`:
// the scratch copy starts as the packed buffer (a broadcast's root, a
// collective's MPI_IN_PLACE block).
class Incoming {
  public:
    Incoming(void* buffer, std::size_t count, const datatype::Type& type,
             bool keep_contents = false, Streaming streaming = Streaming::no);
    // Null for a receive in pieces.
    void* data() const { return data_; }
    std::size_t capacity() const { return capacity_; }
    bool packed() const { return packed_ != nullptr; }
    // For an engine receive: unpacks what arrived when it completes, or
    // holds the list of pieces; null if the data lands in one run of the
    // user's memory. Call at most once.
    std::unique_ptr<p2p::CompletionHook> unpack_when_received();
    // For a collective: unpacks `bytes` received bytes now.
    void unpack(std::size_t bytes) const;

  private:
    void* buffer_;
    // With the scratch copy only (a copy: the handle may be freed before
    // completion); not made otherwise, as every receive makes an Incoming.
    std::optional<datatype::Type> type_;
    void* data_;
    std::size_t capacity_;
    std::unique_ptr<std::byte[]> packed_;
    std::vector<transport::Segment> pieces_;
};

// The per-rank blocks of a vector collective's buffer (MPI_Gatherv,
// MPI_Alltoallw, ...) as the collective layer sees them. A block of a
// contiguous type is the user's memory; the others share one scratch buffer,
// packed at construction if `pack_contents` (data to send, or an
// MPI_IN_PLACE buffer that is sent and received) and unpacked by unpack().
class BlockBuffer {
  public:
    // `count` items of `type` at `displacement` bytes from the buffer.
    struct Layout {
        std::ptrdiff_t displacement;
        std::size_t count;
        const datatype::Type* type;
    };
    BlockBuffer(const void* buffer, std::span<const Layout> layout, bool pack_contents);
    coll::Blocks blocks() const { return blocks_; }
    // Copies what the packed blocks received to the user's buffer.
    void unpack() const;

  private:
    struct Packed {
        std::size_t block;
        std::byte* user;
        std::size_t count;
        datatype::Type type;  // a copy: the handle may be freed meanwhile
    };
    std::vector<coll::Block> blocks_;
    std::vector<Packed> packed_;
    std::unique_ptr<std::byte[]> scratch_;
};

}  // namespace si::api
