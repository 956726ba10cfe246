// MPI_Win handles: a window of the rma layer, the communicator it runs on
// (a duplicate of the one it was created over, so that its traffic matches
// nothing of the program's), and what MPI_Win_get_attr reports.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/errors.hpp"
#include "base/shm_segment.hpp"
#include "mpi.h"
#include "rma/window.hpp"

namespace si::api {

struct Win {
    MPI_Win handle = MPI_WIN_NULL;
    MPI_Comm comm = MPI_COMM_NULL;  // the duplicate; holds the window's error handler
    std::unique_ptr<rma::Window> window;
    int flavor = MPI_WIN_FLAVOR_CREATE;
    std::vector<const void*> attached;  // MPI_Win_attach (dynamic windows)
    // MPI_Win_allocate_shared: the node-wide segment and each member's part.
    SharedSegment shared;
    std::vector<MPI_Aint> shared_offsets, shared_sizes;
    std::vector<int> shared_units;
    // What MPI_Win_get_attr hands out pointers to.
    void* base = nullptr;
    MPI_Aint size = 0;
    int disp_unit = 1;
    int model = MPI_WIN_UNIFIED;
    std::string name;
};

// The window a handle names; otherwise MPI_ERR_WIN. Errors found after it
// go to its error handler.
int find_window(Call& call, MPI_Win handle, Win*& out);

// Drops every window (MPI_Finalize: the program should have freed them).
void forget_windows();

}  // namespace si::api
