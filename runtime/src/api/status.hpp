// MPI_Status's count of received bytes and its cancelled flag, in MPICH's
// layout (mpi.h): the low half of the count, then the high half shifted left
// by one with the flag in the lowest bit.
#pragma once

#include <cstdint>

#include "mpi.h"

namespace si::api {

inline std::uint64_t status_count(const MPI_Status& status) {
    const auto low = static_cast<std::uint32_t>(status.count_lo);
    const auto high = static_cast<std::uint32_t>(status.count_hi_and_cancelled) >> 1;
    return std::uint64_t{high} << 32 | low;
}
inline bool status_cancelled(const MPI_Status& status) {
    return (status.count_hi_and_cancelled & 1) != 0;
}
inline void set_status(MPI_Status& status, std::uint64_t bytes, bool cancelled) {
    status.count_lo = static_cast<int>(static_cast<std::uint32_t>(bytes));
    status.count_hi_and_cancelled =
        static_cast<int>(static_cast<std::uint32_t>(bytes >> 32) << 1 | (cancelled ? 1u : 0u));
}
inline void set_status_count(MPI_Status& status, std::uint64_t bytes) {
    set_status(status, bytes, status_cancelled(status));
}
inline void set_status_cancelled(MPI_Status& status, bool cancelled) {
    set_status(status, status_count(status), cancelled);
}

}  // namespace si::api
