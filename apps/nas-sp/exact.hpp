// The exact solution of the SP test problem and what is built from it: the initial
// field, the forcing term that makes the exact solution a discrete steady state, and
// the error of a computed field (sections 3 and 8.1 of the specification).
#pragma once

#include <array>

#include "cell.hpp"
#include "problem.hpp"

namespace si::sp {

using State = std::array<double, kComponents>;

State exact_solution(const Constants& k, double xi, double eta, double zeta);

// Weights of the fourth-difference operator with boundary closure at global position
// g of a line of n points, applied to f(g-2) .. f(g+2). Rows next to the boundary use
// fewer points; a zero weight leaves the sum exactly as without that term.
inline std::array<double, 5> fourth_difference_weights(int g, int n) {
    if (g == 1) return {0.0, 0.0, 5.0, -4.0, 1.0};
    if (g == 2) return {0.0, -4.0, 6.0, -4.0, 1.0};
    if (g == n - 3) return {1.0, -4.0, 6.0, -4.0, 0.0};
    if (g == n - 2) return {1.0, -4.0, 5.0, 0.0, 0.0};
    return {1.0, -4.0, 6.0, -4.0, 1.0};
}

// u of the whole padded cell: a valid dummy state on ghost points, the blended
// initial field on the cell's points, the exact solution on global boundary faces.
void initialize_solution(const Constants& k, Cell& cell);

// forcing at interior points (zero elsewhere).
void compute_forcing(const Constants& k, Cell& cell);

// Adds the squared differences u - exact over the cell's points to sums.
void add_error_squares(const Constants& k, const Cell& cell, Norms& sums);

}  // namespace si::sp
