/*
 * The value-index pair types against structs of their parts (MPI 3.1
 * sections 3.3.1 and 5.9.4): a pair type's data is its value and its index,
 * so MPI_DOUBLE_INT is 12 bytes of data in a 16-byte C struct, and a message
 * of a struct type { double, int } matches a receive of MPI_DOUBLE_INT, and
 * the other way round; MPI_SHORT_INT has its padding between the two.
 *   - sizes, extents and MPI_Pack_size of every C pair type;
 *   - structs sent to pair types and pair types to structs, eager and
 *     rendezvous, with MPI_Get_count and MPI_Get_elements, and a message
 *     that ends after a lone value (MPICH's datatype/get_elements_pairtype);
 *   - MPI_MINLOC / MPI_MAXLOC in MPI_Allreduce on MPI_SHORT_INT,
 *     MPI_LONG_DOUBLE_INT and a vector of MPI_DOUBLE_INT;
 *   - MPI_Accumulate and MPI_Get_accumulate with MPI_MINLOC on
 *     MPI_SHORT_INT and MPI_DOUBLE_INT into a window.
 *
 * MPICH 4.0.2 differs, so this runtime alone (SI_MPI) checks: the rendezvous
 * exchanges (MPICH reports a truncation when 480 KB of structs arrive as
 * MPI_DOUBLE_INT from another process), the lone value's contents (MPICH
 * counts it but does not store it) and the reduction over a vector of pairs
 * (MPICH refuses MPI_MAXLOC on derived types).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "mtest.h"

typedef struct {
    double value;
    int index;
} DoubleInt;

typedef struct {
    short value;
    int index;
} ShortInt;

typedef struct {
    long double value;
    int index;
} LongDoubleInt;

/* Rank 0's window in the accumulate test. */
typedef struct {
    ShortInt s[2];
    DoubleInt d;
} Target;

static int check_layout(const char* name, MPI_Datatype type, int data, MPI_Aint extent) {
    int errs = 0, size = -1, pack_size = -1;
    MPI_Aint lb = -1, got_extent = -1;
    MPI_Type_size(type, &size);
    MPI_Type_get_extent(type, &lb, &got_extent);
    MPI_Pack_size(3, type, MPI_COMM_WORLD, &pack_size);
    errs += MT_CHECK(size == data, "%s: size %d, expected %d", name, size, data);
    errs += MT_CHECK(lb == 0 && got_extent == extent, "%s: lb %ld extent %ld, expected 0 and %ld",
                     name, (long)lb, (long)got_extent, (long)extent);
    /* An upper bound, but it leaves out the padding. */
    errs += MT_CHECK(pack_size >= 3 * data && (extent == data || pack_size < 3 * extent),
                     "%s: MPI_Pack_size of 3 is %d, expected 3 x %d", name, pack_size, data);
    return errs;
}

static int layouts(void) {
    int errs = 0;
    errs +=
        check_layout("MPI_FLOAT_INT", MPI_FLOAT_INT, sizeof(float) + sizeof(int), sizeof(struct {
                         float v;
                         int i;
                     }));
    errs += check_layout("MPI_DOUBLE_INT", MPI_DOUBLE_INT, sizeof(double) + sizeof(int),
                         sizeof(DoubleInt));
    errs += check_layout("MPI_LONG_INT", MPI_LONG_INT, sizeof(long) + sizeof(int), sizeof(struct {
                             long v;
                             int i;
                         }));
    errs += check_layout("MPI_2INT", MPI_2INT, 2 * sizeof(int), 2 * sizeof(int));
    errs +=
        check_layout("MPI_SHORT_INT", MPI_SHORT_INT, sizeof(short) + sizeof(int), sizeof(ShortInt));
    errs += check_layout("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT,
                         sizeof(long double) + sizeof(int), sizeof(LongDoubleInt));
    return errs;
}

/* A struct type of a value of `value_type` and an int, laid out as `pair`. */
static MPI_Datatype struct_of(MPI_Datatype value_type, MPI_Aint index_offset, MPI_Aint extent) {
    int lengths[2] = {1, 1};
    MPI_Aint offsets[2] = {0, index_offset};
    MPI_Datatype types[2] = {value_type, MPI_INT};
    MPI_Datatype raw, type;
    MPI_Type_create_struct(2, lengths, offsets, types, &raw);
    MPI_Type_create_resized(raw, 0, extent, &type);
    MPI_Type_free(&raw);
    MPI_Type_commit(&type);
    return type;
}

