// A single-producer single-consumer ring of variable-size records in shared
// memory: the path of every message between two ranks of a host.
//
// A record is a 16-byte header (RecordHeader) followed by its body, padded to
// 16 bytes, so that a small message and its header share one cache line and
// the consumer finds it by polling that line alone (no separate tail word to
// miss on). A record that does not fit before the end of the ring starts at
// offset 0, after a skip header that says so.
//
// Invariants (positions are absolute byte counts that only grow; an address
// is the position modulo the capacity; records number 0, 1, 2, ...):
//   1. head <= tail <= head + capacity, where tail is the end of what the
//      producer published and head the end of what the consumer released.
//   2. Only the producer writes [tail, head + capacity); only the consumer
//      reads [head, tail).
//   3. Record k's header carries sequence_of(k), never 0. Before publishing a
//      record at position p with size s, the producer stores 0 into the
//      sequence word at p + s (the next record's header, inside the free
//      space: reserve() keeps 16 bytes beyond every record). So the word the
//      consumer polls next holds 0 or the next record's sequence, never stale
//      bytes of an older lap (which could be anything: a user's payload).
//   4. The producer writes the body, the header's other fields, then the
//      sequence with release order; the consumer loads the sequence with
//      acquire order before reading the rest. A skip header is published
//      after the record it skips to, so a consumer that follows it finds
//      that record complete.
//   5. The consumer releases records in the order it took them, storing head
//      (and the count of records taken) with release order; the producer
//      loads them with acquire order before reusing the space.
// Each side keeps its own copy of the other side's counters and reloads it
// only when its copy says the ring is full, so the control line moves only
// when it must.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace si::transport::shm {

struct alignas(64) RingControl {
    std::atomic<std::uint64_t> head;   // bytes released by the consumer
    std::atomic<std::uint64_t> taken;  // records released by the consumer
};

struct RecordHeader {
    std::atomic<std::uint32_t> sequence;  // sequence_of(record number) once published, else 0
    std::uint32_t bytes;                  // body bytes, or kSkip
    std::uint64_t tuple;                  // the message's matching tuple (p2p/tuple.hpp)
};
inline constexpr std::size_t kRecordAlign = 16;
static_assert(sizeof(RecordHeader) == kRecordAlign);
// A header whose record continues at offset 0 of the ring.
inline constexpr std::uint32_t kSkip = 0xFFFF'FFFF;

constexpr std::size_t record_bytes(std::size_t body) {
    return (sizeof(RecordHeader) + body + kRecordAlign - 1) / kRecordAlign * kRecordAlign;
}
// Never 0, which marks an unpublished header; the cycle (2^31) is far longer
// than the records a ring holds.
constexpr std::uint32_t sequence_of(std::uint64_t record) {
    return static_cast<std::uint32_t>(record) | 0x8000'0000u;
}
// The smallest ring that takes any record of `max_body` bytes wherever the
// last one ended: the unusable end of the ring, the record, the next header.
constexpr std::size_t min_ring_bytes(std::size_t max_body) {
    return 2 * record_bytes(max_body) + kRecordAlign;
}

struct RingView {
    RingControl* control = nullptr;
    std::byte* records = nullptr;
    std::size_t capacity = 0;  // bytes, a power of two

    std::size_t offset_of(std::uint64_t position) const { return position & (capacity - 1); }
    RecordHeader* header_at(std::uint64_t position) const {
        return reinterpret_cast<RecordHeader*>(records + offset_of(position));
    }
};

class RingProducer {
public:
    RingProducer() = default;
    explicit RingProducer(RingView view)
        : view_(view),
          tail_(view.control->head.load(std::memory_order_acquire)),
          head_(tail_),
          sent_(view.control->taken.load(std::memory_order_acquire)),
          taken_(sent_) {}

