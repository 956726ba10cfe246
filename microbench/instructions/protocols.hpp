// The operations whose instructions op_instructions counts, each a protocol for one
// repetition that every rank runs, with rank 0 counted (the root of the rooted
// collectives). A protocol decides what the counted calls find when they start, so
// that rank 0 never waits for a peer inside a counted stretch where the operation
// allows it:
//   - point to point: the peer waits outside MPI (Handshake) while rank 0 counts,
//     and rank 0 waits outside MPI while the peer acts; a counted receive finds its
//     messages already in its queue, a counted send finds the peer's queue drained;
//   - collectives: the peers enter first; rank 0 waits until each has said it is
//     entering, then `settle` longer, then counts its call, so that what the peers
//     could send before rank 0 took part is there. Only a peer that had not run by
//     then, or that must answer rank 0's own data and lost its CPU, makes rank 0
//     poll; op_instructions reports the median over repetitions, which a minority of
//     such repetitions does not move.
// Windows of messages are posted whole but travel in chunks small enough for every
// library's shared-memory queue (this runtime's holds 32 messages per pair), each
// chunk drained before the next is sent.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "instructions/callgrind_counter.hpp"
#include "instructions/handshake.hpp"

namespace si::bench::instructions {

struct OperationInfo {
    std::string name;             // "isend_window": the metric is instructions_<name>
    std::string description;      // for --help and the README
    bool point_to_point = false;  // exactly 2 ranks
    bool sized = true;            // false: the barrier, at size 0 only
};

// Every operation, in the order they are measured.
const std::vector<OperationInfo>& all_operations();
const OperationInfo* find_operation(std::string_view name);

struct ProtocolSetup {
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0;
    int ranks = 1;
    int window = 64;  // messages per window
    int chunk = 16;   // messages in flight at once
    std::chrono::microseconds settle{200};
    Handshake* handshake = nullptr;
};

class Protocol {
  public:
    virtual ~Protocol() = default;
    // One repetition, after a Handshake barrier. With a counter (the counted
    // repetitions) rank 0 counts its stretches from counter->start() and ends paused;
    // without (warm-up) nothing is counted and nothing settles.
    virtual void run(CallgrindCounter* counter) = 0;
    // Operations per repetition: the count is divided by it (a window's messages).
    [[nodiscard]] virtual int operations() const { return 1; }
    // After the last repetition: whether this rank's buffers hold what they must.
    [[nodiscard]] virtual bool delivered() const = 0;
};

std::unique_ptr<Protocol> make_protocol(const OperationInfo& operation, const ProtocolSetup& setup,
                                        std::size_t size);

// In p2p_protocols.cpp and collective_protocols.cpp.
std::unique_ptr<Protocol> make_p2p_protocol(const std::string& name, const ProtocolSetup& setup,
                                            std::size_t size);
std::unique_ptr<Protocol> make_collective_protocol(const std::string& name,
                                                   const ProtocolSetup& setup, std::size_t size);

}  // namespace si::bench::instructions
