// The multipartition decomposition of SP.
//
// P = nc^2 ranks split the grid into nc^3 cells. Each rank owns nc cells on a
// diagonal, one in every plane of cells of every direction, so that each stage of a
// pipelined line solve keeps every rank busy. For local cell c of the rank with
// i0 = rank mod nc, j0 = rank / nc the cell coordinates are
//     (i0 + c, j0 - c, c)  (mod nc),
// and the neighbour of that cell in +x, +y is local cell c of one rank, in +z local
// cell c + 1 of another (see successor()).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace si::sp {

struct CellGeometry {
    std::array<int, 3> coord{};  // cell coordinates, 0..nc-1
    std::array<int, 3> size{};   // points in each direction, boundary points included
    std::array<int, 3> low{};    // global index of local point 0
    // 1 when the cell's first (last) local point is a global boundary point.
    std::array<int, 3> first_is_boundary{};
    std::array<int, 3> last_is_boundary{};

    // Local interior range [interior_begin, interior_end) in direction d.
    int interior_begin(int d) const { return first_is_boundary[d]; }
    int interior_end(int d) const { return size[d] - last_is_boundary[d]; }
    int interior_count(int d) const { return interior_end(d) - interior_begin(d); }
};

// Empty when `ranks` can run a grid of `grid` points per direction; otherwise the
// reason, naming the rank counts that can.
std::string check_rank_count(int ranks, int grid);

class Partition {
  public:
    // ranks must have passed check_rank_count.
    Partition(int rank, int ranks, int grid);

    int cells_per_direction() const { return nc_; }
    const CellGeometry& cell(int c) const { return cells_[c]; }
    // The local cell whose coordinate in direction d is s.
    int slice(int d, int s) const { return slices_[d][s]; }
    // Ranks owning the neighbouring cells in -d and +d (cyclic; data only flow
    // between cells that have a real neighbour).
    int predecessor(int d) const { return predecessor_[d]; }
    int successor(int d) const { return successor_[d]; }

  private:
    int nc_ = 1;
    std::vector<CellGeometry> cells_;
    std::array<std::vector<int>, 3> slices_;
    std::array<int, 3> predecessor_{};
    std::array<int, 3> successor_{};
};

}  // namespace si::sp
