#include "problem.hpp"

#include <algorithm>
#include <cmath>

namespace si::sp {
namespace {

// Reference norms as listed in the specification (section 8.4); class W's are
// NPB 3.x's published values (13 significant digits, enough for the 1e-8
// tolerance).
constexpr ReferenceNorms kReferenceS{
    1.5e-2,
    {2.7470315451339479e-02, 1.0360746705285417e-02, 1.6235745065095532e-02, 1.5840557224455615e-02,
     3.4849040609362460e-02},
    {2.7289258557377227e-05, 1.0364446640837285e-05, 1.6154798287166471e-05, 1.5750704994480102e-05,
     3.4177666183390531e-05}};
constexpr ReferenceNorms kReferenceW{
    1.5e-3,
    {1.893253733584e-03, 1.717075447775e-04, 2.778153350936e-04, 2.887475409984e-04,
     3.143611161242e-03},
    {7.542088599534e-05, 6.512852253086e-06, 1.049092285688e-05, 1.128838671535e-05,
     1.212845639773e-04}};
constexpr ReferenceNorms kReferenceA{
    1.5e-3,
    {2.4799822399300195e+00, 1.1276337964368832e+00, 1.5028977888770491e+00, 1.4217816211695179e+00,
     2.1292113035138280e+00},
    {1.0900140297820550e-04, 3.7343951769282091e-05, 5.0092785406541633e-05, 4.7671093939528255e-05,
     1.3621613399213001e-04}};
constexpr ReferenceNorms kReferenceB{1.0e-3,
                                     {0.6903293579998e+02, 0.3095134488084e+02, 0.4103336647017e+02,
                                      0.3864769009604e+02, 0.5643482272596e+02},
                                     {0.9810006190188e-02, 0.1022827905670e-02, 0.1720597911692e-02,
                                      0.1694479428231e-02, 0.1847456263981e-01}};
constexpr ReferenceNorms kReferenceC{0.67e-3,
                                     {0.5881691581829e+03, 0.2454417603569e+03, 0.3293829191851e+03,
                                      0.3081924971891e+03, 0.4597223799176e+03},
                                     {0.2598120500183e+00, 0.2590888922315e-01, 0.5132886416320e-01,
                                      0.4806073419454e-01, 0.5483377491301e+00}};
constexpr ReferenceNorms kReferenceD{0.30e-3,
                                     {0.1044696216887e+05, 0.3204427762578e+04, 0.4648680733032e+04,
                                      0.4238923283697e+04, 0.7588412036136e+04},
                                     {0.5089471423669e+01, 0.5323514855894e+00, 0.1187051008971e+01,
                                      0.1083734951938e+01, 0.1164108338568e+02}};
constexpr ReferenceNorms kReferenceE{0.10e-3,
                                     {0.6255387422609e+05, 0.1495317020012e+05, 0.2347595750586e+05,
                                      0.2091099783534e+05, 0.4770412841218e+05},
                                     {0.6742735164909e+02, 0.5390656036938e+01, 0.1680647196477e+02,
                                      0.1536963126457e+02, 0.1575330146156e+03}};

const ProblemClass kClasses[] = {
    {'S', 12, 100, 0.015, kReferenceS},    {'W', 36, 400, 0.0015, kReferenceW},
    {'A', 64, 400, 0.0015, kReferenceA},   {'B', 102, 400, 0.001, kReferenceB},
    {'C', 162, 400, 0.00067, kReferenceC}, {'D', 408, 500, 0.00030, kReferenceD},
    {'E', 1020, 500, 0.0001, kReferenceE},
};

// Coefficients of the exact solution (section 2.1): a constant, then the x, y and z
// coefficients of the first to fourth powers, interleaved as in the specification.
constexpr std::array<std::array<double, 13>, kComponents> kExactCoefficients{{
    {2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3},
    {1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5},
    {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4},
    {2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3},
    {5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2},
}};

// Diffusion coefficients dx1..dx5, dy1..dy5, dz1..dz5.
constexpr double kDiffusion[3] = {0.75, 0.75, 1.0};

}  // namespace

const ProblemClass* find_class(char name) {
    for (const ProblemClass& c : kClasses)
        if (c.name == name) return &c;
    return nullptr;
}

std::string class_names() {
    std::string names;
    for (const ProblemClass& c : kClasses) {
        if (!names.empty()) names += ", ";
        names += c.name;
    }
    return names;
}

double mops_rate(int grid, int iterations, double seconds) {
    if (seconds <= 0) return 0;
    const double n = grid;
    const double ops_per_step = 881.174 * n * n * n - 4683.91 * n * n + 11484.5 * n - 19272.4;
    return 1.0e-6 * iterations * ops_per_step / seconds;
}

Constants make_constants(int grid, double dt) {
    Constants k;
    k.grid = grid;
    k.dt = dt;
    k.spacing = 1.0 / (grid - 1);
    k.ce = kExactCoefficients;
    k.bt = std::sqrt(0.5);
    k.c1c2 = k.c1 * k.c2;
    k.c1c5 = k.c1 * k.c5;
    k.c3c4 = k.c3 * k.c4;
    k.conz1 = 1.0 - k.c1c5;
    k.con43 = 4.0 / 3.0;
    k.con16 = 1.0 / 6.0;
    k.dssp = 0.25 * std::max(kDiffusion[0], std::max(kDiffusion[1], kDiffusion[2]));
    const double dtdssp = dt * k.dssp;
    k.comz1 = dtdssp;
    k.comz4 = 4.0 * dtdssp;
    k.comz5 = 5.0 * dtdssp;
    k.comz6 = 6.0 * dtdssp;
    for (int d = 0; d < 3; ++d) {
        DirectionConstants& c = k.dir[d];
        const double h = k.spacing;
        c.t1 = 1.0 / (h * h);
        c.t2 = 1.0 / (2.0 * h);
        c.t3 = 1.0 / h;
        c.dtt1 = dt * c.t1;
        c.dtt2 = dt * c.t2;
        c.c2dtt1 = 2.0 * c.dtt1;
        for (int m = 0; m < kComponents; ++m) {
            c.diffusion[m] = kDiffusion[d];
            c.diffusion_t1[m] = c.diffusion[m] * c.t1;
        }
        const double c3c4t3 = k.c3c4 * c.t3;
        c.con1 = c3c4t3 * k.con43 * c.t3;
        c.con2 = c3c4t3 * c.t3;
        c.con3 = c3c4t3 * k.conz1 * c.t3;
        c.con4 = c3c4t3 * k.con16 * c.t3;
        c.con5 = c3c4t3 * k.c1c5 * c.t3;
        // The momenta across the line: x -> (v, w), y -> (u, w), z -> (u, v).
        const int across1 = d == 0 ? 2 : 1;
        const int across2 = d == 2 ? 2 : 3;
        c.diffusion_max = std::max(c.diffusion[across1], c.diffusion[across2]);
    }
    return k;
}

}  // namespace si::sp
