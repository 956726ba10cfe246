// The explicit right-hand side of one time step (section 4 of the specification).
#pragma once

#include "cell.hpp"
#include "problem.hpp"

namespace si::sp {

// The auxiliary quantities (cell.aux) on the cell's points and first ghost layer, from
// u, whose ghost layers must hold the neighbours' faces.
void compute_aux(const Constants& k, Cell& cell);

// compute_aux, then rhs = dt * (forcing + fluxes + viscous terms - dissipation) at
// interior points; other points of rhs are left alone (nothing reads them).
void compute_rhs(const Constants& k, Cell& cell);

// Adds the squares of rhs over the interior points to sums.
void add_rhs_squares(const Cell& cell, Norms& sums);

}  // namespace si::sp
