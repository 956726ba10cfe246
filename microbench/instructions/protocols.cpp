#include "instructions/protocols.hpp"

#include <algorithm>

namespace si::bench::instructions {

const std::vector<OperationInfo>& all_operations() {
    static const std::vector<OperationInfo> operations = {
        {"pingpong",
         "MPI_Send, then MPI_Recv of the answer already there: one ping-pong round of one side",
         true, true},
        {"isend_window",
         "per message: MPI_Isend of a window (the receives posted, each chunk drained before "
         "the next), then MPI_Waitall over it",
         true, true},
        {"irecv_window",
         "per message: MPI_Irecv of a window before any message arrives, then MPI_Waitall per "
         "chunk once its messages are there",
         true, true},
        {"both_windows",
         "per message each way: both ranks post a window of receives and send a window; per "
         "chunk rank 0 sends, then completes the peer's chunk, already there",
         true, true},
        {"barrier", "MPI_Barrier, the peers in it first", false, false},
        {"bcast", "MPI_Bcast from rank 0, the peers in it first", false, true},
        {"reduce", "MPI_Reduce (MPI_INT, MPI_SUM) to rank 0, the peers in it first", false, true},
        {"allreduce", "MPI_Allreduce (MPI_INT, MPI_SUM) on rank 0, the peers in it first", false,
         true},
        {"gather", "MPI_Gather to rank 0, the peers in it first", false, true},
        {"scatter", "MPI_Scatter from rank 0, the peers in it first", false, true},
        {"allgather", "MPI_Allgather on rank 0, the peers in it first", false, true},
        {"alltoall", "MPI_Alltoall on rank 0, the peers in it first", false, true},
    };
    return operations;
}

const OperationInfo* find_operation(std::string_view name) {
    const auto& operations = all_operations();
    const auto found = std::find_if(operations.begin(), operations.end(),
                                    [&](const OperationInfo& op) { return op.name == name; });
    return found == operations.end() ? nullptr : &*found;
}

std::unique_ptr<Protocol> make_protocol(const OperationInfo& operation, const ProtocolSetup& setup,
                                        std::size_t size) {
    return operation.point_to_point ? make_p2p_protocol(operation.name, setup, size)
                                    : make_collective_protocol(operation.name, setup, size);
}

}  // namespace si::bench::instructions
