// The collectives the benchmark measures, each in its nonblocking and its blocking
// form over MPI_COMM_WORLD, with the buffers one call needs and the check of what it
// delivered. Rooted collectives use root 0. A size is the block one rank contributes
// (or receives): MPI_BYTE, except for the reductions, which add MPI_INTs
// (size / 4 of them) with MPI_SUM.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/buffer.hpp"

namespace si::bench::coll {

enum class Collective {
    ibarrier,
    ibcast,
    igather,
    iscatter,
    iallgather,
    ialltoall,
    ireduce,
    iallreduce
};

// Every collective, in the order the benchmark measures them by default.
const std::vector<Collective>& all_collectives();

// "ibcast"; the blocking form's MPI name is blocking_name ("MPI_Bcast").
std::string_view name_of(Collective collective);
std::string_view blocking_name_of(Collective collective);
std::optional<Collective> parse_collective(std::string_view name);

// A barrier moves no data: it is measured once, at size 0.
bool moves_data(Collective collective);
// Reductions add MPI_INTs: their sizes must be positive multiples of 4.
bool is_reduction(Collective collective);

// The blocking form of one collective with its arguments worked out, so that calling
// it runs the MPI call and a jump (op_instructions counts exactly that). Root 0; for
// the broadcast `send` is the buffer of this rank (the root's input, another's output).
struct BlockingCall {
    Collective collective = Collective::ibarrier;
    void* send = nullptr;
    void* recv = nullptr;
    int count = 0;
    MPI_Datatype type = MPI_BYTE;
    MPI_Comm comm = MPI_COMM_NULL;

    void operator()() const {
        switch (collective) {
            case Collective::ibarrier:
                MPI_Barrier(comm);
                break;
            case Collective::ibcast:
                MPI_Bcast(send, count, type, 0, comm);
                break;
            case Collective::igather:
                MPI_Gather(send, count, type, recv, count, type, 0, comm);
                break;
            case Collective::iscatter:
                MPI_Scatter(send, count, type, recv, count, type, 0, comm);
                break;
            case Collective::iallgather:
                MPI_Allgather(send, count, type, recv, count, type, comm);
                break;
            case Collective::ialltoall:
                MPI_Alltoall(send, count, type, recv, count, type, comm);
                break;
            case Collective::ireduce:
                MPI_Reduce(send, recv, count, type, MPI_SUM, 0, comm);
                break;
            case Collective::iallreduce:
                MPI_Allreduce(send, recv, count, type, MPI_SUM, comm);
                break;
        }
    }
};

class CollectiveCall {
  public:
    // Buffers for blocks of up to `max_block` bytes from and to every rank of `comm`.
    CollectiveCall(Collective collective, MPI_Comm comm, std::size_t max_block);

    [[nodiscard]] Collective collective() const { return collective_; }

    // Before a size: inputs get their pattern (different per size, sender and
    // destination), outputs are cleared.
    void prepare(std::size_t block);
    // Clears the outputs only, so that a later check sees what one call delivered.
    void clear_outputs();

    // The nonblocking form, to be completed by MPI_Wait on `request`.
    void start(MPI_Request* request);
    // The blocking form.
    void run_blocking() { blocking_call()(); }
    // The same with its arguments worked out, for the size prepare() set.
    [[nodiscard]] BlockingCall blocking_call();

    // Whether this rank's outputs hold what the last completed call had to deliver
    // (true on a rank that receives nothing, such as a non-root of a gather).
    [[nodiscard]] bool outputs_hold() const;

  private:
    [[nodiscard]] int count() const;  // elements per block
    [[nodiscard]] MPI_Datatype type() const;
    [[nodiscard]] std::span<std::byte> send_block(int slot);
    [[nodiscard]] std::span<std::byte> recv_block(int slot);
    [[nodiscard]] std::span<const std::byte> recv_block(int slot) const;
    [[nodiscard]] std::uint64_t seed(int from, int to) const;
    void fill_reduction_input();
    [[nodiscard]] bool reduction_holds() const;

    Collective collective_;
    MPI_Comm comm_;
    int rank_ = 0;
    int ranks_ = 1;
    std::size_t block_ = 0;
    // One block per rank each way, whatever the collective: a gather's root and an
    // all-to-all need that many, and a few MiB per rank is cheap next to clarity.
    Buffer send_;
    Buffer recv_;
};

}  // namespace si::bench::coll
