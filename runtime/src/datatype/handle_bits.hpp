// How an integer handle is laid out: as MPICH lays it out, which the MPICH
// ABI fixes for the predefined handles (mpi.h). Bits 30-31 say how the handle
// is stored, bits 26-29 the kind of object it names, the bits below an index.
#pragma once

#include <cstdint>

namespace si::handle {

inline constexpr int kKindShift = 26;
inline constexpr std::uint32_t kIndexMask = (std::uint32_t{1} << kKindShift) - 1;

enum class Storage : std::uint32_t {
    null = 0,
    predefined = 1,
    mpich_direct = 2,  // only in MPI_FLOAT_INT and its kin
    created = 3,       // every object made at run time
};

constexpr int make(int kind, Storage storage, std::uint32_t index) {
    return static_cast<int>(static_cast<std::uint32_t>(storage) << 30 |
                            static_cast<std::uint32_t>(kind) << kKindShift | index);
}
constexpr int kind_of(int handle) {
    return static_cast<int>(static_cast<std::uint32_t>(handle) >> kKindShift & 0xfu);
}
constexpr std::uint32_t index_of(int handle) {
    return static_cast<std::uint32_t>(handle) & kIndexMask;
}
// A predefined or created handle of `kind` (not a null one): one comparison.
constexpr bool names_object(int handle, int kind) {
    return (static_cast<std::uint32_t>(handle) >> kKindShift | 0x20u) ==
           (0x30u | static_cast<std::uint32_t>(kind));
}

}  // namespace si::handle
