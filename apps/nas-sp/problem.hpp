// The SP problem classes and the constants of the scheme.
//
// A class fixes the grid (N^3 points), the number of time steps, the time step and,
// where the specification lists them, the reference norms the run must reproduce.
// Constants derive everything else the scheme needs from N and dt once, so that the
// kernels read named numbers instead of recomputing them.
#pragma once

#include <array>
#include <optional>
#include <string>

namespace si::sp {

// Density, the three momenta and the total energy.
inline constexpr int kComponents = 5;
using Norms = std::array<double, kComponents>;

struct ReferenceNorms {
    double dt;
    Norms residual;  // xcr: RMS of the final right-hand side, divided by dt
    Norms error;     // xce: RMS of the difference to the exact solution
};

struct ProblemClass {
    char name;
    int grid;  // points per direction
    int iterations;
    double dt;
    std::optional<ReferenceNorms> reference;  // absent when the spec does not list it
};

// nullptr for a name that is not a class.
const ProblemClass* find_class(char name);
// "S, W, A, B, C, D, E", for help texts and errors.
std::string class_names();

// Mop/s of one run by the NPB operation count (a polynomial in the grid edge).
double mops_rate(int grid, int iterations, double seconds);

// Constants of one direction; the names follow the x direction of the specification
// (tx1, dttx1, xxcon1, dx1..dx5), the y and z sets are built the same way.
struct DirectionConstants {
    double t1 = 0, t2 = 0, t3 = 0;                            // 1/h^2, 1/(2h), 1/h
    double dtt1 = 0, dtt2 = 0;                                // dt*t1, dt*t2
    double c2dtt1 = 0;                                        // 2*dt*t1
    std::array<double, kComponents> diffusion{};              // dx1..dx5
    std::array<double, kComponents> diffusion_t1{};           // dx1tx1..dx5tx1
    double con1 = 0, con2 = 0, con3 = 0, con4 = 0, con5 = 0;  // xxcon1..xxcon5
    // The largest diffusion coefficient of the two momenta across the line.
    double diffusion_max = 0;
};

struct Constants {
    int grid = 0;
    double dt = 0;
    double spacing = 0;  // 1/(N-1), the same in all three directions
    double c1 = 1.4, c2 = 0.4, c3 = 0.1, c4 = 1.0, c5 = 1.4;
    double bt = 0, c1c2 = 0, c1c5 = 0, c3c4 = 0, conz1 = 0, con43 = 0, con16 = 0;
    double c2iv = 2.5;
    double dssp = 0;                                    // explicit fourth-order dissipation
    double comz1 = 0, comz4 = 0, comz5 = 0, comz6 = 0;  // implicit dissipation, dt*dssp*{1,4,5,6}
    std::array<DirectionConstants, 3> dir{};
    // Coefficients of the exact solution: ce[m][n] as in the specification, n = 0..12.
    std::array<std::array<double, 13>, kComponents> ce{};
};

Constants make_constants(int grid, double dt);

}  // namespace si::sp
