// The shared area of one communicator whose ranks all run on one node: what
// its blocking collectives exchange through memory instead of messages
// (node_collectives.hpp). Per rank a control word and kCells cells; a cell
// holds one contribution to a collective (an input, a block, a whole
// buffer) behind its sequence number and byte count.
//
// Layout, every part aligned to kLine (two cache lines, so that the
// adjacent-line prefetcher never pairs a line one rank writes with a line
// another rank writes):
//
//   Header | Control x n | Cell x (n * kCells), rank-major
//
// A cell's first line holds its sequence number, its byte count and the
// first kLine - 16 bytes of data, so that a small contribution travels in
// the line the reader polls.
//
// Protocol. Every collective that runs here is call number t = 1, 2, ... of
// the communicator's area, the same on every rank: MPI orders a
// communicator's collectives alike on all its ranks, and every rank decides
// alike which of them run here (node_collectives.cpp). In call t a rank may
//
//   publish   write its contribution into its cell t % kCells, then store
//             the cell's `seq` = t (release);
//   read      rank j's contribution once j's cell t % kCells shows seq == t
//             (acquire: the data before it is visible);
//   finish    store its control word `done` = t (release) once it has read
//             all it reads in call t, or, in a barrier, to say it arrived.
//
// Reuse: a rank publishes into a cell only once every rank that read the
// cell's previous contents (call u) is through with them. A reader is
// through with call u when the publisher has seen, with acquire, its
// `done` >= u, or its `seq` == v for any v > u in one of its cells: a rank
// publishes for call v only after it finished call v - 1 (its reads of u
// happen before, in program order, a store with release that the acquire
// saw). The publisher remembers the highest call it knows each rank to be
// through (known_done_), so that it reads other ranks' control words only
// when what it saw of them in the collectives' own traffic does not tell it
// (a broadcast's root, which reads nothing, looks every kCells - 1 calls).
// Since readers only wait for contributions to calls they are in and
// publishers only for ranks behind them, the rank in the earliest call can
// always go on: no deadlock.
//
// A cell holds seq == t for as long as a reader of call t may read it: its
// owner publishes into it again (call t + kCells) only after all of them are
// through, so a reader that saw seq == t reads consistent data.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

namespace si::coll {

class NodeArea {
  public:
    static constexpr std::size_t kLine = 128;
    static constexpr int kCells = 2;
    static constexpr int kMaxRanks = 16;
    // A cell's data room on n ranks: every rank's 4 KiB block of an
    // all-to-all or a scatter (n blocks in one cell), at least 16 KiB.
    static std::size_t cell_bytes_for(int ranks);
    // The size of the area of a communicator of `ranks` ranks.
    static std::size_t bytes_for(int ranks);

    // Readers of a cell: every other rank, or one.
    static constexpr int kEveryRank = -1;

    // Writes the header of a new area at `memory` (zero-filled, bytes_for()).
    static void format(void* memory, int ranks);
    // The area at `memory` as rank `rank` sees it; false if the header does
    // not describe an area of `ranks` ranks and `bytes` bytes.
    [[nodiscard]] bool attach(void* memory, std::size_t bytes, int rank, int ranks);

    int rank() const { return rank_; }
    int size() const { return ranks_; }
    std::size_t cell_bytes() const { return cell_bytes_; }

    // The number of the next call (each call takes one, in order).
    std::uint64_t begin() { return ++call_; }

    // Publishing in call t: whether this rank's cell for t is free (every
    // reader of its last use is through), then where its data goes, then
    // its byte count and readers, which makes it visible.
    [[nodiscard]] bool cell_free(std::uint64_t t) {
        const LastUse& last = last_use_[t % kCells];
        if (last.call == 0) return true;
        if (last.readers != kEveryRank) return through(last.readers, last.call);
        return all_through(last.call);
    }
    std::byte* cell_data(std::uint64_t t) const { return data_of(cell(rank_, t)); }
    void publish(std::uint64_t t, std::size_t bytes, int readers) {
        Cell& c = cell(rank_, t);
        c.bytes = bytes;
        c.seq.store(t, std::memory_order_release);
        last_use_[t % kCells] = LastUse{t, readers};
    }

    // Rank j's contribution to call t and its byte count, or null while j
    // has not published it.
    const std::byte* contribution(int j, std::uint64_t t, std::size_t& bytes) {
        Cell& c = cell(j, t);
        if (c.seq.load(std::memory_order_acquire) != t) return nullptr;
        saw_through(j, t - 1);
        bytes = c.bytes;
        return data_of(c);
    }

    // This rank has read all it reads in call t (or arrived at barrier t).
    void finish(std::uint64_t t) { control(rank_).done.store(t, std::memory_order_release); }
    // Whether rank j has finished call t (a barrier: arrived).
    [[nodiscard]] bool finished(int j, std::uint64_t t) {
        if (known_done_[static_cast<std::size_t>(j)] >= t) return true;
        const std::uint64_t done = control(j).done.load(std::memory_order_acquire);
        saw_through(j, done);
        return done >= t;
    }

  private:
    struct Header;
    struct Control {
        std::atomic<std::uint64_t> done;
    };
    struct Cell {
        std::atomic<std::uint64_t> seq;
        std::uint64_t bytes;
    };
    static constexpr std::size_t kCellHeader = 16;  // data starts here, 16-byte aligned
    static std::size_t cell_stride(int ranks);

    Control& control(int j) const {
        return *std::launder(reinterpret_cast<Control*>(controls_ + static_cast<std::size_t>(j) * kLine));
    }
    Cell& cell(int j, std::uint64_t t) const {
        const std::size_t index = static_cast<std::size_t>(j) * kCells + t % kCells;
        return *std::launder(reinterpret_cast<Cell*>(cells_ + index * stride_));
    }
    static std::byte* data_of(Cell& c) { return reinterpret_cast<std::byte*>(&c) + kCellHeader; }
    // Whether rank j is known to be through call u, looking at its control
    // word if what was seen of it so far does not tell.
    bool through(int j, std::uint64_t u) {
        if (j == rank_ || known_done_[static_cast<std::size_t>(j)] >= u) return true;
        saw_through(j, control(j).done.load(std::memory_order_acquire));
        return known_done_[static_cast<std::size_t>(j)] >= u;
    }
    bool all_through(std::uint64_t u);
    void saw_through(int j, std::uint64_t u) {
        std::uint64_t& known = known_done_[static_cast<std::size_t>(j)];
        if (known < u) known = u;
    }

    std::byte* controls_ = nullptr;
    std::byte* cells_ = nullptr;
    int rank_ = 0;
    int ranks_ = 0;
    std::size_t cell_bytes_ = 0;
    std::size_t stride_ = 0;
    std::uint64_t call_ = 0;  // the last call begun
    std::array<std::uint64_t, kMaxRanks> known_done_{};
    struct LastUse {
        std::uint64_t call = 0;
        int readers = kEveryRank;
    };
    std::array<LastUse, kCells> last_use_{};
};

}  // namespace si::coll