/* n pairs to the right neighbour as one type, received from the left as the
 * other, in both directions of matching; the ring makes every rank both. */
static int exchange(int n, int struct_sends) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype as_struct = struct_of(MPI_DOUBLE, offsetof(DoubleInt, index), sizeof(DoubleInt));
    MPI_Datatype send_type = struct_sends ? as_struct : MPI_DOUBLE_INT;
    MPI_Datatype recv_type = struct_sends ? MPI_DOUBLE_INT : as_struct;
    DoubleInt* out = mtest_malloc((size_t)n * sizeof *out);
    DoubleInt* in = mtest_malloc((size_t)n * sizeof *in);
    for (int i = 0; i < n; ++i) {
        out[i].value = rank * 1000.0 + i + 0.5;
        out[i].index = rank * 7 + i;
        in[i].value = -1.0;
        in[i].index = -1;
    }
    MPI_Status status;
    MPI_Sendrecv(out, n, send_type, right, 1, in, n, recv_type, left, 1, MPI_COMM_WORLD, &status);
    int count = -1, elements = -1;
    MPI_Get_count(&status, recv_type, &count);
    MPI_Get_elements(&status, recv_type, &elements);
    errs += MT_CHECK(count == n && elements == 2 * n, "%d pairs (%s sends): count %d, elements %d",
                     n, struct_sends ? "struct" : "MPI_DOUBLE_INT", count, elements);
    for (int i = 0; i < n; ++i) {
        if (in[i].value != left * 1000.0 + i + 0.5 || in[i].index != left * 7 + i) {
            errs += MT_CHECK(0, "%d pairs: pair %d is (%g, %d), expected (%g, %d)", n, i,
                             in[i].value, in[i].index, left * 1000.0 + i + 0.5, left * 7 + i);
            break;
        }
    }
    free(out);
    free(in);
    MPI_Type_free(&as_struct);
    return errs;
}

/* { short, int } structs into MPI_SHORT_INT, whose padding is in the middle,
 * and a message that stops after a lone value: 3 elements, no whole count. */
static int short_pairs_and_a_lone_value(void) {
    int errs = 0;
    MPI_Datatype as_struct = struct_of(MPI_SHORT, offsetof(ShortInt, index), sizeof(ShortInt));
    ShortInt out[2] = {{-3, 11}, {4, 12}}, in[2] = {{0, 0}, {0, 0}};
    MPI_Status status;
    MPI_Sendrecv(out, 2, as_struct, 0, 2, in, 2, MPI_SHORT_INT, 0, 2, MPI_COMM_SELF, &status);
    errs +=
        MT_CHECK(in[0].value == -3 && in[0].index == 11 && in[1].value == 4 && in[1].index == 12,
                 "MPI_SHORT_INT from structs: (%d, %d) (%d, %d)", in[0].value, in[0].index,
                 in[1].value, in[1].index);

    int lengths[3] = {1, 1, 1};
    MPI_Aint offsets[3] = {offsetof(DoubleInt, value), offsetof(DoubleInt, index),
                           sizeof(DoubleInt)};
    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_DOUBLE};
    MPI_Datatype three;
    MPI_Type_create_struct(3, lengths, offsets, types, &three);
    MPI_Type_commit(&three);
    DoubleInt sent[2] = {{1.0, 1}, {2.0, 2}}, got[2] = {{0.0, 0}, {0.0, 0}};
    MPI_Sendrecv(sent, 1, three, 0, 3, got, 2, MPI_DOUBLE_INT, 0, 3, MPI_COMM_SELF, &status);
    int count = 0, elements = 0;
    MPI_Get_count(&status, MPI_DOUBLE_INT, &count);
    MPI_Get_elements(&status, MPI_DOUBLE_INT, &elements);
    errs +=
        MT_CHECK(count == MPI_UNDEFINED && elements == 3,
                 "double, int, double as MPI_DOUBLE_INT: count %d, elements %d", count, elements);
#ifdef SI_MPI
    errs += MT_CHECK(got[1].value == 2.0, "the lone value arrived as %g", got[1].value);
#endif
    MPI_Type_free(&three);
    MPI_Type_free(&as_struct);
    return errs;
}

