// copy_faces: the exchange of two layers of u across every face between cells of
// different ranks, before each evaluation of the right-hand side.
//
// Per exchange every rank receives six messages and sends six: for each direction
// the faces of all its cells towards the successor rank in one message and those
// towards the predecessor in another (sections 9.4 and 9.5 of the specification).
// The receives are posted first, then the sends, then one Waitall covers all twelve.
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <vector>

#include "cell.hpp"
#include "mpi_memory.hpp"
#include "partition.hpp"

namespace si::sp {

class FaceExchange {
  public:
    // comm is used as given (the solver passes its own duplicate).
    FaceExchange(const Partition& partition, const std::vector<Cell>& cells, MPI_Comm comm);

    // Fills u's ghost layers of every cell face that has a neighbouring cell; with a
    // single rank there is nothing to exchange.
    void exchange(std::vector<Cell>& cells);

  private:
    // The two layers of a face: which cells take part, and which local layer comes
    // first in direction d.
    struct Layers {
        int d;
        int skip_coord;  // cells at this coordinate in d have no neighbour on that side
        bool from_end;   // layers counted from the cell's far end in d
        int offset;      // first layer relative to 0 (or to size when from_end)
    };
    struct Message {
        Layers layers;
        int peer = 0;
        int tag = 0;
        std::size_t offset = 0;
        std::size_t count = 0;
    };

    static std::size_t layer_doubles(const Layers& layers, const std::vector<Cell>& cells);
    static void pack(const Layers& layers, const std::vector<Cell>& cells, double* out);
    static void unpack(const Layers& layers, std::vector<Cell>& cells, const double* in);

    MPI_Comm comm_;
    bool active_ = false;
    std::array<Message, 6> send_;
    std::array<Message, 6> recv_;
    MessageBuffer send_buffer_;
    MessageBuffer recv_buffer_;
};

}  // namespace si::sp
