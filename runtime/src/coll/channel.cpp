#include "coll/channel.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace si::coll {

int check_receive(int rank, const p2p::Completion& result, std::size_t expected,
                  std::string& what) {
    if (result.error == MPI_ERR_TRUNCATE) {
        what = fmt::format("rank {} received more than the {} bytes it expected from rank {} "
                           "(counts or datatypes differ between ranks)",
                           rank, expected, result.source);
        return MPI_ERR_TRUNCATE;
    }
    if (result.error != MPI_SUCCESS) {
        what = fmt::format("a receive from rank {} failed", result.source);
        return result.error;
    }
    if (result.bytes != expected) {
        what = fmt::format("rank {} received {} bytes from rank {} where it expected {} "
                           "(counts or datatypes differ between ranks)",
                           rank, result.bytes, result.source, expected);
        return MPI_ERR_COUNT;
    }
    return MPI_SUCCESS;
}

int copy_to_self(int rank, void* to, std::size_t capacity, const void* from, std::size_t bytes,
                 std::string& what) {
    copy_bytes(to, from, std::min(capacity, bytes));
    if (bytes > capacity) {
        what = fmt::format("rank {} sends {} bytes to itself into room for {} (send and receive "
                           "counts or datatypes differ)",
                           rank, bytes, capacity);
        return MPI_ERR_TRUNCATE;
    }
    if (bytes < capacity) {
        what = fmt::format("rank {} sends {} bytes to itself where {} are expected (send and "
                           "receive counts or datatypes differ)",
                           rank, bytes, capacity);
        return MPI_ERR_COUNT;
    }
    return MPI_SUCCESS;
}

}  // namespace si::coll
