// What the Fortran bindings need to turn Fortran arguments into C ones: the
// sentinels (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, ... are variables
// in common blocks, recognised by address), statuses (MPI_Fint[5] in
// Fortran, only 4-byte aligned there), attribute keys and blank-padded strings.
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

// The sentinels' common blocks, under MPICH's names and in MPICH's layout,
// so that programs compiled with MPICH's mpif.h or mpi module share them with
// the library as programs compiled with this runtime's do (mpif.h declares
// the same members in the same order). Defined here: every Fortran unit of a
// program resolves its blocks to these.
struct Private1 {  // /MPIPRIV1/
    MPI_Fint bottom;
    MPI_Fint in_place;
    MPI_Fint status_ignore[kStatusSize];
};
struct Private2 {  // /MPIPRIV2/
    MPI_Fint statuses_ignore[kStatusSize];
    MPI_Fint errcodes_ignore[1];
};
struct PrivateCharacters {  // /MPIPRIVC/
    char argvs_null[1];
    char argv_null[1];
};

}  // namespace si::fortran

extern "C" {
extern si::fortran::Private1 mpipriv1_;
extern si::fortran::Private2 mpipriv2_;
extern si::fortran::PrivateCharacters mpiprivc_;
extern MPI_Fint mpifcmb5_;  // /MPIFCMB5/ MPI_UNWEIGHTED
extern MPI_Fint mpifcmb9_;  // /MPIFCMB9/ MPI_WEIGHTS_EMPTY
}

namespace si::fortran {

// A choice buffer: MPI_BOTTOM and MPI_IN_PLACE arrive as the addresses of
// their sentinels.
inline void* buffer(const void* fortran) {
    if (fortran == &mpipriv1_.bottom) return MPI_BOTTOM;
    if (fortran == &mpipriv1_.in_place) return MPI_IN_PLACE;
    return const_cast<void*>(fortran);
}

// The weights of a distributed graph: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY.
inline int* weights(MPI_Fint* fortran) {
    if (fortran == &mpifcmb5_) return MPI_UNWEIGHTED;
    if (fortran == &mpifcmb9_) return MPI_WEIGHTS_EMPTY;
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
        : fortran_(fortran == mpipriv1_.status_ignore ? nullptr : fortran) {
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
        : fortran_(fortran == mpipriv2_.statuses_ignore || count <= 0 ? nullptr : fortran),
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
