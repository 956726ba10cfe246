// What the Fortran bindings need to turn Fortran arguments into C ones: the
// sentinels (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, ... are variables
// in a common block, recognised by address), statuses (MPI_Fint[6] in
// Fortran, only 4-byte aligned there) and blank-padded strings.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "mpi.h"

namespace si::fortran {

inline constexpr int kStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);
static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0);

// The common block /SIMPI_SENTINELS/ of mpif.h, defined here so that every
// Fortran unit and the library share one copy; mpif.h declares the same
// members in the same order.
struct Sentinels {
    MPI_Fint bottom;
    MPI_Fint in_place;
    MPI_Fint status_ignore[kStatusSize];
    MPI_Fint statuses_ignore[kStatusSize];
    MPI_Fint unweighted;
    MPI_Fint weights_empty;
};

}  // namespace si::fortran

extern "C" si::fortran::Sentinels simpi_sentinels_;

namespace si::fortran {

// A choice buffer: MPI_BOTTOM and MPI_IN_PLACE arrive as the addresses of
// their sentinels.
inline void* buffer(const void* fortran) {
    if (fortran == &simpi_sentinels_.bottom) return MPI_BOTTOM;
    if (fortran == &simpi_sentinels_.in_place) return MPI_IN_PLACE;
    return const_cast<void*>(fortran);
}

// The weights of a distributed graph: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY.
inline int* weights(MPI_Fint* fortran) {
    if (fortran == &simpi_sentinels_.unweighted) return MPI_UNWEIGHTED;
    if (fortran == &simpi_sentinels_.weights_empty) return MPI_WEIGHTS_EMPTY;
    return fortran;
}
inline const int* weights(const MPI_Fint* fortran) {
    return weights(const_cast<MPI_Fint*>(fortran));
}

// One status argument, copied in on construction and out on destruction
// (the Fortran array may be misaligned for the C struct's long long).
class StatusArg {
  public:
    explicit StatusArg(MPI_Fint* fortran)
        : fortran_(fortran == simpi_sentinels_.status_ignore ? nullptr : fortran) {
        if (fortran_ != nullptr) std::memcpy(&status_, fortran_, sizeof status_);
    }
    explicit StatusArg(const MPI_Fint* fortran) : StatusArg(const_cast<MPI_Fint*>(fortran)) {}
    ~StatusArg() {
        if (fortran_ != nullptr) std::memcpy(fortran_, &status_, sizeof status_);
    }
    StatusArg(const StatusArg&) = delete;
    StatusArg& operator=(const StatusArg&) = delete;

    MPI_Status* get() { return fortran_ == nullptr ? MPI_STATUS_IGNORE : &status_; }

  private:
    MPI_Fint* fortran_;
    MPI_Status status_{};
};

// An array of `count` statuses, as StatusArg.
class StatusArray {
  public:
    StatusArray(MPI_Fint* fortran, int count)
        : fortran_(fortran == simpi_sentinels_.statuses_ignore || count <= 0 ? nullptr : fortran),
          statuses_(fortran_ == nullptr ? 0 : static_cast<std::size_t>(count)) {}
    ~StatusArray() {
        if (fortran_ != nullptr)
            std::memcpy(fortran_, statuses_.data(), statuses_.size() * sizeof(MPI_Status));
    }
    StatusArray(const StatusArray&) = delete;
    StatusArray& operator=(const StatusArray&) = delete;

    MPI_Status* get() { return fortran_ == nullptr ? MPI_STATUSES_IGNORE : statuses_.data(); }

  private:
    MPI_Fint* fortran_;
    std::vector<MPI_Status> statuses_;
};

// A Fortran CHARACTER argument: its length comes as a hidden argument and
// trailing blanks are not part of the value.
inline std::string string_in(const char* fortran, std::size_t length) {
    while (length > 0 && fortran[length - 1] == ' ') --length;
    return std::string(fortran, length);
}

// An info key or value: MPI strips leading blanks too (MPI-3.1 section 9).
inline std::string info_string_in(const char* fortran, std::size_t length) {
    std::size_t start = 0;
    while (start < length && fortran[start] == ' ') ++start;
    return string_in(fortran + start, length - start);
}

// Copies a C string into a CHARACTER variable, blank-padded (cut if longer).
inline void string_out(const char* c, char* fortran, std::size_t length) {
    const std::size_t n = std::min(std::strlen(c), length);
    // Blank-padded, as Fortran wants, not NUL-terminated.
    std::memcpy(fortran, c, n);  // NOLINT(bugprone-not-null-terminated-result)
    std::memset(fortran + n, ' ', length - n);
}

}  // namespace si::fortran
