/*
 * Calls old programs still make: MPI-1's removed MPI_Address, MPI_Type_extent,
 * _lb, _ub, _hvector, _hindexed, _struct and MPI_Errhandler_create/set/get
 * (each the same as its replacement), MPI_Op_commutative, MPI_Win_set_info /
 * get_info (hints accepted) and MPI_Comm_get_parent (no parent).
 */
#include <string.h>

#include "mtest.h"

static int handler_calls;
static void count_errors(MPI_Comm* comm, int* code, ...) {
    (void)comm;
    (void)code;
    handler_calls++;
}

static void user_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
    (void)type;
    for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

/* Two types describe the same layout if they pack a buffer the same way. */
static int same_packing(MPI_Datatype a, MPI_Datatype b) {
    int source[64], pa[64], pb[64], size_a, size_b, pos_a = 0, pos_b = 0;
    for (int i = 0; i < 64; ++i) source[i] = i;
    MPI_Type_size(a, &size_a);
    MPI_Type_size(b, &size_b);
    if (size_a != size_b) return 0;
    MPI_Pack(source, 1, a, pa, sizeof pa, &pos_a, MPI_COMM_SELF);
    MPI_Pack(source, 1, b, pb, sizeof pb, &pos_b, MPI_COMM_SELF);
    return pos_a == pos_b && memcmp(pa, pb, (size_t)pos_a) == 0;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;

    int array[4];
    MPI_Aint old_address = 0, new_address = 1;
    MPI_Address(&array[2], &old_address);
    MPI_Get_address(&array[2], &new_address);
    errs += MT_EQ(old_address, new_address);

    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Aint lb = -1, extent = -1, ub = -1;
    MPI_Type_extent(vec, &extent);
    MPI_Type_lb(vec, &lb);
    MPI_Type_ub(vec, &ub);
    errs += MT_EQ(extent, 10 * (MPI_Aint)sizeof(int));
    errs += MT_EQ(lb, 0);
    errs += MT_EQ(ub, 10 * (MPI_Aint)sizeof(int));

    MPI_Datatype old_h, new_h, old_i, new_i, old_s, new_s;
    MPI_Type_hvector(3, 2, 4 * sizeof(int), MPI_INT, &old_h);
    MPI_Type_create_hvector(3, 2, 4 * sizeof(int), MPI_INT, &new_h);
    int lengths[3] = {1, 3, 2};
    MPI_Aint displs[3] = {0, 5 * sizeof(int), 12 * sizeof(int)};
    MPI_Type_hindexed(3, lengths, displs, MPI_INT, &old_i);
    MPI_Type_create_hindexed(3, lengths, displs, MPI_INT, &new_i);
    MPI_Datatype types[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Type_struct(3, lengths, displs, types, &old_s);
    MPI_Type_create_struct(3, lengths, displs, types, &new_s);
    MPI_Datatype all[6] = {old_h, new_h, old_i, new_i, old_s, new_s};
    for (int i = 0; i < 6; ++i) MPI_Type_commit(&all[i]);
    errs += MT_CHECK(same_packing(all[0], all[1]), "MPI_Type_hvector differs");
    errs += MT_CHECK(same_packing(all[2], all[3]), "MPI_Type_hindexed differs");
    errs += MT_CHECK(same_packing(all[4], all[5]), "MPI_Type_struct differs");
    for (int i = 0; i < 6; ++i) MPI_Type_free(&all[i]);
    MPI_Type_free(&vec);

    MPI_Errhandler handler, got;
    MPI_Errhandler_create(count_errors, &handler);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Errhandler_set(dup, handler);
    MPI_Errhandler_get(dup, &got);
    errs += MT_EQ(got, handler);
    MPI_Errhandler_free(&got);
    int value = 0;
    MPI_Send(&value, -1, MPI_INT, 0, 0, dup); /* a negative count: the handler runs */
    errs += MT_EQ(handler_calls, 1);
    MPI_Errhandler_free(&handler);
    MPI_Comm_free(&dup);

    int commute = -1;
    MPI_Op_commutative(MPI_SUM, &commute);
    errs += MT_EQ(commute, 1);
    MPI_Op op;
    MPI_Op_create(user_sum, 0, &op);
    MPI_Op_commutative(op, &commute);
    errs += MT_EQ(commute, 0);
    MPI_Op_free(&op);

    int* base = NULL;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Info hints, used;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "no_locks", "true");
    MPI_Win_set_info(win, hints);
    MPI_Win_get_info(win, &used);
    int nkeys = -1;
    MPI_Info_get_nkeys(used, &nkeys);
    errs += MT_CHECK(nkeys >= 0, "MPI_Win_get_info: %d keys", nkeys);
    MPI_Info_free(&used);
    MPI_Info_free(&hints);
    MPI_Win_free(&win);

    MPI_Comm parent = MPI_COMM_WORLD;
    MPI_Comm_get_parent(&parent);
    errs += MT_EQ(parent, MPI_COMM_NULL);

    return mtest_finish(errs);
}
