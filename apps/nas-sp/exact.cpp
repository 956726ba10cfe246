#include "exact.hpp"

#include <algorithm>

namespace si::sp {
namespace {

// The exact solution and the quantities the forcing needs at one point of a line in
// direction d (section 3.3).
struct LinePoint {
    State ue;    // exact solution
    State buf;   // buf[0] = |V|^2, buf[1..4] = u, v, w, e (per unit mass)
    double cuf;  // square of the velocity along the line
    double q;    // kinetic energy per volume
};

LinePoint line_point(const Constants& k, const std::array<int, 3>& global, int d) {
    const double h = k.spacing;
    LinePoint p;
    p.ue = exact_solution(k, global[0] * h, global[1] * h, global[2] * h);
    const double inverse_density = 1.0 / p.ue[0];
    for (int m = 1; m < kComponents; ++m) p.buf[m] = inverse_density * p.ue[m];
    const int along = 1 + d;
    const int across1 = d == 0 ? 2 : 1;
    const int across2 = d == 2 ? 2 : 3;
    p.cuf = p.buf[along] * p.buf[along];
    p.buf[0] = p.cuf + p.buf[across1] * p.buf[across1] + p.buf[across2] * p.buf[across2];
    p.q = 0.5 * (p.buf[1] * p.ue[1] + p.buf[2] * p.ue[2] + p.buf[3] * p.ue[3]);
    return p;
}

// Adds the terms of direction d at global position g to F; p holds the line points
// g-2 .. g+2 (the ones outside the domain are never weighted).
void add_direction_terms(const Constants& k, int d, int g, const std::array<LinePoint, 5>& p,
                         State& F) {
    const DirectionConstants& c = k.dir[d];
    const int along = 1 + d;
    const LinePoint& plus = p[3];
    const LinePoint& here = p[2];
    const LinePoint& minus = p[1];
    const auto second_difference = [&](auto value) {
        return (value(plus) - 2.0 * value(here)) + value(minus);
    };
    const auto ue = [](int m) { return [m](const LinePoint& x) { return x.ue[m]; }; };
    const auto buf = [](int m) { return [m](const LinePoint& x) { return x.buf[m]; }; };

    F[0] = (F[0] - c.t2 * (plus.ue[along] - minus.ue[along])) +
           c.diffusion_t1[0] * second_difference(ue(0));
    for (int m = 1; m <= 3; ++m) {
        double flux_difference;
        double viscous;
        if (m == along) {
            const auto flux = [&](const LinePoint& x) {
                return x.ue[m] * x.buf[along] + k.c2 * (x.ue[4] - x.q);
            };
            flux_difference = flux(plus) - flux(minus);
            viscous = c.con1;
        } else {
            flux_difference = plus.ue[m] * plus.buf[along] - minus.ue[m] * minus.buf[along];
            viscous = c.con2;
        }
        F[m] = ((F[m] - c.t2 * flux_difference) + viscous * second_difference(buf(m))) +
               c.diffusion_t1[m] * second_difference(ue(m));
    }
    const auto energy_flux = [&](const LinePoint& x) {
        return x.buf[along] * (k.c1 * x.ue[4] - k.c2 * x.q);
    };
    F[4] = ((((F[4] - c.t2 * (energy_flux(plus) - energy_flux(minus))) +
              0.5 * c.con3 * second_difference(buf(0))) +
             c.con4 * second_difference([](const LinePoint& x) { return x.cuf; })) +
            c.con5 * second_difference(buf(4))) +
           c.diffusion_t1[4] * second_difference(ue(4));

    const auto w = fourth_difference_weights(g, k.grid);
    for (int m = 0; m < kComponents; ++m) {
        const double d4 = w[0] * p[0].ue[m] + w[1] * p[1].ue[m] + w[2] * p[2].ue[m] +
                          w[3] * p[3].ue[m] + w[4] * p[4].ue[m];
        F[m] -= k.dssp * d4;
    }
}

}  // namespace

State exact_solution(const Constants& k, double xi, double eta, double zeta) {
    State e;
    for (int m = 0; m < kComponents; ++m) {
        const auto& c = k.ce[m];
        e[m] = c[0] + xi * (c[1] + xi * (c[4] + xi * (c[7] + xi * c[10]))) +
               eta * (c[2] + eta * (c[5] + eta * (c[8] + eta * c[11]))) +
               zeta * (c[3] + zeta * (c[6] + zeta * (c[9] + zeta * c[12])));
    }
    return e;
}

void initialize_solution(const Constants& k, Cell& cell) {
    const CellGeometry& g = cell.geometry;
    const PaddedShape& s = cell.shape;
    const double h = k.spacing;
    // Ghost points that no exchange fills keep a harmless state: the auxiliary
    // quantities are evaluated there (density 1, energy 1, at rest).
    constexpr State kDummy = {1.0, 0.0, 0.0, 0.0, 1.0};
    for (int m = 0; m < kComponents; ++m) std::fill(cell.u[m].begin(), cell.u[m].end(), kDummy[m]);
    const auto store = [&](int i, int j, int k_, const State& value) {
        const std::ptrdiff_t at = s.at(i, j, k_);
        for (int m = 0; m < kComponents; ++m) cell.u[m][at] = value[m];
    };

    for (int kk = 0; kk < g.size[2]; ++kk) {
        const double zeta = (g.low[2] + kk) * h;
        for (int j = 0; j < g.size[1]; ++j) {
            const double eta = (g.low[1] + j) * h;
            for (int i = 0; i < g.size[0]; ++i) {
                const double xi = (g.low[0] + i) * h;
                const State x0 = exact_solution(k, 0.0, eta, zeta);
                const State x1 = exact_solution(k, 1.0, eta, zeta);
                const State y0 = exact_solution(k, xi, 0.0, zeta);
                const State y1 = exact_solution(k, xi, 1.0, zeta);
                const State z0 = exact_solution(k, xi, eta, 0.0);
                const State z1 = exact_solution(k, xi, eta, 1.0);
                State value;
                for (int m = 0; m < kComponents; ++m) {
                    const double px = xi * x1[m] + (1.0 - xi) * x0[m];
                    const double py = eta * y1[m] + (1.0 - eta) * y0[m];
                    const double pz = zeta * z1[m] + (1.0 - zeta) * z0[m];
                    value[m] = px + py + pz - px * py - px * pz - py * pz + px * py * pz;
                }
                store(i, j, kk, value);
            }
        }
    }

    // Global boundary faces take the exact solution, in the order west, east, south,
    // north, bottom, top (later faces win on shared edges).
    for (int d = 0; d < 3; ++d) {
        for (int side = 0; side < 2; ++side) {
            const bool on_boundary = side == 0 ? g.first_is_boundary[d] : g.last_is_boundary[d];
            if (!on_boundary) continue;
            const int face = side == 0 ? 0 : g.size[d] - 1;
            std::array<int, 3> lo{0, 0, 0};
            std::array<int, 3> hi = g.size;
            lo[d] = face;
            hi[d] = face + 1;
            for (int kk = lo[2]; kk < hi[2]; ++kk)
                for (int j = lo[1]; j < hi[1]; ++j)
                    for (int i = lo[0]; i < hi[0]; ++i) {
                        std::array<double, 3> x = {(g.low[0] + i) * h, (g.low[1] + j) * h,
                                                   (g.low[2] + kk) * h};
                        x[d] = side == 0 ? 0.0 : 1.0;
                        store(i, j, kk, exact_solution(k, x[0], x[1], x[2]));
                    }
        }
    }
}

void compute_forcing(const Constants& k, Cell& cell) {
    const CellGeometry& g = cell.geometry;
    const PaddedShape& s = cell.shape;
    for (Field& f : cell.forcing) std::fill(f.begin(), f.end(), 0.0);
    for (int kk = g.interior_begin(2); kk < g.interior_end(2); ++kk)
        for (int j = g.interior_begin(1); j < g.interior_end(1); ++j)
            for (int i = g.interior_begin(0); i < g.interior_end(0); ++i) {
                const std::array<int, 3> global = {g.low[0] + i, g.low[1] + j, g.low[2] + kk};
                State F{};
                for (int d = 0; d < 3; ++d) {
                    std::array<LinePoint, 5> p;
                    for (int o = -2; o <= 2; ++o) {
                        std::array<int, 3> at = global;
                        at[d] = std::clamp(at[d] + o, 0, k.grid - 1);
                        p[o + 2] = line_point(k, at, d);
                    }
                    add_direction_terms(k, d, global[d], p, F);
                }
                const std::ptrdiff_t at = s.at(i, j, kk);
                for (int m = 0; m < kComponents; ++m) cell.forcing[m][at] = -1.0 * F[m];
            }
}

void add_error_squares(const Constants& k, const Cell& cell, Norms& sums) {
    const CellGeometry& g = cell.geometry;
    const double h = k.spacing;
    for (int kk = 0; kk < g.size[2]; ++kk)
        for (int j = 0; j < g.size[1]; ++j)
            for (int i = 0; i < g.size[0]; ++i) {
                const State e =
                    exact_solution(k, (g.low[0] + i) * h, (g.low[1] + j) * h, (g.low[2] + kk) * h);
                const std::ptrdiff_t at = cell.shape.at(i, j, kk);
                for (int m = 0; m < kComponents; ++m) {
                    const double diff = cell.u[m][at] - e[m];
                    sums[m] += diff * diff;
                }
            }
}

}  // namespace si::sp
