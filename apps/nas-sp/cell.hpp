// The data of one cell.
//
// Every field that a stencil reads (the solution u, the auxiliary quantities derived
// from it) and the fields updated alongside them (rhs, forcing) share one padded shape:
// the cell's points plus two ghost layers on every side, i fastest. One index then
// serves all of them, and the neighbours of a point are at +-1, +-row and +-plane.
// u's ghost layers hold the neighbouring cells' faces after a face exchange; the
// auxiliary fields are valid on the first ghost layer (local -1 and size).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "partition.hpp"
#include "problem.hpp"

namespace si::sp {

inline constexpr int kGhost = 2;

struct PaddedShape {
    std::array<int, 3> size{};  // points of the cell in x, y, z
    std::ptrdiff_t row = 0;     // distance between neighbours in y
    std::ptrdiff_t plane = 0;   // distance between neighbours in z
    std::size_t count = 0;      // elements of one padded field

    explicit PaddedShape(const std::array<int, 3>& points)
        : size(points),
          row(points[0] + 2 * kGhost),
          plane(row * (points[1] + 2 * kGhost)),
          count(static_cast<std::size_t>(plane) * (points[2] + 2 * kGhost)) {}
    PaddedShape() = default;

    // Index of local point (i, j, k); ghost points have indices -2, -1, size, size+1.
    std::ptrdiff_t at(int i, int j, int k) const {
        return (k + kGhost) * plane + (j + kGhost) * row + (i + kGhost);
    }
    // Distance between neighbours in direction d.
    std::ptrdiff_t stride(int d) const { return d == 0 ? 1 : d == 1 ? row : plane; }
};

// Quantities derived from u at every point of a time step (section 4.1).
enum Aux : int {
    kRhoInv,  // 1 / density
    kVelX,    // velocity components
    kVelY,
    kVelZ,
    kKinetic,        // kinetic energy per volume, |V|^2 rho / 2 ("square")
    kKineticMass,    // |V|^2 / 2 ("qs")
    kSoundSpeed,     // speed of sound
    kSoundSpeedInv,  // its reciprocal
    kAuxCount
};

using Field = std::vector<double>;

struct Cell {
    CellGeometry geometry;
    PaddedShape shape;
    std::array<Field, kComponents> u;
    std::array<Field, kComponents> rhs;
    std::array<Field, kComponents> forcing;
    std::array<Field, kAuxCount> aux;
    // The x solve eliminates along i, so it keeps its right-hand sides transposed, on
    // interior points only, ordered [k][i][j]: its lines (one per j) are then
    // contiguous and the elimination vectorizes across them as in y and z.
    std::array<Field, kComponents> rhs_x;
    // Eliminated coefficients d and e of the three row sets (u, u+c, u-c) of the
    // current direction, kept from the forward sweep to the back substitution.
    std::array<Field, 6> eliminated;

    explicit Cell(const CellGeometry& g);

    int interior_points() const {
        return geometry.interior_count(0) * geometry.interior_count(1) * geometry.interior_count(2);
    }
};

}  // namespace si::sp
