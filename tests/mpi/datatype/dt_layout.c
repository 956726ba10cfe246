/*
 * Derived datatype constructors and queries on one rank (MPI 3.1 sections
 * 4.1 and 4.2): the size, bounds and true bounds of vector, hvector,
 * indexed, indexed_block, hindexed, struct (padded to its alignment),
 * subarray in both orders, resized and dup; MPI_Pack / MPI_Unpack along a
 * type map; MPI_Get_count and MPI_Get_elements of a message received with a
 * type whose items it does not fill; absolute addresses with MPI_BOTTOM;
 * and the error classes of bad constructor arguments (and of a type map too
 * large for this runtime).
 */
#include <stddef.h>
#include <string.h>

#include "mtest.h"

static int check_layout(const char* what, MPI_Datatype type, int size, MPI_Aint lb, MPI_Aint extent,
                        MPI_Aint true_lb, MPI_Aint true_extent) {
    int errs = 0, got_size = -1;
    MPI_Aint got_lb, got_extent, got_true_lb, got_true_extent;
    MPI_Type_size(type, &got_size);
    MPI_Type_get_extent(type, &got_lb, &got_extent);
    MPI_Type_get_true_extent(type, &got_true_lb, &got_true_extent);
    errs += MT_CHECK(got_size == size, "%s: size %d, expected %d", what, got_size, size);
    errs +=
        MT_CHECK(got_lb == lb && got_extent == extent, "%s: lb %ld extent %ld, expected %ld %ld",
                 what, (long)got_lb, (long)got_extent, (long)lb, (long)extent);
    errs += MT_CHECK(got_true_lb == true_lb && got_true_extent == true_extent,
                     "%s: true lb %ld extent %ld, expected %ld %ld", what, (long)got_true_lb,
                     (long)got_true_extent, (long)true_lb, (long)true_extent);
    return errs;
}

static int constructors(void) {
    int errs = 0;
    MPI_Datatype t;
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    errs += check_layout("vector(3, 2, 4, MPI_INT)", t, 24, 0, 40, 0, 40);
    MPI_Type_free(&t);

    MPI_Type_create_hvector(2, 1, 16, MPI_DOUBLE, &t);
    errs += check_layout("hvector(2, 1, 16 B, MPI_DOUBLE)", t, 16, 0, 24, 0, 24);
    MPI_Type_free(&t);

    const int lengths[] = {2, 1}, displacements[] = {0, 5};
    MPI_Type_indexed(2, lengths, displacements, MPI_INT, &t);
    errs += check_layout("indexed([2, 1], [0, 5], MPI_INT)", t, 12, 0, 24, 0, 24);
    MPI_Type_free(&t);

    const int block_displacements[] = {1, 4};
    MPI_Type_create_indexed_block(2, 2, block_displacements, MPI_INT, &t);
    errs += check_layout("indexed_block(2, 2, [1, 4], MPI_INT)", t, 16, 4, 20, 4, 20);
    MPI_Type_free(&t);

    const MPI_Aint byte_displacements[] = {8, 0};
    MPI_Type_create_hindexed(2, lengths, byte_displacements, MPI_SHORT, &t);
    errs += check_layout("hindexed([2, 1], [8, 0] B, MPI_SHORT)", t, 6, 0, 12, 0, 12);
    MPI_Type_free(&t);

    struct pair {
        char c;
        double d;
    };
    const int ones[] = {1, 1};
    const MPI_Aint offsets[] = {offsetof(struct pair, c), offsetof(struct pair, d)};
    const MPI_Datatype members[] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Type_create_struct(2, ones, offsets, members, &t);
    errs += check_layout("struct {char; double}", t, 9, 0, (MPI_Aint)sizeof(struct pair), 0,
                         (MPI_Aint)sizeof(struct pair));
    MPI_Type_free(&t);

    const int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 1};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t);
    errs += check_layout("subarray C 4x5 [1:3, 1:4]", t, 24, 0, 80, 24, 32);
    MPI_Type_free(&t);
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
    /* Fortran order: the first dimension varies fastest (4 rows of 5 columns). */
    errs += check_layout("subarray Fortran 4x5 [1:3, 1:4]", t, 24, 0, 80, 20, 40);
    MPI_Type_free(&t);

    MPI_Type_create_resized(MPI_INT, -4, 12, &t);
    errs += check_layout("resized(MPI_INT, -4, 12)", t, 4, -4, 12, 0, 4);
    MPI_Type_free(&t);

    /* A duplicate of a committed type is committed: it sends at once. */
    MPI_Datatype column, copy;
    MPI_Type_vector(2, 1, 3, MPI_INT, &column);
    MPI_Type_commit(&column);
    MPI_Type_dup(column, &copy);
    errs += check_layout("dup(vector(2, 1, 3))", copy, 8, 0, 16, 0, 16);
    int in[6] = {1, 2, 3, 4, 5, 6}, out[2] = {0, 0};
    MPI_Sendrecv(in, 1, copy, 0, 1, out, 2, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    errs += MT_EQ(out[0], 1);
    errs += MT_EQ(out[1], 4);
    MPI_Type_free(&copy);
    MPI_Type_free(&column);
    return errs;
}

