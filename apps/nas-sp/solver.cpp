#include "solver.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "exact.hpp"
#include "rhs.hpp"
#include "transforms.hpp"

namespace si::sp {
namespace {

// Tags of the pipeline messages; each direction and sweep has its own, so a message
// can only ever match the receive it was meant for.
constexpr int kForwardTag = 10;
constexpr int kBackwardTag = 20;

MPI_Comm duplicate(MPI_Comm comm) {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &dup);
    return dup;
}

int rank_of(MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

int size_of(MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    return size;
}

std::vector<Cell> make_cells(const Partition& partition) {
    std::vector<Cell> cells;
    for (int c = 0; c < partition.cells_per_direction(); ++c) cells.emplace_back(partition.cell(c));
    return cells;
}

std::size_t largest_message(const std::vector<Cell>& cells) {
    std::size_t lines = 0;
    for (const Cell& cell : cells)
        for (int d = 0; d < 3; ++d)
            lines = std::max(lines, static_cast<std::size_t>(sweep_shape(cell, d).total_lines()));
    return kForwardCarry * lines;
}

}  // namespace

Solver::Solver(const Constants& k, MPI_Comm comm)
    : k_(k),
      comm_(comm),
      face_comm_(duplicate(comm)),
      solve_comm_(duplicate(comm)),
      partition_(rank_of(comm), size_of(comm), k.grid),
      cells_(make_cells(partition_)),
      faces_(partition_, cells_, face_comm_),
      scratch_(cells_),
      carry_in_(largest_message(cells_)),
      carry_out_(largest_message(cells_)) {}

Solver::~Solver() {
    MPI_Comm_free(&solve_comm_);
    MPI_Comm_free(&face_comm_);
}

void Solver::initialize() {
    for (Cell& cell : cells_) initialize_solution(k_, cell);
}

void Solver::compute_forcing() {
    for (Cell& cell : cells_) si::sp::compute_forcing(k_, cell);
}

void Solver::step() {
    faces_.exchange(cells_);
    for (Cell& cell : cells_) {
        compute_rhs(k_, cell);
        txinvr(k_, cell);
    }
    for (int d = 0; d < 3; ++d) solve_direction(d);
    for (Cell& cell : cells_) add_update(cell);
}

void Solver::finish_direction(int d, Cell& cell) {
    switch (d) {
        case 0:
            ninvr(k_, cell);
            break;
        case 1:
            pinvr(k_, cell);
            break;
        default:
            tzetar(k_, cell);
            break;
    }
}

// Stage s of a sweep works on the local cell whose coordinate in d is s; every rank
// has one, so all ranks work in every stage. Forward, a cell waits for the last two
// eliminated rows of its predecessor (and builds its own rows meanwhile); backward,
// for the first two solved rows of its successor (and transforms the cell finished
// in the previous stage meanwhile). Each stage waits for its receive and for the
// previous stage's send, whose buffer it is about to refill.
void Solver::solve_direction(int d) {
    const int nc = partition_.cells_per_direction();
    const int predecessor = partition_.predecessor(d);
    const int successor = partition_.successor(d);
    MPI_Request send = MPI_REQUEST_NULL;

    for (int s = 0; s < nc; ++s) {
        Cell& cell = cells_[partition_.slice(d, s)];
        const int lines = sweep_shape(cell, d).total_lines();
        if (s == 0) {
            build_and_eliminate_cell(k_, cell, d, scratch_);
        } else {
            std::array<MPI_Request, 2> pending{MPI_REQUEST_NULL, send};
            MPI_Irecv(carry_in_.data(), kForwardCarry * lines, MPI_DOUBLE, predecessor,
                      kForwardTag + d, solve_comm_, &pending[0]);
            build_cell_rows(k_, cell, d, scratch_);
            MPI_Waitall(2, pending.data(), MPI_STATUSES_IGNORE);
            send = MPI_REQUEST_NULL;
            eliminate_cell(k_, cell, d, scratch_, carry_in_.data());
        }
        if (s < nc - 1) {
            pack_forward_cell(cell, d, carry_out_.data());
            MPI_Isend(carry_out_.data(), kForwardCarry * lines, MPI_DOUBLE, successor,
                      kForwardTag + d, solve_comm_, &send);
        }
    }

    for (int s = nc - 1; s >= 0; --s) {
        Cell& cell = cells_[partition_.slice(d, s)];
        const int lines = sweep_shape(cell, d).total_lines();
        if (s == nc - 1) {
            back_substitute_cell(cell, d, nullptr);
        } else {
            std::array<MPI_Request, 2> pending{MPI_REQUEST_NULL, send};
            MPI_Irecv(carry_in_.data(), kBackwardCarry * lines, MPI_DOUBLE, successor,
                      kBackwardTag + d, solve_comm_, &pending[0]);
            finish_direction(d, cells_[partition_.slice(d, s + 1)]);
            MPI_Waitall(2, pending.data(), MPI_STATUSES_IGNORE);
            send = MPI_REQUEST_NULL;
            back_substitute_cell(cell, d, carry_in_.data());
        }
        if (s > 0) {
            pack_backward_cell(cell, d, carry_out_.data());
            MPI_Isend(carry_out_.data(), kBackwardCarry * lines, MPI_DOUBLE, predecessor,
                      kBackwardTag + d, solve_comm_, &send);
        } else {
            finish_direction(d, cell);
        }
    }
}

Norms Solver::global_rms(const Norms& local_sums) const {
    Norms sums{};
    MPI_Allreduce(local_sums.data(), sums.data(), kComponents, MPI_DOUBLE, MPI_SUM, comm_);
    const double interior = k_.grid - 2;
    Norms rms;
    for (int m = 0; m < kComponents; ++m)
        rms[m] = std::sqrt(sums[m] / interior / interior / interior);
    return rms;
}

Norms Solver::error_norms() {
    Norms sums{};
    for (const Cell& cell : cells_) add_error_squares(k_, cell, sums);
    return global_rms(sums);
}

Norms Solver::residual_norms() {
    faces_.exchange(cells_);
    Norms sums{};
    for (Cell& cell : cells_) {
        compute_rhs(k_, cell);
        add_rhs_squares(cell, sums);
    }
    Norms rms = global_rms(sums);
    for (double& r : rms) r /= k_.dt;
    return rms;
}

}  // namespace si::sp
