/*
 * MPI_Comm_compare (MPI 3.1, section 6.4.1):
 *   MPI_IDENT      the same communicator (same handle / context);
 *   MPI_CONGRUENT  same members in the same order, different context (a dup,
 *                  or a split that keeps everyone in order);
 *   MPI_SIMILAR    same members, different order (a split with keys reversing
 *                  the order; with one rank the order cannot differ, so that
 *                  case is CONGRUENT);
 *   MPI_UNEQUAL    different members (a parity split against the world, or
 *                  MPI_COMM_SELF against the world when there are 2+ ranks).
 * Each comparison is also made the other way round: it must be symmetric.
 */
#include <stdio.h>

#include "mtest.h"

static const char* result_name(int result) {
    switch (result) {
        case MPI_IDENT:
            return "MPI_IDENT";
        case MPI_CONGRUENT:
            return "MPI_CONGRUENT";
        case MPI_SIMILAR:
            return "MPI_SIMILAR";
        case MPI_UNEQUAL:
            return "MPI_UNEQUAL";
        default:
            return "(not a comparison result)";
    }
}

static int expect(const char* what, MPI_Comm a, MPI_Comm b, int expected) {
    int errs = 0, ab = -1, ba = -1;
    MPI_Comm_compare(a, b, &ab);
    MPI_Comm_compare(b, a, &ba);
    errs += MT_CHECK(ab == expected, "%s: %s, expected %s", what, result_name(ab),
                     result_name(expected));
    errs += MT_CHECK(ba == ab, "%s: not symmetric (%s one way, %s the other)", what,
                     result_name(ab), result_name(ba));
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup, dup_of_dup, in_order, reversed, parity, reversed_again;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_dup(dup, &dup_of_dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &in_order);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    MPI_Comm_split(dup, 5, -rank, &reversed_again);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);

    errs += expect("world vs world", MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_IDENT);
    errs += expect("dup vs itself", dup, dup, MPI_IDENT);
    errs += expect("self vs self", MPI_COMM_SELF, MPI_COMM_SELF, MPI_IDENT);

    errs += expect("world vs dup", MPI_COMM_WORLD, dup, MPI_CONGRUENT);
    errs += expect("dup vs dup of dup", dup, dup_of_dup, MPI_CONGRUENT);
    errs += expect("world vs split in order", MPI_COMM_WORLD, in_order, MPI_CONGRUENT);
    errs += expect("two reversed splits", reversed, reversed_again, MPI_CONGRUENT);

    const int similar = size > 1 ? MPI_SIMILAR : MPI_CONGRUENT;
    errs += expect("world vs reversed split", MPI_COMM_WORLD, reversed, similar);
    errs += expect("in-order vs reversed split", in_order, reversed, similar);

    const int unequal = size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT;
    errs += expect("world vs parity split", MPI_COMM_WORLD, parity, unequal);
    errs += expect("self vs world", MPI_COMM_SELF, MPI_COMM_WORLD, unequal);
    /* A parity half and MPI_COMM_SELF agree only when the half has one rank. */
    int half_size;
    MPI_Comm_size(parity, &half_size);
    errs += expect("parity split vs self", parity, MPI_COMM_SELF,
                   half_size > 1 ? MPI_UNEQUAL : MPI_CONGRUENT);

    /* Freeing one communicator does not change how the others compare. */
    MPI_Comm_free(&dup);
    errs += expect("world vs dup of (freed) dup", MPI_COMM_WORLD, dup_of_dup, MPI_CONGRUENT);

    MPI_Comm_free(&dup_of_dup);
    MPI_Comm_free(&in_order);
    MPI_Comm_free(&reversed);
    MPI_Comm_free(&reversed_again);
    MPI_Comm_free(&parity);
    return mtest_finish(errs);
}
