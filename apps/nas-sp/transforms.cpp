#include "transforms.hpp"

// Loops marked `#pragma GCC ivdep` touch each element of their arrays in one iteration
// only (a point, or a line of a bundle); GCC cannot prove that through this many
// pointers and would otherwise not vectorize them.

namespace si::sp {
namespace {

// Interior extents of a cell and the mapping of a point to its place in rhs_x.
struct Interior {
    int ib, ie, jb, je, kb, ke;
    int nx, ny;
    explicit Interior(const CellGeometry& g)
        : ib(g.interior_begin(0)),
          ie(g.interior_end(0)),
          jb(g.interior_begin(1)),
          je(g.interior_end(1)),
          kb(g.interior_begin(2)),
          ke(g.interior_end(2)),
          nx(ie - ib),
          ny(je - jb) {}
    // rhs_x index of interior point (i, j, k): [k][i][j].
    std::ptrdiff_t transposed(int i, int j, int k) const {
        return (static_cast<std::ptrdiff_t>(k - kb) * nx + (i - ib)) * ny + (j - jb);
    }
};

// Calls body(padded index of the row, i_begin, i_end) for every interior x row.
template <typename Body>
void for_each_interior_row(const Cell& cell, Body body) {
    const CellGeometry& g = cell.geometry;
    for (int kk = g.interior_begin(2); kk < g.interior_end(2); ++kk)
        for (int j = g.interior_begin(1); j < g.interior_end(1); ++j)
            body(cell.shape.at(0, j, kk), g.interior_begin(0), g.interior_end(0));
}

}  // namespace

void txinvr(const Constants& k, Cell& cell) {
    const Interior in(cell.geometry);
    const double c2 = k.c2, bt = k.bt;
    const double* __restrict rho_inv = cell.aux[kRhoInv].data();
    const double* __restrict vx = cell.aux[kVelX].data();
    const double* __restrict vy = cell.aux[kVelY].data();
    const double* __restrict vz = cell.aux[kVelZ].data();
    const double* __restrict qs = cell.aux[kKineticMass].data();
    const double* __restrict speed = cell.aux[kSoundSpeed].data();
    const double* __restrict speed_inv = cell.aux[kSoundSpeedInv].data();
    const double* __restrict r1 = cell.rhs[0].data();
    const double* __restrict r2 = cell.rhs[1].data();
    const double* __restrict r3 = cell.rhs[2].data();
    const double* __restrict r4 = cell.rhs[3].data();
    const double* __restrict r5 = cell.rhs[4].data();
    double* __restrict x1 = cell.rhs_x[0].data();
    double* __restrict x2 = cell.rhs_x[1].data();
    double* __restrict x3 = cell.rhs_x[2].data();
    double* __restrict x4 = cell.rhs_x[3].data();
    double* __restrict x5 = cell.rhs_x[4].data();
    // One plane at a time, i inner: reads are contiguous, the transposed writes of a
    // plane stay in cache.
    for (int kk = in.kb; kk < in.ke; ++kk)
        for (int j = in.jb; j < in.je; ++j) {
            const std::ptrdiff_t row = cell.shape.at(0, j, kk);
            const std::ptrdiff_t out = in.transposed(in.ib, j, kk);
#pragma GCC ivdep
            for (int i = in.ib; i < in.ie; ++i) {
                const std::ptrdiff_t p = row + i;
                const std::ptrdiff_t o = out + static_cast<std::ptrdiff_t>(i - in.ib) * in.ny;
                const double ri = rho_inv[p], u = vx[p], v = vy[p], w = vz[p];
                const double ac2inv = speed_inv[p] * speed_inv[p];
                const double t1 =
                    c2 * ac2inv * ((((qs[p] * r1[p] - u * r2[p]) - v * r3[p]) - w * r4[p]) + r5[p]);
                const double t2 = bt * ri * (u * r1[p] - r2[p]);
                const double t3 = (bt * ri * speed[p]) * t1;
                x1[o] = r1[p] - t1;
                x2[o] = -ri * (w * r1[p] - r4[p]);
                x3[o] = ri * (v * r1[p] - r3[p]);
                x4[o] = -t2 + t3;
                x5[o] = t2 + t3;
            }
        }
}

void ninvr(const Constants& k, Cell& cell) {
    const Interior in(cell.geometry);
    const double bt = k.bt;
    const double* __restrict x1 = cell.rhs_x[0].data();
    const double* __restrict x2 = cell.rhs_x[1].data();
    const double* __restrict x3 = cell.rhs_x[2].data();
    const double* __restrict x4 = cell.rhs_x[3].data();
    const double* __restrict x5 = cell.rhs_x[4].data();
    double* __restrict r1 = cell.rhs[0].data();
    double* __restrict r2 = cell.rhs[1].data();
    double* __restrict r3 = cell.rhs[2].data();
    double* __restrict r4 = cell.rhs[3].data();
    double* __restrict r5 = cell.rhs[4].data();
    for (int kk = in.kb; kk < in.ke; ++kk)
        for (int j = in.jb; j < in.je; ++j) {
            const std::ptrdiff_t row = cell.shape.at(0, j, kk);
            const std::ptrdiff_t src = in.transposed(in.ib, j, kk);
#pragma GCC ivdep
            for (int i = in.ib; i < in.ie; ++i) {
                const std::ptrdiff_t p = row + i;
                const std::ptrdiff_t o = src + static_cast<std::ptrdiff_t>(i - in.ib) * in.ny;
                const double t1 = bt * x3[o];
                const double t2 = 0.5 * (x4[o] + x5[o]);
                r1[p] = -x2[o];
                r2[p] = x1[o];
                r3[p] = bt * (x4[o] - x5[o]);
                r4[p] = -t1 + t2;
                r5[p] = t1 + t2;
            }
        }
}

void pinvr(const Constants& k, Cell& cell) {
    const double bt = k.bt;
    for_each_interior_row(cell, [&](std::ptrdiff_t row, int ib, int ie) {
        double* __restrict r1 = cell.rhs[0].data() + row;
        double* __restrict r2 = cell.rhs[1].data() + row;
        double* __restrict r3 = cell.rhs[2].data() + row;
        double* __restrict r4 = cell.rhs[3].data() + row;
        double* __restrict r5 = cell.rhs[4].data() + row;
#pragma GCC ivdep
        for (int i = ib; i < ie; ++i) {
            const double a1 = r1[i], a2 = r2[i], a3 = r3[i], a4 = r4[i], a5 = r5[i];
            const double t1 = bt * a1;
            const double t2 = 0.5 * (a4 + a5);
            r1[i] = bt * (a4 - a5);
            r2[i] = -a3;
            r3[i] = a2;
            r4[i] = -t1 + t2;
            r5[i] = t1 + t2;
        }
    });
}

void tzetar(const Constants& k, Cell& cell) {
    const double bt = k.bt, c2iv = k.c2iv;
    for_each_interior_row(cell, [&](std::ptrdiff_t row, int ib, int ie) {
        const double* __restrict density = cell.u[0].data() + row;
        const double* __restrict vx = cell.aux[kVelX].data() + row;
        const double* __restrict vy = cell.aux[kVelY].data() + row;
        const double* __restrict vz = cell.aux[kVelZ].data() + row;
        const double* __restrict qs = cell.aux[kKineticMass].data() + row;
        const double* __restrict speed = cell.aux[kSoundSpeed].data() + row;
        const double* __restrict speed_inv = cell.aux[kSoundSpeedInv].data() + row;
        double* __restrict r1 = cell.rhs[0].data() + row;
        double* __restrict r2 = cell.rhs[1].data() + row;
        double* __restrict r3 = cell.rhs[2].data() + row;
        double* __restrict r4 = cell.rhs[3].data() + row;
        double* __restrict r5 = cell.rhs[4].data() + row;
#pragma GCC ivdep
        for (int i = ib; i < ie; ++i) {
            const double a1 = r1[i], a2 = r2[i], a3 = r3[i], a4 = r4[i], a5 = r5[i];
            const double rho = density[i], u = vx[i], v = vy[i], w = vz[i];
            const double ac2u = speed[i] * speed[i];
            const double btuz = bt * rho;
            const double t1 = (btuz * speed_inv[i]) * (a4 + a5);
            const double t2 = a3 + t1;
            const double t3 = btuz * (a4 - a5);
            r1[i] = t2;
            r2[i] = -rho * a2 + u * t2;
            r3[i] = rho * a1 + v * t2;
            r4[i] = w * t2 + t3;
            r5[i] = rho * (-u * a2 + v * a1) + qs[i] * t2 + c2iv * ac2u * t1 + w * t3;
        }
    });
}

void add_update(Cell& cell) {
    for_each_interior_row(cell, [&](std::ptrdiff_t row, int ib, int ie) {
        for (int m = 0; m < kComponents; ++m) {
            double* __restrict u = cell.u[m].data() + row;
            const double* __restrict r = cell.rhs[m].data() + row;
#pragma GCC ivdep
            for (int i = ib; i < ie; ++i) u[i] += r[i];
        }
    });
}

}  // namespace si::sp
