#include "rhs.hpp"

#include <cmath>
#include <vector>

#include "exact.hpp"

// Loops marked `#pragma GCC ivdep` touch each element of their arrays in one iteration
// only (a point, or a line of a bundle); GCC cannot prove that through this many
// pointers and would otherwise not vectorize them.

namespace si::sp {
namespace {

// Fourth-difference weights that depend on the point along the row (x direction).
struct WeightsPerPoint {
    const double* w[5];
    double operator()(int n, std::ptrdiff_t i) const { return w[n][i]; }
};

// The same weights for the whole row (y and z directions: the row is across them).
struct WeightsPerRow {
    std::array<double, 5> w;
    double operator()(int n, std::ptrdiff_t) const { return w[n]; }
};

// Adds the terms of direction kDir to component kM of rhs along one x row of interior
// points [i_begin, i_end) whose local point 0 has padded index `row`. The x pass
// starts from the forcing, the z pass ends with the multiplication by dt. The three
// passes run on a row while it is in cache, one small loop per component (few
// streams each, so the compiler keeps its pointers in registers), and every point
// receives its terms in the order of the specification: x, then y, then z.
template <int kDir, int kM, typename Weights>
void add_component_terms(const Constants& k, Cell& cell, std::ptrdiff_t row, int i_begin, int i_end,
                         const Weights weights) {
    constexpr int kAlong = 1 + kDir;  // the momentum along the direction
    const DirectionConstants& c = k.dir[kDir];
    // Along x the stride is a constant, which frees a register per stream.
    const std::ptrdiff_t s = kDir == 0 ? 1 : cell.shape.stride(kDir);
    const double c1 = k.c1, c2 = k.c2, t2 = c.t2, dssp = k.dssp;
    const double scale = kDir == 2 ? k.dt : 1.0;
    const double dt1 = c.diffusion_t1[kM];
    const double con2 = c.con2, con2_43 = c.con2 * k.con43;
    const double con3 = c.con3, con4 = c.con4, con5 = c.con5;

    const double* __restrict um = cell.u[kM].data() + row;
    const double* __restrict ua = cell.u[kAlong].data() + row;          // momentum along
    const double* __restrict u4 = cell.u[4].data() + row;               // energy
    const double* __restrict va = cell.aux[kVelX + kDir].data() + row;  // velocity along
    // Velocity of component kM (a momentum), when it is one.
    const double* __restrict vm =
        cell.aux[kM >= 1 && kM <= 3 ? kVelX + kM - 1 : kVelX].data() + row;
    const double* __restrict rho = cell.aux[kRhoInv].data() + row;
    const double* __restrict sq = cell.aux[kKinetic].data() + row;
    const double* __restrict qs = cell.aux[kKineticMass].data() + row;
    const double* __restrict base = (kDir == 0 ? cell.forcing[kM] : cell.rhs[kM]).data() + row;
    double* __restrict r = cell.rhs[kM].data() + row;

#pragma GCC ivdep
    for (std::ptrdiff_t i = i_begin; i < i_end; ++i) {
        const auto d2 = [&](const double* __restrict f) {
            return (f[i + s] - 2.0 * f[i]) + f[i - s];
        };
        double terms;
        if constexpr (kM == 0) {
            terms = dt1 * d2(um) - t2 * (ua[i + s] - ua[i - s]);
        } else if constexpr (kM == 4) {
            const double vp = va[i + s], v0 = va[i], vn = va[i - s];
            terms =
                (((dt1 * d2(u4) + con3 * d2(qs)) + con4 * ((vp * vp - 2.0 * v0 * v0) + vn * vn)) +
                 con5 *
                     ((u4[i + s] * rho[i + s] - 2.0 * u4[i] * rho[i]) + u4[i - s] * rho[i - s])) -
                t2 * ((c1 * u4[i + s] - c2 * sq[i + s]) * vp -
                      (c1 * u4[i - s] - c2 * sq[i - s]) * vn);
        } else if constexpr (kM == kAlong) {
            // The momentum along the line carries the pressure.
            const double vp = va[i + s], v0 = va[i], vn = va[i - s];
            const double transport = um[i + s] * vp - um[i - s] * vn;
            const double pressure = ((u4[i + s] - sq[i + s]) - u4[i - s]) + sq[i - s];
            terms = (dt1 * d2(um) + con2_43 * ((vp - 2.0 * v0) + vn)) -
                    t2 * (transport + pressure * c2);
        } else {
            // A momentum across the line is only transported and diffused.
            const double transport = um[i + s] * va[i + s] - um[i - s] * va[i - s];
            terms = (dt1 * d2(um) + con2 * d2(vm)) - t2 * transport;
        }
        const double d4 = weights(0, i) * um[i - 2 * s] + weights(1, i) * um[i - s] +
                          weights(2, i) * um[i] + weights(3, i) * um[i + s] +
                          weights(4, i) * um[i + 2 * s];
        r[i] = ((base[i] + terms) - dssp * d4) * scale;
    }
}

template <int kDir, typename Weights>
void add_direction_terms(const Constants& k, Cell& cell, std::ptrdiff_t row, int i_begin, int i_end,
                         const Weights& weights) {
    add_component_terms<kDir, 0>(k, cell, row, i_begin, i_end, weights);
    add_component_terms<kDir, 1>(k, cell, row, i_begin, i_end, weights);
    add_component_terms<kDir, 2>(k, cell, row, i_begin, i_end, weights);
    add_component_terms<kDir, 3>(k, cell, row, i_begin, i_end, weights);
    add_component_terms<kDir, 4>(k, cell, row, i_begin, i_end, weights);
}

}  // namespace

void compute_aux(const Constants& k, Cell& cell) {
    const PaddedShape& s = cell.shape;
    const double c1c2 = k.c1c2;
    for (int kk = -1; kk <= s.size[2]; ++kk)
        for (int j = -1; j <= s.size[1]; ++j) {
            const std::ptrdiff_t row = s.at(0, j, kk);
            const double* __restrict u0 = cell.u[0].data() + row;
            const double* __restrict u1 = cell.u[1].data() + row;
            const double* __restrict u2 = cell.u[2].data() + row;
            const double* __restrict u3 = cell.u[3].data() + row;
            const double* __restrict u4 = cell.u[4].data() + row;
            double* __restrict rho = cell.aux[kRhoInv].data() + row;
            double* __restrict vx = cell.aux[kVelX].data() + row;
            double* __restrict vy = cell.aux[kVelY].data() + row;
            double* __restrict vz = cell.aux[kVelZ].data() + row;
            double* __restrict sq = cell.aux[kKinetic].data() + row;
            double* __restrict qs = cell.aux[kKineticMass].data() + row;
            double* __restrict speed = cell.aux[kSoundSpeed].data() + row;
            double* __restrict speed_inv = cell.aux[kSoundSpeedInv].data() + row;
#pragma GCC ivdep
            for (int i = -1; i <= s.size[0]; ++i) {
                const double r = 1.0 / u0[i];
                rho[i] = r;
                vx[i] = u1[i] * r;
                vy[i] = u2[i] * r;
                vz[i] = u3[i] * r;
                const double kinetic = 0.5 * (u1[i] * u1[i] + u2[i] * u2[i] + u3[i] * u3[i]) * r;
                sq[i] = kinetic;
                qs[i] = kinetic * r;
                const double c = std::sqrt((c1c2 * r) * (u4[i] - kinetic));
                speed[i] = c;
                speed_inv[i] = 1.0 / c;
            }
        }
}

void compute_rhs(const Constants& k, Cell& cell) {
    compute_aux(k, cell);
    const CellGeometry& g = cell.geometry;
    const PaddedShape& s = cell.shape;
    const int i_begin = g.interior_begin(0), i_end = g.interior_end(0);
    // x weights per point, indexed like the padded row (local i).
    std::array<std::vector<double>, 5> wx;
    for (auto& w : wx) w.assign(s.row, 0.0);
    for (int i = i_begin; i < i_end; ++i) {
        const auto w = fourth_difference_weights(g.low[0] + i, k.grid);
        for (int n = 0; n < 5; ++n) wx[n][i + kGhost] = w[n];
    }
    WeightsPerPoint x_weights;
    for (int n = 0; n < 5; ++n) x_weights.w[n] = wx[n].data() + kGhost;

    for (int kk = g.interior_begin(2); kk < g.interior_end(2); ++kk) {
        const WeightsPerRow z_weights{fourth_difference_weights(g.low[2] + kk, k.grid)};
        for (int j = g.interior_begin(1); j < g.interior_end(1); ++j) {
            const WeightsPerRow y_weights{fourth_difference_weights(g.low[1] + j, k.grid)};
            const std::ptrdiff_t row = s.at(0, j, kk);
            add_direction_terms<0>(k, cell, row, i_begin, i_end, x_weights);
            add_direction_terms<1>(k, cell, row, i_begin, i_end, y_weights);
            add_direction_terms<2>(k, cell, row, i_begin, i_end, z_weights);
        }
    }
}

void add_rhs_squares(const Cell& cell, Norms& sums) {
    const CellGeometry& g = cell.geometry;
    for (int m = 0; m < kComponents; ++m)
        for (int kk = g.interior_begin(2); kk < g.interior_end(2); ++kk)
            for (int j = g.interior_begin(1); j < g.interior_end(1); ++j)
                for (int i = g.interior_begin(0); i < g.interior_end(0); ++i) {
                    const double r = cell.rhs[m][cell.shape.at(i, j, kk)];
                    sums[m] += r * r;
                }
}

}  // namespace si::sp
