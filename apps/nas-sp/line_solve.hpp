// The pentadiagonal line solves of SP (section 6 of the specification), on bundles of
// lines that lie side by side in memory.
//
// A bundle is every line of one cell through one plane (x, y) or row (z) of points:
// `lines` lines of `rows` rows each, where row r of all lines is contiguous. Every loop
// runs over the lines innermost, so the recurrences along a line vectorize across
// lines. Only interior rows take part: the boundary rows are identities with a zero
// right-hand side, and dropping them changes no result.
//
// Three coefficient sets share the elimination pattern: the u set solves components
// 1..3, the u+c set component 4, the u-c set component 5. A cell that is not the first
// of its line starts with the updates its predecessor left pending; one that is not
// the last hands them on. MessageSlot says where a bundle's share of such a pipeline
// message is.
#pragma once

#include <array>
#include <cstddef>

#include "problem.hpp"

namespace si::sp {

inline constexpr int kCoefficientSets = 3;
// Doubles per line of the messages between the cells of a line: forward, the last two
// eliminated rows (d, e and the right-hand sides of each set: 2 * (5 + 3 + 3)); back,
// the first two solved rows of the five components.
inline constexpr int kForwardCarry = 22;
inline constexpr int kBackwardCarry = 10;

struct Bundle {
    int lines = 0;
    int rows = 0;
    int first_row = 0;                       // global index of row 0 along the line
    std::array<double*, kComponents> rhs{};  // row 0, line 0
    std::ptrdiff_t rhs_row = 0;              // distance between rows of rhs
    // d and e of each set after elimination (d, e of set 0, then set 1, set 2); row r
    // starts at r * lines.
    std::array<double*, 2 * kCoefficientSets> eliminated{};
};

// b and c of each set while the rows are being eliminated (b, c of set 0, then set 1,
// set 2; row r starts at r * lines), and room for one row of pivot reciprocals.
struct RowScratch {
    std::array<double*, 2 * kCoefficientSets> bc{};
    double* pivots = nullptr;
};

// What the coefficient rows are built from, along the bundle's lines: the velocity
// along the line, the largest viscous eigenvalue and the speed of sound, each at rows
// -1..rows (pointers at row -1, rows `lines` apart).
struct LineAux {
    const double* velocity = nullptr;
    const double* viscosity = nullptr;
    const double* speed = nullptr;
};

// Where a bundle's lines sit in a pipeline message: quantity q of line l at
// data[q * block + first_line + l].
struct MessageSlot {
    double* data = nullptr;
    std::ptrdiff_t block = 0;
    std::ptrdiff_t first_line = 0;
    double* quantity(int q) const { return data + q * block + first_line; }
};

// The coefficient rows (6.1) of direction d: b and c into scratch, d into eliminated.
void build_rows(const Constants& k, int d, const Bundle& bundle, const LineAux& aux,
                const RowScratch& scratch);

// Forward elimination of all three sets; `pending` (nullptr for the first cell of a
// line) holds the predecessor's last two rows.
void eliminate_forward(const Constants& k, const Bundle& bundle, const RowScratch& scratch,
                       const MessageSlot* pending);
// The last two rows, for the successor's eliminate_forward.
void pack_forward(const Bundle& bundle, const MessageSlot& out);

// Back substitution; `solved` (nullptr for the last cell of a line) holds the
// successor's first two solved rows. Leaves the solution in bundle.rhs.
void back_substitute(const Bundle& bundle, const MessageSlot* solved);
// The first two solved rows, for the predecessor's back_substitute.
void pack_backward(const Bundle& bundle, const MessageSlot& out);

}  // namespace si::sp
