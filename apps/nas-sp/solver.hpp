// The SP solver of one rank: its cells, the face exchange and the pipelined line
// solves, driven one time step at a time.
#pragma once

#include <mpi.h>

#include <vector>

#include "cell.hpp"
#include "mpi_memory.hpp"
#include "faces.hpp"
#include "partition.hpp"
#include "problem.hpp"
#include "sweep.hpp"

namespace si::sp {

class Solver {
  public:
    // comm holds the ranks of the run, a perfect square of them (check_rank_count).
    Solver(const Constants& k, MPI_Comm comm);
    ~Solver();
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;

    // u of every cell from the initial condition (also undoes the warm-up step).
    void initialize();
    // The forcing term, once before time stepping.
    void compute_forcing();
    // One time step: face exchange, right-hand side, the x, y and z line solves with
    // their transformations, update.
    void step();

    // Verification norms, the same on every rank (section 8): the RMS error against
    // the exact solution, then the RMS of a fresh right-hand side divided by dt.
    Norms error_norms();
    Norms residual_norms();

    const Partition& partition() const { return partition_; }

  private:
    void solve_direction(int d);
    // The transformation that follows the solve of direction d, for one cell.
    void finish_direction(int d, Cell& cell);
    Norms global_rms(const Norms& local_sums) const;

    Constants k_;
    MPI_Comm comm_;
    MPI_Comm face_comm_;
    MPI_Comm solve_comm_;
    Partition partition_;
    std::vector<Cell> cells_;
    FaceExchange faces_;
    SweepScratch scratch_;
    // Pipeline messages: the one being received and the one being sent.
    MessageBuffer carry_in_;
    MessageBuffer carry_out_;
};

}  // namespace si::sp
