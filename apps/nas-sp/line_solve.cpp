#include "line_solve.hpp"

#include <algorithm>

#include "exact.hpp"

// Loops marked `#pragma GCC ivdep` touch each element of their arrays in one iteration
// only (a point, or a line of a bundle); GCC cannot prove that through this many
// pointers and would otherwise not vectorize them.

namespace si::sp {
namespace {

// One coefficient set of a bundle: its rows, the components it solves and where its
// quantities start in a forward message.
struct SetRows {
    double* b;
    double* c;
    double* d;
    double* e;
    int first_component;
    int components;
    int carry;  // first quantity of this set in a forward message
};

SetRows set_rows(const Bundle& bundle, const RowScratch& scratch, int set) {
    // Set 0 solves components 1..3 and sends 10 quantities per line, sets 1 and 2 one
    // component each, 6 quantities.
    return {scratch.bc[2 * set],
            scratch.bc[2 * set + 1],
            bundle.eliminated[2 * set],
            bundle.eliminated[2 * set + 1],
            set == 0 ? 0 : 2 + set,
            set == 0 ? 3 : 1,
            set == 0 ? 0 : 10 + 6 * (set - 1)};
}

// The implicit dissipation's contribution to a (weight 0) and e (weight 4) of the row
// at global position g; both depend on the row only.
double row_a(const Constants& k, int g) {
    return k.comz1 * fourth_difference_weights(g, k.grid)[0];
}
double row_e(const Constants& k, int g) {
    return k.comz1 * fourth_difference_weights(g, k.grid)[4];
}

double* rhs_row(const Bundle& bundle, int m, int r) {
    return bundle.rhs[m] + r * bundle.rhs_row;
}

// Applies to rows 0 and 1 the updates of the predecessor's last two rows (which the
// predecessor has already normalized): row G-2 acts through a, row G-1 through b.
void apply_pending(const Constants& k, const Bundle& bundle, const SetRows& set,
                   const MessageSlot& pending) {
    const std::ptrdiff_t L = bundle.lines;
    const double a0 = row_a(k, bundle.first_row);
    const double a1 = row_a(k, bundle.first_row + 1);
    const int row_size = 2 + set.components;  // d, e, right-hand sides
    const double* __restrict d2 = pending.quantity(set.carry);
    const double* __restrict e2 = pending.quantity(set.carry + 1);
    const double* __restrict d1 = pending.quantity(set.carry + row_size);
    const double* __restrict e1 = pending.quantity(set.carry + row_size + 1);
    double* __restrict b0 = set.b;
    double* __restrict c0 = set.c;
    double* __restrict dd0 = set.d;
    double* __restrict b1 = set.b + L;
    double* __restrict c1 = set.c + L;
#pragma GCC ivdep
    for (std::ptrdiff_t l = 0; l < L; ++l) {
        const double b = b0[l] - a0 * d2[l];
        b0[l] = b;
        c0[l] = (c0[l] - a0 * e2[l]) - b * d1[l];
        dd0[l] -= b * e1[l];
        b1[l] -= a1 * d1[l];
        c1[l] -= a1 * e1[l];
    }
    for (int m = 0; m < set.components; ++m) {
        const double* __restrict r2 = pending.quantity(set.carry + 2 + m);
        const double* __restrict r1 = pending.quantity(set.carry + row_size + 2 + m);
        double* __restrict x0 = rhs_row(bundle, set.first_component + m, 0);
        double* __restrict x1 = rhs_row(bundle, set.first_component + m, 1);
#pragma GCC ivdep
        for (std::ptrdiff_t l = 0; l < L; ++l) {
            x0[l] = (x0[l] - a0 * r2[l]) - b0[l] * r1[l];
            x1[l] -= a1 * r1[l];
        }
    }
}

// Normalizes row r by its pivot and eliminates it from row r+1 (through b) and, when
// `full`, from row r+2 (through a). The pivot reciprocals go to `pivots` for the
// right-hand sides.
void eliminate_row(const Constants& k, const Bundle& bundle, const SetRows& set, int r, bool full,
                   double* __restrict pivots) {
    const std::ptrdiff_t L = bundle.lines;
    const double e_row = row_e(k, bundle.first_row + r);
    double* __restrict c0 = set.c + r * L;
    double* __restrict d0 = set.d + r * L;
    double* __restrict e0 = set.e + r * L;
    double* __restrict b1 = set.b + (r + 1) * L;
    double* __restrict c1 = set.c + (r + 1) * L;
    double* __restrict d1 = set.d + (r + 1) * L;
    if (full) {
        const double a2 = row_a(k, bundle.first_row + r + 2);
        double* __restrict b2 = set.b + (r + 2) * L;
        double* __restrict c2 = set.c + (r + 2) * L;
#pragma GCC ivdep
        for (std::ptrdiff_t l = 0; l < L; ++l) {
            const double f = 1.0 / c0[l];
            const double d = f * d0[l];
            const double e = f * e_row;
            pivots[l] = f;
            d0[l] = d;
            e0[l] = e;
            c1[l] -= b1[l] * d;
            d1[l] -= b1[l] * e;
            b2[l] -= a2 * d;
            c2[l] -= a2 * e;
        }
        for (int m = 0; m < set.components; ++m) {
            double* __restrict x0 = rhs_row(bundle, set.first_component + m, r);
            double* __restrict x1 = rhs_row(bundle, set.first_component + m, r + 1);
            double* __restrict x2 = rhs_row(bundle, set.first_component + m, r + 2);
#pragma GCC ivdep
            for (std::ptrdiff_t l = 0; l < L; ++l) {
                const double x = pivots[l] * x0[l];
                x0[l] = x;
                x1[l] -= b1[l] * x;
                x2[l] -= a2 * x;
            }
        }
        return;
    }
#pragma GCC ivdep
    for (std::ptrdiff_t l = 0; l < L; ++l) {
        const double f = 1.0 / c0[l];
        const double d = f * d0[l];
        const double e = f * e_row;
        pivots[l] = f;
        d0[l] = d;
        e0[l] = e;
        c1[l] -= b1[l] * d;
        d1[l] -= b1[l] * e;
    }
    for (int m = 0; m < set.components; ++m) {
        double* __restrict x0 = rhs_row(bundle, set.first_component + m, r);
        double* __restrict x1 = rhs_row(bundle, set.first_component + m, r + 1);
#pragma GCC ivdep
        for (std::ptrdiff_t l = 0; l < L; ++l) {
            const double x = pivots[l] * x0[l];
            x0[l] = x;
            x1[l] -= b1[l] * x;
        }
    }
}

// Normalizes the last row of the cell (nothing below it to update here).
void normalize_last_row(const Constants& k, const Bundle& bundle, const SetRows& set,
                        double* __restrict pivots) {
    const std::ptrdiff_t L = bundle.lines;
    const int r = bundle.rows - 1;
    const double e_row = row_e(k, bundle.first_row + r);
    double* __restrict c0 = set.c + r * L;
    double* __restrict d0 = set.d + r * L;
    double* __restrict e0 = set.e + r * L;
#pragma GCC ivdep
    for (std::ptrdiff_t l = 0; l < L; ++l) {
        const double f = 1.0 / c0[l];
        pivots[l] = f;
        d0[l] = f * d0[l];
        e0[l] = f * e_row;
    }
    for (int m = 0; m < set.components; ++m) {
        double* __restrict x0 = rhs_row(bundle, set.first_component + m, r);
#pragma GCC ivdep
        for (std::ptrdiff_t l = 0; l < L; ++l) x0[l] = pivots[l] * x0[l];
    }
}

}  // namespace

void build_rows(const Constants& k, int d, const Bundle& bundle, const LineAux& aux,
                const RowScratch& scratch) {
    const DirectionConstants& c = k.dir[d];
    const double dtt1 = c.dtt1, dtt2 = c.dtt2, c2dtt1 = c.c2dtt1;
    const std::ptrdiff_t L = bundle.lines;
    for (int r = 0; r < bundle.rows; ++r) {
        const auto w = fourth_difference_weights(bundle.first_row + r, k.grid);
        const double add_b = k.comz1 * w[1], add_c = k.comz1 * w[2], add_d = k.comz1 * w[3];
        // The aux pointers start at row -1: rows r-1, r, r+1 are at r, r+1, r+2.
        const double* __restrict cv_m = aux.velocity + r * L;
        const double* __restrict cv_p = aux.velocity + (r + 2) * L;
        const double* __restrict nu_m = aux.viscosity + r * L;
        const double* __restrict nu_0 = aux.viscosity + (r + 1) * L;
        const double* __restrict nu_p = aux.viscosity + (r + 2) * L;
        const double* __restrict s_m = aux.speed + r * L;
        const double* __restrict s_p = aux.speed + (r + 2) * L;
        double* __restrict b_u = scratch.bc[0] + r * L;
        double* __restrict c_u = scratch.bc[1] + r * L;
        double* __restrict b_p = scratch.bc[2] + r * L;
        double* __restrict c_p = scratch.bc[3] + r * L;
        double* __restrict b_n = scratch.bc[4] + r * L;
        double* __restrict c_n = scratch.bc[5] + r * L;
        double* __restrict d_u = bundle.eliminated[0] + r * L;
        double* __restrict d_p = bundle.eliminated[2] + r * L;
        double* __restrict d_n = bundle.eliminated[4] + r * L;
#pragma GCC ivdep
        for (std::ptrdiff_t l = 0; l < L; ++l) {
            const double b = (-dtt2 * cv_m[l] - dtt1 * nu_m[l]) + add_b;
            const double cc = (1.0 + c2dtt1 * nu_0[l]) + add_c;
            const double dd = (dtt2 * cv_p[l] - dtt1 * nu_p[l]) + add_d;
            b_u[l] = b;
            c_u[l] = cc;
            d_u[l] = dd;
            // The acoustic sets differ from the u set by the speed of sound at the
            // neighbouring points, with opposite signs.
            b_p[l] = b - dtt2 * s_m[l];
            c_p[l] = cc;
            d_p[l] = dd + dtt2 * s_p[l];
            b_n[l] = b + dtt2 * s_m[l];
            c_n[l] = cc;
            d_n[l] = dd - dtt2 * s_p[l];
        }
    }
}

void eliminate_forward(const Constants& k, const Bundle& bundle, const RowScratch& scratch,
                       const MessageSlot* pending) {
    const int n = bundle.rows;
    for (int s = 0; s < kCoefficientSets; ++s) {
        const SetRows set = set_rows(bundle, scratch, s);
        if (pending != nullptr) apply_pending(k, bundle, set, *pending);
        for (int r = 0; r + 2 < n; ++r) eliminate_row(k, bundle, set, r, true, scratch.pivots);
        // The last two rows: their updates of the next cell's rows stay pending.
        eliminate_row(k, bundle, set, n - 2, false, scratch.pivots);
        normalize_last_row(k, bundle, set, scratch.pivots);
    }
}

void pack_forward(const Bundle& bundle, const MessageSlot& out) {
    const std::ptrdiff_t L = bundle.lines;
    for (int s = 0; s < kCoefficientSets; ++s) {
        // set_rows only needs the eliminated rows here, not the scratch.
        const SetRows set = set_rows(bundle, RowScratch{}, s);
        int q = set.carry;
        for (int r = bundle.rows - 2; r < bundle.rows; ++r) {
            std::copy_n(set.d + r * L, L, out.quantity(q++));
            std::copy_n(set.e + r * L, L, out.quantity(q++));
            for (int m = 0; m < set.components; ++m)
                std::copy_n(rhs_row(bundle, set.first_component + m, r), L, out.quantity(q++));
        }
    }
}

void back_substitute(const Bundle& bundle, const MessageSlot* solved) {
    const std::ptrdiff_t L = bundle.lines;
    const int n = bundle.rows;
    for (int m = 0; m < kComponents; ++m) {
        const int s = m < 3 ? 0 : m - 2;
        const double* __restrict d = bundle.eliminated[2 * s];
        const double* __restrict e = bundle.eliminated[2 * s + 1];
        double* __restrict last = rhs_row(bundle, m, n - 1);
        double* __restrict before = rhs_row(bundle, m, n - 2);
        const double* __restrict d_last = d + (n - 1) * L;
        const double* __restrict e_last = e + (n - 1) * L;
        const double* __restrict d_before = d + (n - 2) * L;
        const double* __restrict e_before = e + (n - 2) * L;
        if (solved != nullptr) {
            const double* __restrict x0 = solved->quantity(2 * m);
            const double* __restrict x1 = solved->quantity(2 * m + 1);
#pragma GCC ivdep
            for (std::ptrdiff_t l = 0; l < L; ++l) {
                const double x = (last[l] - d_last[l] * x0[l]) - e_last[l] * x1[l];
                last[l] = x;
                before[l] = (before[l] - d_before[l] * x) - e_before[l] * x0[l];
            }
        } else {
#pragma GCC ivdep
            for (std::ptrdiff_t l = 0; l < L; ++l) before[l] -= d_before[l] * last[l];
        }
        for (int r = n - 3; r >= 0; --r) {
            double* __restrict x = rhs_row(bundle, m, r);
            const double* __restrict x1 = rhs_row(bundle, m, r + 1);
            const double* __restrict x2 = rhs_row(bundle, m, r + 2);
            const double* __restrict dr = d + r * L;
            const double* __restrict er = e + r * L;
#pragma GCC ivdep
            for (std::ptrdiff_t l = 0; l < L; ++l) x[l] = (x[l] - dr[l] * x1[l]) - er[l] * x2[l];
        }
    }
}

void pack_backward(const Bundle& bundle, const MessageSlot& out) {
    for (int m = 0; m < kComponents; ++m)
        for (int r = 0; r < 2; ++r)
            std::copy_n(rhs_row(bundle, m, r), bundle.lines, out.quantity(2 * m + r));
}

}  // namespace si::sp
