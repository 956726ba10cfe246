// The pointwise steps of a time step: the characteristic transformations around the
// three line solves (section 5) and the final update (section 7.1). All act on
// interior points only.
#pragma once

#include "cell.hpp"
#include "problem.hpp"

namespace si::sp {

// rhs -> characteristic variables of x, written transposed into rhs_x for the x solve.
void txinvr(const Constants& k, Cell& cell);
// After the x solve: rhs_x -> characteristic variables of y, into rhs.
void ninvr(const Constants& k, Cell& cell);
// After the y solve, in place: to the characteristic variables of z.
void pinvr(const Constants& k, Cell& cell);
// After the z solve, in place: back to the conserved variables.
void tzetar(const Constants& k, Cell& cell);
// u += rhs.
void add_update(Cell& cell);

}  // namespace si::sp
