/*
 * MPI_Type_get_envelope and MPI_Type_get_contents for every constructor:
 * the combiner, the counts, the integers, addresses and old types in the
 * standard's order; predefined types are MPI_COMBINER_NAMED; a derived old
 * type comes back as a new handle that describes the same type even after
 * the program freed the original.
 */
#include <string.h>

#include "mtest.h"

/* Checks the envelope of t and, unless named, its contents against the
 * expected arrays (types compared by handle for predefined ones, by size and
 * extent for derived ones; returned derived types are freed). */
static int check(const char* what, MPI_Datatype t, int combiner, int ni, const int* ints, int na,
                 const MPI_Aint* addrs, int nd, const MPI_Datatype* types) {
    int errs = 0, gi, ga, gd, gc;
    MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc);
    errs += MT_CHECK(gc == combiner && gi == ni && ga == na && gd == nd,
                     "%s: envelope (%d, %d, %d, combiner %d), expected (%d, %d, %d, %d)", what, gi,
                     ga, gd, gc, ni, na, nd, combiner);
    if (errs || combiner == MPI_COMBINER_NAMED) return errs;
    int ri[32];
    MPI_Aint ra[32];
    MPI_Datatype rt[32];
    MPI_Type_get_contents(t, 32, 32, 32, ri, ra, rt);
    for (int i = 0; i < ni; ++i)
        errs += MT_CHECK(ri[i] == ints[i], "%s: integer %d is %d, expected %d", what, i, ri[i],
                         ints[i]);
    for (int i = 0; i < na; ++i)
        errs += MT_CHECK(ra[i] == addrs[i], "%s: address %d is %ld, expected %ld", what, i,
                         (long)ra[i], (long)addrs[i]);
    for (int i = 0; i < nd; ++i) {
        int c, x, y, z;
        MPI_Type_get_envelope(types[i], &x, &y, &z, &c);
        if (c == MPI_COMBINER_NAMED) {
            errs += MT_CHECK(rt[i] == types[i], "%s: type %d differs", what, i);
            continue;
        }
        int s1, s2;
        MPI_Aint lb1, e1, lb2, e2;
        MPI_Type_size(rt[i], &s1);
        MPI_Type_size(types[i], &s2);
        MPI_Type_get_extent(rt[i], &lb1, &e1);
        MPI_Type_get_extent(types[i], &lb2, &e2);
        errs +=
            MT_CHECK(s1 == s2 && lb1 == lb2 && e1 == e2, "%s: derived type %d differs", what, i);
        MPI_Type_free(&rt[i]);
    }
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    errs += check("MPI_INT", MPI_INT, MPI_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL);
    errs += check("MPI_DOUBLE_INT", MPI_DOUBLE_INT, MPI_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL);

    MPI_Datatype contig, vec, hvec, idx, hidx, blk, hblk, st, sub, res, dup;
    MPI_Type_contiguous(3, MPI_INT, &contig);
    errs += check("contiguous", contig, MPI_COMBINER_CONTIGUOUS, 1, (int[]){3}, 0, NULL, 1,
                  (MPI_Datatype[]){MPI_INT});

    MPI_Type_vector(2, 3, 5, contig, &vec);
    errs += check("vector", vec, MPI_COMBINER_VECTOR, 3, (int[]){2, 3, 5}, 0, NULL, 1,
                  (MPI_Datatype[]){contig});
    MPI_Type_create_hvector(2, 1, 40, MPI_DOUBLE, &hvec);
    errs += check("hvector", hvec, MPI_COMBINER_HVECTOR, 2, (int[]){2, 1}, 1, (MPI_Aint[]){40}, 1,
                  (MPI_Datatype[]){MPI_DOUBLE});

    const int bl[2] = {1, 2}, di[2] = {4, 0};
    const MPI_Aint da[2] = {16, 0};
    MPI_Type_indexed(2, bl, di, MPI_SHORT, &idx);
    errs += check("indexed", idx, MPI_COMBINER_INDEXED, 5, (int[]){2, 1, 2, 4, 0}, 0, NULL, 1,
                  (MPI_Datatype[]){MPI_SHORT});
    MPI_Type_create_hindexed(2, bl, da, MPI_SHORT, &hidx);
    errs += check("hindexed", hidx, MPI_COMBINER_HINDEXED, 3, (int[]){2, 1, 2}, 2, da, 1,
                  (MPI_Datatype[]){MPI_SHORT});
    MPI_Type_create_indexed_block(2, 3, di, MPI_CHAR, &blk);
    errs += check("indexed_block", blk, MPI_COMBINER_INDEXED_BLOCK, 4, (int[]){2, 3, 4, 0}, 0, NULL,
                  1, (MPI_Datatype[]){MPI_CHAR});
    MPI_Type_create_hindexed_block(2, 3, da, MPI_CHAR, &hblk);
    errs += check("hindexed_block", hblk, MPI_COMBINER_HINDEXED_BLOCK, 2, (int[]){2, 3}, 2, da, 1,
                  (MPI_Datatype[]){MPI_CHAR});

    const MPI_Datatype members[2] = {MPI_INT, vec};
    MPI_Type_create_struct(2, bl, da, members, &st);
    errs += check("struct", st, MPI_COMBINER_STRUCT, 3, (int[]){2, 1, 2}, 2, da, 2, members);

    const int sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_FLOAT, &sub);
    errs +=
        check("subarray", sub, MPI_COMBINER_SUBARRAY, 8, (int[]){2, 4, 6, 2, 3, 1, 2, MPI_ORDER_C},
              0, NULL, 1, (MPI_Datatype[]){MPI_FLOAT});

    MPI_Type_create_resized(contig, -4, 32, &res);
    errs += check("resized", res, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Aint[]){-4, 32}, 1,
                  (MPI_Datatype[]){contig});
    MPI_Type_dup(res, &dup);
    errs += check("dup", dup, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, (MPI_Datatype[]){res});

    /* The old type is freed; the vector still describes it. */
    MPI_Datatype keep;
    MPI_Type_dup(contig, &keep);
    MPI_Type_free(&contig);
    int ri[3];
    MPI_Datatype old;
    MPI_Type_get_contents(vec, 3, 0, 1, ri, NULL, &old);
    int size;
    MPI_Type_size(old, &size);
    errs += MT_EQ(size, 3 * (int)sizeof(int));
    int c, x, y, z;
    MPI_Type_get_envelope(old, &x, &y, &z, &c);
    errs += MT_EQ(c, MPI_COMBINER_CONTIGUOUS);
    MPI_Type_free(&old);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += MT_CLASS(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);
#ifdef SI_MPI
    /* MPICH 4.0.2 does not check the room given. */
    errs += MT_CLASS(MPI_Type_get_contents(vec, 2, 0, 1, ri, NULL, &old), MPI_ERR_ARG);
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Datatype* all[] = {&keep, &vec, &hvec, &idx, &hidx, &blk, &hblk, &st, &sub, &res, &dup};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) MPI_Type_free(all[i]);
    return mtest_finish(errs);
}
