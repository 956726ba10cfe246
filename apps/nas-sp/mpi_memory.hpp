// Storage for message buffers from MPI_Alloc_mem, the memory an MPI library
// may treat specially: this runtime's ghost processes (SI_PROGRESS=ghost)
// map it and copy a message into or out of it once instead of twice. The
// buffers must be gone before MPI_Finalize.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <new>
#include <vector>

namespace si::sp {

template <typename T>
struct MpiMemory {
    using value_type = T;

    MpiMemory() = default;
    template <typename U>
    MpiMemory(const MpiMemory<U>&) {}

    T* allocate(std::size_t count) {
        void* memory = nullptr;
        if (MPI_Alloc_mem(static_cast<MPI_Aint>(count * sizeof(T)), MPI_INFO_NULL, &memory) !=
            MPI_SUCCESS)
            throw std::bad_alloc();
        return static_cast<T*>(memory);
    }
    void deallocate(T* memory, std::size_t) { MPI_Free_mem(memory); }

    template <typename U>
    bool operator==(const MpiMemory<U>&) const {
        return true;
    }
};

// A message buffer of doubles.
using MessageBuffer = std::vector<double, MpiMemory<double>>;

}  // namespace si::sp
