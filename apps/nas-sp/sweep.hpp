// The line solves of one cell in one direction, in the pieces the pipeline of the
// solver needs: build the rows, eliminate (after the predecessor's message), pack the
// message for the successor; back-substitute (after the successor's message), pack
// the message for the predecessor.
//
// A cell's lines in direction d are grouped into bundles of lines that lie side by
// side in memory (see line_solve.hpp): x takes one bundle per z plane (lines along j,
// in the transposed rhs_x), y one per z plane (lines along i), z one per y row (lines
// along i).
#pragma once

#include <vector>

#include "cell.hpp"
#include "line_solve.hpp"
#include "problem.hpp"

namespace si::sp {

struct SweepShape {
    int bundles = 0;
    int lines = 0;  // per bundle
    int rows = 0;   // per line
    int total_lines() const { return bundles * lines; }
};

SweepShape sweep_shape(const Cell& cell, int d);

// Working memory of the line solves of one rank, sized for its largest cell.
class SweepScratch {
  public:
    explicit SweepScratch(const std::vector<Cell>& cells);

    // The b and c rows of bundle `slot` when a whole cell is built ahead (slot = the
    // bundle's index) or of the one bundle in flight (slot 0).
    RowScratch rows(const SweepShape& shape, int slot);
    double* line_aux() { return line_aux_.data(); }

  private:
    std::vector<double> rows_;
    std::vector<double> pivots_;
    std::vector<double> line_aux_;
};

// For the first cell of a line (nothing pending): builds and eliminates bundle by
// bundle, each while its rows are in cache.
void build_and_eliminate_cell(const Constants& k, Cell& cell, int d, SweepScratch& scratch);
// For the other cells: build_cell_rows while the predecessor's message is in flight,
// then eliminate_cell with that message.
void build_cell_rows(const Constants& k, Cell& cell, int d, SweepScratch& scratch);
void eliminate_cell(const Constants& k, Cell& cell, int d, SweepScratch& scratch, double* pending);
// kForwardCarry * total_lines doubles for the successor.
void pack_forward_cell(Cell& cell, int d, double* out);

// `solved` is the successor's message, nullptr for the last cell of a line.
void back_substitute_cell(Cell& cell, int d, double* solved);
// kBackwardCarry * total_lines doubles for the predecessor.
void pack_backward_cell(Cell& cell, int d, double* out);

}  // namespace si::sp
