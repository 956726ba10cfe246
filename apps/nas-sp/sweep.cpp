#include "sweep.hpp"

#include <algorithm>

// Loops marked `#pragma GCC ivdep` touch each element of their arrays in one iteration
// only (a point, or a line of a bundle); GCC cannot prove that through this many
// pointers and would otherwise not vectorize them.

namespace si::sp {
namespace {

// Where a bundle's points are in the padded fields: row 0 of line 0, and the steps
// to the next row and the next line.
struct PaddedWalk {
    std::ptrdiff_t origin;
    std::ptrdiff_t row_step;
    std::ptrdiff_t line_step;
};

PaddedWalk padded_walk(const Cell& cell, int d, int bundle) {
    const CellGeometry& g = cell.geometry;
    const PaddedShape& s = cell.shape;
    const int ib = g.interior_begin(0), jb = g.interior_begin(1), kb = g.interior_begin(2);
    switch (d) {
        case 0:
            return {s.at(ib, jb, kb + bundle), 1, s.row};
        case 1:
            return {s.at(ib, jb, kb + bundle), s.row, 1};
        default:
            return {s.at(ib, jb + bundle, kb), s.plane, 1};
    }
}

Bundle make_bundle(Cell& cell, int d, int index) {
    const CellGeometry& g = cell.geometry;
    const SweepShape shape = sweep_shape(cell, d);
    Bundle b;
    b.lines = shape.lines;
    b.rows = shape.rows;
    b.first_row = g.low[d] + g.interior_begin(d);
    const std::ptrdiff_t points = static_cast<std::ptrdiff_t>(shape.lines) * shape.rows;
    if (d == 0) {
        // rhs_x is [k][i][j] over interior points: one bundle per k, rows along i.
        for (int m = 0; m < kComponents; ++m) b.rhs[m] = cell.rhs_x[m].data() + index * points;
        b.rhs_row = shape.lines;
    } else {
        const PaddedWalk walk = padded_walk(cell, d, index);
        for (int m = 0; m < kComponents; ++m) b.rhs[m] = cell.rhs[m].data() + walk.origin;
        b.rhs_row = walk.row_step;
    }
    for (int q = 0; q < 2 * kCoefficientSets; ++q)
        b.eliminated[q] = cell.eliminated[q].data() + index * points;
    return b;
}

// Copies the velocity along d, the largest viscous eigenvalue and the speed of sound
// at rows -1..rows of bundle `index` into `out`, lines contiguous.
LineAux gather_line_aux(const Constants& k, const Cell& cell, int d, int index, double* out) {
    const SweepShape shape = sweep_shape(cell, d);
    const PaddedWalk walk = padded_walk(cell, d, index);
    const DirectionConstants& c = k.dir[d];
    const std::ptrdiff_t L = shape.lines;
    const std::ptrdiff_t stretch = (shape.rows + 2) * L;
    double* __restrict velocity = out;
    double* __restrict viscosity = out + stretch;
    double* __restrict speed = out + 2 * stretch;
    const double* __restrict vel_src = cell.aux[kVelX + d].data();
    const double* __restrict rho_src = cell.aux[kRhoInv].data();
    const double* __restrict speed_src = cell.aux[kSoundSpeed].data();
    const double along = c.diffusion[1 + d], energy = c.diffusion[4], density = c.diffusion[0];
    const double widest = c.diffusion_max, con43 = k.con43, c1c5 = k.c1c5, c3c4 = k.c3c4;
    for (int r = -1; r <= shape.rows; ++r) {
        const std::ptrdiff_t src = walk.origin + r * walk.row_step;
        const std::ptrdiff_t dst = (r + 1) * L;
#pragma GCC ivdep
        for (std::ptrdiff_t l = 0; l < L; ++l) {
            const std::ptrdiff_t p = src + l * walk.line_step;
            const double ru1 = c3c4 * rho_src[p];
            velocity[dst + l] = vel_src[p];
            viscosity[dst + l] =
                std::max(std::max(std::max(along + con43 * ru1, energy + c1c5 * ru1), widest + ru1),
                         density);
            speed[dst + l] = speed_src[p];
        }
    }
    return {velocity, viscosity, speed};
}

MessageSlot slot(double* message, const SweepShape& shape, int bundle) {
    return {message, shape.total_lines(), static_cast<std::ptrdiff_t>(bundle) * shape.lines};
}

}  // namespace

SweepShape sweep_shape(const Cell& cell, int d) {
    const CellGeometry& g = cell.geometry;
    const int nx = g.interior_count(0), ny = g.interior_count(1), nz = g.interior_count(2);
    switch (d) {
        case 0:
            return {nz, ny, nx};
        case 1:
            return {nz, nx, ny};
        default:
            return {ny, nx, nz};
    }
}

SweepScratch::SweepScratch(const std::vector<Cell>& cells) {
    std::size_t points = 0, lines = 0, aux = 0;
    for (const Cell& cell : cells)
        for (int d = 0; d < 3; ++d) {
            const SweepShape s = sweep_shape(cell, d);
            points = std::max(points, static_cast<std::size_t>(s.total_lines()) * s.rows);
            lines = std::max(lines, static_cast<std::size_t>(s.lines));
            aux = std::max(aux, static_cast<std::size_t>(s.rows + 2) * s.lines);
        }
    rows_.assign(2 * kCoefficientSets * points, 0.0);
    pivots_.assign(lines, 0.0);
    line_aux_.assign(3 * aux, 0.0);
}

RowScratch SweepScratch::rows(const SweepShape& shape, int slot) {
    const std::ptrdiff_t points = static_cast<std::ptrdiff_t>(shape.lines) * shape.rows;
    double* base = rows_.data() + slot * 2 * kCoefficientSets * points;
    RowScratch r;
    for (int q = 0; q < 2 * kCoefficientSets; ++q) r.bc[q] = base + q * points;
    r.pivots = pivots_.data();
    return r;
}

void build_and_eliminate_cell(const Constants& k, Cell& cell, int d, SweepScratch& scratch) {
    const SweepShape shape = sweep_shape(cell, d);
    const RowScratch rows = scratch.rows(shape, 0);
    for (int b = 0; b < shape.bundles; ++b) {
        const Bundle bundle = make_bundle(cell, d, b);
        build_rows(k, d, bundle, gather_line_aux(k, cell, d, b, scratch.line_aux()), rows);
        eliminate_forward(k, bundle, rows, nullptr);
    }
}

void build_cell_rows(const Constants& k, Cell& cell, int d, SweepScratch& scratch) {
    const SweepShape shape = sweep_shape(cell, d);
    for (int b = 0; b < shape.bundles; ++b)
        build_rows(k, d, make_bundle(cell, d, b),
                   gather_line_aux(k, cell, d, b, scratch.line_aux()), scratch.rows(shape, b));
}

void eliminate_cell(const Constants& k, Cell& cell, int d, SweepScratch& scratch, double* pending) {
    const SweepShape shape = sweep_shape(cell, d);
    for (int b = 0; b < shape.bundles; ++b) {
        const MessageSlot in = slot(pending, shape, b);
        eliminate_forward(k, make_bundle(cell, d, b), scratch.rows(shape, b), &in);
    }
}

void pack_forward_cell(Cell& cell, int d, double* out) {
    const SweepShape shape = sweep_shape(cell, d);
    for (int b = 0; b < shape.bundles; ++b)
        pack_forward(make_bundle(cell, d, b), slot(out, shape, b));
}

void back_substitute_cell(Cell& cell, int d, double* solved) {
    const SweepShape shape = sweep_shape(cell, d);
    for (int b = 0; b < shape.bundles; ++b) {
        const Bundle bundle = make_bundle(cell, d, b);
        if (solved == nullptr) {
            back_substitute(bundle, nullptr);
        } else {
            const MessageSlot in = slot(solved, shape, b);
            back_substitute(bundle, &in);
        }
    }
}

void pack_backward_cell(Cell& cell, int d, double* out) {
    const SweepShape shape = sweep_shape(cell, d);
    for (int b = 0; b < shape.bundles; ++b)
        pack_backward(make_bundle(cell, d, b), slot(out, shape, b));
}

}  // namespace si::sp