    // Room for a record of `body` bytes: where its body goes, or nullptr when
    // the ring has no room for it (or, with `max_records`, when that many
    // records are not taken yet). Nothing is visible until publish().
    std::byte* reserve(std::size_t body, std::uint64_t max_records = ~std::uint64_t{0}) {
        const std::size_t size = record_bytes(body);
        const std::size_t offset = view_.offset_of(tail_);
        skip_ = offset + size > view_.capacity ? view_.capacity - offset : 0;
        const std::uint64_t needed = skip_ + size + kRecordAlign;  // invariant 3
        if (tail_ + needed - head_ > view_.capacity || sent_ - taken_ >= max_records) {
            head_ = view_.control->head.load(std::memory_order_acquire);
            taken_ = view_.control->taken.load(std::memory_order_acquire);
            if (tail_ + needed - head_ > view_.capacity || sent_ - taken_ >= max_records)
                return nullptr;
        }
        size_ = size;
        return reinterpret_cast<std::byte*>(view_.header_at(tail_ + skip_) + 1);
    }

    // Makes the reserved record visible, with `bytes` of body and `tuple`.
    void publish(std::uint32_t bytes, std::uint64_t tuple) {
        const std::uint32_t sequence = sequence_of(sent_++);
        const std::uint64_t start = tail_ + skip_;
        view_.header_at(start + size_)->sequence.store(0, std::memory_order_relaxed);
        RecordHeader* header = view_.header_at(start);
        header->bytes = bytes;
        header->tuple = tuple;
        header->sequence.store(sequence, std::memory_order_release);
        if (skip_ != 0) {
            RecordHeader* skip = view_.header_at(tail_);
            skip->bytes = kSkip;
            skip->sequence.store(sequence, std::memory_order_release);
        }
        tail_ = start + size_;
    }

    // Records published and not yet released by the consumer.
    std::uint64_t records_in_flight() const {
        return sent_ - view_.control->taken.load(std::memory_order_acquire);
    }
    // Number of the next record publish() makes.
    std::uint64_t records_sent() const { return sent_; }

  private:
    RingView view_;
    std::uint64_t tail_ = 0;   // end of the published records
    std::uint64_t head_ = 0;   // cached consumer head
    std::uint64_t sent_ = 0;   // records published
    std::uint64_t taken_ = 0;  // cached count of records released
    std::size_t size_ = 0;     // of the reserved record
    std::size_t skip_ = 0;     // bytes skipped before it
};

class RingConsumer {
public:
    RingConsumer() = default;
    explicit RingConsumer(RingView view)
        : view_(view),
          next_(view.control->head.load(std::memory_order_relaxed)),
          record_(view.control->taken.load(std::memory_order_relaxed)),
          taken_(record_) {}

    // The oldest published record not yet handed out, or nullptr. `number`
    // is its record number, `end` the position release() needs.
    const RecordHeader* next(std::uint64_t& number, std::uint64_t& end) {
        const RecordHeader* header = view_.header_at(next_);
        const std::uint32_t expected = sequence_of(record_);
        if (header->sequence.load(std::memory_order_acquire) != expected) return nullptr;
        std::uint64_t start = next_;
        if (header->bytes == kSkip) {
            start += view_.capacity - view_.offset_of(next_);
            header = view_.header_at(start);  // complete already (invariant 4)
        }
        previous_ = next_;
        number = record_++;
        next_ = end = start + record_bytes(header->bytes);
        return header;
    }
    // Hands out the record next() returned last again at the next call.
    void put_back() {
        next_ = previous_;
        --record_;
    }

    // Gives the oldest record handed out back to the producer; `end` is what
    // next() gave for it.
    void release(std::uint64_t end) {
        view_.control->taken.store(++taken_, std::memory_order_release);
        view_.control->head.store(end, std::memory_order_release);
    }
    // Number of the record release() gives back next.
    std::uint64_t oldest_unreleased() const { return taken_; }

    const RingView& view() const { return view_; }

private:
    RingView view_;
    std::uint64_t next_ = 0;      // position of the next record to hand out
    std::uint64_t previous_ = 0;  // ... before the last next()
    std::uint64_t record_ = 0;    // its record number
    std::uint64_t taken_ = 0;     // records released
};

}  // namespace si::transport::shm
