// A single-producer single-consumer ring of fixed-size cells in shared memory.
//
// Invariants (head and tail only grow; indices are taken modulo the cell count):
//   1. head <= tail <= head + cells.
//   2. Only the producer writes tail and the cells in [tail, head + cells);
//      only the consumer writes head and reads the cells in [head, tail).
//   3. The producer fills a cell, then stores tail + 1 with release order; the
//      consumer loads tail with acquire order before reading the cell. So a
//      published cell is always complete, as is anything else the producer
//      wrote before publishing (the transport's ICB slot).
//   4. The consumer finishes with a cell, then stores head + 1 with release
//      order; the producer loads head with acquire order before reusing it.
// Each side keeps its own copy of the other side's counter and reloads it only
// when the copy says the ring is full or empty, so the shared cache lines move
// only when they must.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace si::transport::shm {

struct alignas(64) RingControl {
    alignas(64) std::atomic<std::uint64_t> tail;
    alignas(64) std::atomic<std::uint64_t> head;
};

struct CellHeader {
    std::uint32_t bytes;  // body bytes that follow the header
    std::uint32_t reserved;
};

inline constexpr std::size_t kCellHeaderBytes = 16;  // keeps bodies 16-byte aligned
static_assert(sizeof(CellHeader) <= kCellHeaderBytes);

struct RingView {
    RingControl* control = nullptr;
    std::byte* cells = nullptr;
    std::uint32_t cell_count = 0;
    std::size_t cell_bytes = 0;  // header included

    std::byte* cell(std::uint64_t position) const {
        return cells + (position % cell_count) * cell_bytes;
    }
};

class RingProducer {
public:
    RingProducer() = default;
    explicit RingProducer(RingView view)
        : view_(view), tail_(view.control->tail.load(std::memory_order_relaxed)),
          head_(view.control->head.load(std::memory_order_acquire)) {}

    // The next free cell, or nullptr when the ring is full. Its position (for
    // the transport's per-cell side data) is returned through position.
    std::byte* reserve(std::uint64_t& position) {
        if (tail_ - head_ == view_.cell_count) {
            head_ = view_.control->head.load(std::memory_order_acquire);
            if (tail_ - head_ == view_.cell_count) return nullptr;
        }
        position = tail_;
        return view_.cell(tail_);
    }

    // Makes the reserved cell visible to the consumer.
    void publish() { view_.control->tail.store(++tail_, std::memory_order_release); }

    const RingView& view() const { return view_; }

private:
    RingView view_;
    std::uint64_t tail_ = 0;
    std::uint64_t head_ = 0;
};

class RingConsumer {
public:
    RingConsumer() = default;
    explicit RingConsumer(RingView view)
        : view_(view), next_(view.control->head.load(std::memory_order_relaxed)),
          head_(next_), tail_(next_) {}

    // The oldest published cell not yet handed out, or nullptr.
    const std::byte* next(std::uint64_t& position) {
        if (next_ == tail_) {
            tail_ = view_.control->tail.load(std::memory_order_acquire);
            if (next_ == tail_) return nullptr;
        }
        position = next_++;
        return view_.cell(position);
    }
    // Hands the cell next() returned last out again at the next call.
    void put_back() { --next_; }

    // Gives the oldest handed-out cell back to the producer. Cells are
    // released in the order next() handed them out.
    void release() { view_.control->head.store(++head_, std::memory_order_release); }

    std::uint64_t released() const { return head_; }
    const RingView& view() const { return view_; }

private:
    RingView view_;
    std::uint64_t next_ = 0;  // next position to hand out
    std::uint64_t head_ = 0;  // positions below are released
    std::uint64_t tail_ = 0;  // cached producer tail
};

}  // namespace si::transport::shm
