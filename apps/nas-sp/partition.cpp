#include "partition.hpp"

#include <fmt/format.h>

namespace si::sp {
namespace {

// Every cell needs three points per direction: the boundary closures of the
// fourth-difference dissipation reach two rows into the first and last cell.
constexpr int kMinCellPoints = 3;

int exact_sqrt(int n) {
    int r = 0;
    while ((r + 1) * (r + 1) <= n) ++r;
    return r * r == n ? r : -1;
}

int positive_mod(int a, int n) {
    return ((a % n) + n) % n;
}

}  // namespace

std::string check_rank_count(int ranks, int grid) {
    const int max_nc = grid / kMinCellPoints;
    std::string valid = "1";
    for (int nc = 2; nc <= max_nc && nc <= 6; ++nc) valid += fmt::format(", {}", nc * nc);
    if (max_nc > 6) valid += fmt::format(", ..., {}", max_nc * max_nc);
    const int nc = exact_sqrt(ranks);
    if (nc < 0)
        return fmt::format(
            "the number of ranks (-n {}) must be a perfect square: SP's multipartition "
            "gives each of nc*nc ranks nc cells; valid counts: {}",
            ranks, valid);
    if (nc > max_nc)
        return fmt::format(
            "the number of ranks (-n {}) is too large for a grid of {} points: every cell "
            "needs {} points per direction; valid counts: {}",
            ranks, grid, kMinCellPoints, valid);
    return {};
}

Partition::Partition(int rank, int ranks, int grid) : nc_(exact_sqrt(ranks)) {
    const int i0 = rank % nc_;
    const int j0 = rank / nc_;
    // The first `excess` cells of a direction get one point more.
    const int base = grid / nc_;
    const int excess = grid % nc_;
    cells_.resize(nc_);
    for (auto& s : slices_) s.assign(nc_, 0);
    for (int c = 0; c < nc_; ++c) {
        CellGeometry& g = cells_[c];
        g.coord = {positive_mod(i0 + c, nc_), positive_mod(j0 - c, nc_), c};
        for (int d = 0; d < 3; ++d) {
            const int q = g.coord[d];
            g.size[d] = q < excess ? base + 1 : base;
            g.low[d] = q < excess ? q * (base + 1) : excess * (base + 1) + (q - excess) * base;
            g.first_is_boundary[d] = q == 0 ? 1 : 0;
            g.last_is_boundary[d] = q == nc_ - 1 ? 1 : 0;
            slices_[d][q] = c;
        }
    }
    const auto rank_at = [&](int i, int j) {
        return positive_mod(i, nc_) + nc_ * positive_mod(j, nc_);
    };
    predecessor_ = {rank_at(i0 - 1, j0), rank_at(i0, j0 - 1), rank_at(i0 + 1, j0 - 1)};
    successor_ = {rank_at(i0 + 1, j0), rank_at(i0, j0 + 1), rank_at(i0 - 1, j0 + 1)};
}

}  // namespace si::sp