/* MPI_MINLOC / MPI_MAXLOC over the ranks: value rank % 3 (ties), index the rank. */
static int reductions(void) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int top = size >= 3 ? 2 : size - 1; /* the largest rank % 3 */
    ShortInt s[2] = {{(short)(rank % 3), rank}, {(short)(-(rank % 3)), rank}}, smin[2];
    MPI_Allreduce(s, smin, 2, MPI_SHORT_INT, MPI_MINLOC, MPI_COMM_WORLD);
    errs += MT_CHECK(
        smin[0].value == 0 && smin[0].index == 0 && smin[1].value == -top && smin[1].index == top,
        "MINLOC on MPI_SHORT_INT: (%d, %d) (%d, %d)", smin[0].value, smin[0].index, smin[1].value,
        smin[1].index);

    LongDoubleInt l = {(long double)(rank % 3) / 3, rank}, lmax;
    MPI_Allreduce(&l, &lmax, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    errs += MT_CHECK(lmax.value == (long double)top / 3 && lmax.index == top,
                     "MAXLOC on MPI_LONG_DOUBLE_INT: (%Lg, %d)", lmax.value, lmax.index);

#ifdef SI_MPI
    /* Every other one of 6 MPI_DOUBLE_INTs: a derived type of a padded pair. */
    MPI_Datatype every_other;
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE_INT, &every_other);
    MPI_Type_commit(&every_other);
    DoubleInt d[6], dmax[6];
    for (int i = 0; i < 6; ++i) {
        d[i].value = (rank + i) % size;
        d[i].index = rank;
        dmax[i].value = -1.0;
        dmax[i].index = -1;
    }
    MPI_Allreduce(d, dmax, 1, every_other, MPI_MAXLOC, MPI_COMM_WORLD);
    for (int i = 0; i < 6; ++i) {
        const int owner = (size - 1 - i % size + size) % size; /* (owner + i) % size is largest */
        const double value = i % 2 == 0 ? size - 1 : -1.0;
        const int index = i % 2 == 0 ? owner : -1;
        errs += MT_CHECK(dmax[i].value == value && dmax[i].index == index,
                         "MAXLOC on a vector of MPI_DOUBLE_INT, item %d: (%g, %d), expected "
                         "(%g, %d)",
                         i, dmax[i].value, dmax[i].index, value, index);
    }
    MPI_Type_free(&every_other);
#endif
    return errs;
}

/* Every rank accumulates (its rank % 3, its rank) with MPI_MINLOC into rank
 * 0's window, then fetches the result with MPI_Get_accumulate and MPI_NO_OP. */
static int accumulates(void) {
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Target* memory;
    MPI_Win win;
    MPI_Win_allocate(sizeof *memory, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &memory, &win);
    memory->s[0].value = memory->s[1].value = 100;
    memory->s[0].index = memory->s[1].index = -1;
    memory->d.value = 100.0;
    memory->d.index = -1;
    MPI_Win_fence(0, win);
    const int mine = size - 1 - rank; /* the lowest value comes from the highest rank */
    ShortInt s[2] = {{(short)mine, rank}, {(short)(mine + 1), rank}};
    DoubleInt d = {mine + 0.25, rank};
    MPI_Accumulate(s, 2, MPI_SHORT_INT, 0, 0, 2, MPI_SHORT_INT, MPI_MINLOC, win);
    MPI_Accumulate(&d, 1, MPI_DOUBLE_INT, 0, offsetof(Target, d), 1, MPI_DOUBLE_INT, MPI_MINLOC,
                   win);
    MPI_Win_fence(0, win);
    ShortInt fetched[2];
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get_accumulate(NULL, 0, MPI_SHORT_INT, fetched, 2, MPI_SHORT_INT, 0, 0, 2, MPI_SHORT_INT,
                       MPI_NO_OP, win);
    MPI_Win_unlock(0, win);
    errs += MT_CHECK(fetched[0].value == 0 && fetched[0].index == size - 1 &&
                         fetched[1].value == 1 && fetched[1].index == size - 1,
                     "MINLOC accumulates on MPI_SHORT_INT: (%d, %d) (%d, %d)", fetched[0].value,
                     fetched[0].index, fetched[1].value, fetched[1].index);
    if (rank == 0)
        errs += MT_CHECK(memory->d.value == 0.25 && memory->d.index == size - 1,
                         "MINLOC accumulates on MPI_DOUBLE_INT: (%g, %d)", memory->d.value,
                         memory->d.index);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = layouts();
    errs += exchange(10, 1);
    errs += exchange(10, 0);
#ifdef SI_MPI
    errs += exchange(40000, 1); /* 480 KB: rendezvous */
    errs += exchange(40000, 0);
#endif
    errs += short_pairs_and_a_lone_value();
    errs += reductions();
    errs += accumulates();
    return mtest_finish(errs);
}