static int pack_unpack(void) {
    int errs = 0;
    MPI_Datatype t;
    MPI_Type_vector(3, 2, 4, MPI_INT, &t); /* elements 0,1, 4,5, 8,9 of each item */
    MPI_Type_commit(&t);
    int source[20], unpacked[20], packed_size = 0, position = 0;
    for (int i = 0; i < 20; ++i) source[i] = i + 1;
    char packed[256];
    MPI_Pack_size(2, t, MPI_COMM_SELF, &packed_size);
    errs += MT_CHECK(packed_size >= 48, "MPI_Pack_size of 2 vectors is %d", packed_size);
    MPI_Pack(source, 2, t, packed, (int)sizeof packed, &position, MPI_COMM_SELF);
    errs += MT_EQ(position, 48);
    const int expected[] = {1, 2, 5, 6, 9, 10, 11, 12, 15, 16, 19, 20};
    errs += MT_CHECK(memcmp(packed, expected, sizeof expected) == 0, "packed data differs");
    memset(unpacked, 0, sizeof unpacked);
    position = 0;
    MPI_Unpack(packed, 48, &position, unpacked, 2, t, MPI_COMM_SELF);
    errs += MT_EQ(position, 48);
    for (int i = 0; i < 20; ++i) {
        const int in_type = (i % 10) % 4 < 2; /* item i / 10, ints 0, 1, 4, 5, 8, 9 */
        errs += MT_CHECK(unpacked[i] == (in_type ? source[i] : 0), "unpacked[%d] is %d", i,
                         unpacked[i]);
    }
    MPI_Type_free(&t);
    return errs;
}

/* Five ints received with a type of two ints per item: 2.5 items. */
static int count_and_elements(void) {
    int errs = 0, count = -1, elements = -1;
    int out[5] = {1, 2, 3, 4, 5}, in[6];
    MPI_Datatype two;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&two);
    MPI_Status status;
    MPI_Sendrecv(out, 5, MPI_INT, 0, 2, in, 3, two, 0, 2, MPI_COMM_SELF, &status);
    MPI_Get_count(&status, two, &count);
    MPI_Get_elements(&status, two, &elements);
    errs += MT_EQ(count, MPI_UNDEFINED);
    errs += MT_EQ(elements, 5);
    MPI_Get_count(&status, MPI_INT, &count);
    errs += MT_EQ(count, 5);
    MPI_Type_free(&two);
    return errs;
}

/* A struct of absolute addresses, sent from and received into MPI_BOTTOM. */
static int absolute_addresses(void) {
    int errs = 0, a = 11, a_in = 0;
    double b = 2.5, b_in = 0;
    MPI_Aint address[2], address_in[2];
    MPI_Get_address(&a, &address[0]);
    MPI_Get_address(&b, &address[1]);
    MPI_Get_address(&a_in, &address_in[0]);
    MPI_Get_address(&b_in, &address_in[1]);
    const int ones[] = {1, 1};
    const MPI_Datatype members[] = {MPI_INT, MPI_DOUBLE};
    MPI_Datatype out_type, in_type;
    MPI_Type_create_struct(2, ones, address, members, &out_type);
    MPI_Type_create_struct(2, ones, address_in, members, &in_type);
    MPI_Type_commit(&out_type);
    MPI_Type_commit(&in_type);
    MPI_Sendrecv(MPI_BOTTOM, 1, out_type, 0, 3, MPI_BOTTOM, 1, in_type, 0, 3, MPI_COMM_SELF,
                 MPI_STATUS_IGNORE);
    errs += MT_EQ(a_in, 11);
    errs += MT_CHECK(b_in == 2.5, "b_in is %g", b_in);
    MPI_Type_free(&out_type);
    MPI_Type_free(&in_type);
    return errs;
}

static int bad_arguments(void) {
    int errs = 0;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    errs += MT_CLASS(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    errs += MT_CLASS(MPI_Type_vector(1, 1, 1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
#ifdef SI_MPI /* MPICH 4.0 accepts a subarray larger than its array */
    const int sizes[] = {4}, subsizes[] = {5}, starts[] = {0};
    errs += MT_CLASS(MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG);
    /* A type map of 2^30 runs: refused at once, not an allocation that kills
       the process (MPICH, which describes a vector compactly, builds it). */
    MPI_Datatype four;
    MPI_Type_contiguous(4, MPI_INT, &four);
    t = MPI_DATATYPE_NULL;
    errs += MT_CLASS(MPI_Type_vector(1 << 30, 1, 3, four, &t), MPI_ERR_INTERN);
    errs += MT_CHECK(t == MPI_DATATYPE_NULL, "a refused constructor set newtype");
    MPI_Type_free(&four);
#endif
    /* An uncommitted type does not send. */
    MPI_Type_contiguous(2, MPI_INT, &t);
    int value[2] = {0, 0};
    errs += MT_CLASS(MPI_Send(value, 1, t, 0, 4, MPI_COMM_SELF), MPI_ERR_TYPE);
    MPI_Type_free(&t);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = constructors();
    errs += pack_unpack();
    errs += count_and_elements();
    errs += absolute_addresses();
    errs += bad_arguments();
    return mtest_finish(errs);
}
