/*
 * Non-contiguous messages point to point, between pairs of ranks, at eager
 * and rendezvous sizes: a strided vector sent and received as contiguous
 * doubles and the reverse (the receive's holes must stay untouched), with
 * blocking, nonblocking, persistent, buffered and matched-probe calls,
 * MPI_Sendrecv_replace on a strided type, and a struct of mixed members.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int g_rank, g_size;

static double value_of(int rank, int round, int i) {
    return rank * 1000000.0 + round * 1000 + i;
}

/* Every other double of a 2n array: the vector type and its contents. */
static MPI_Datatype strided(int n) {
    MPI_Datatype t;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

static int verify_strided(const char* what, const double* buf, int n, int rank, int round) {
    int errs = 0;
    for (int i = 0; i < n && errs < 3; ++i) {
        errs += MT_CHECK(buf[2 * i] == value_of(rank, round, i), "%s: element %d is %g", what, i,
                         buf[2 * i]);
        errs += MT_CHECK(buf[2 * i + 1] == -1.0, "%s: hole %d was written (%g)", what, i,
                         buf[2 * i + 1]);
    }
    return errs;
}

static int verify_dense(const char* what, const double* buf, int n, int rank, int round) {
    int errs = 0;
    for (int i = 0; i < n && errs < 3; ++i)
        errs +=
            MT_CHECK(buf[i] == value_of(rank, round, i), "%s: element %d is %g", what, i, buf[i]);
    return errs;
}

static int exchange(int n, int partner) {
    int errs = 0;
    MPI_Datatype t = strided(n);
    double* sparse = mtest_malloc(2 * (size_t)n * sizeof(double));
    double* dense = mtest_malloc((size_t)n * sizeof(double));
    for (int round = 0; round < 6; ++round) {
        /* Sender side: sparse holds this rank's values, holes -1. */
        for (int i = 0; i < n; ++i) {
            sparse[2 * i] = value_of(g_rank, round, i);
            sparse[2 * i + 1] = -1.0;
        }
        memset(dense, 0, (size_t)n * sizeof(double));
        MPI_Request requests[2];
        switch (round) {
            case 0: /* blocking, vector out, dense in */
                MPI_Sendrecv(sparse, 1, t, partner, 0, dense, n, MPI_DOUBLE, partner, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                errs += verify_dense("vector to dense", dense, n, partner, round);
                break;
            case 1: /* nonblocking, dense out, vector in */
                for (int i = 0; i < n; ++i) dense[i] = value_of(g_rank, round, i);
                for (int i = 0; i < 2 * n; ++i) sparse[i] = -1.0;
                MPI_Irecv(sparse, 1, t, partner, 1, MPI_COMM_WORLD, &requests[0]);
                MPI_Isend(dense, n, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, &requests[1]);
                MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
                errs += verify_strided("dense to vector", sparse, n, partner, round);
                break;
            case 2: { /* persistent, vector both ways */
                double* in = mtest_malloc(2 * (size_t)n * sizeof(double));
                for (int i = 0; i < 2 * n; ++i) in[i] = -1.0;
                MPI_Recv_init(in, 1, t, partner, 2, MPI_COMM_WORLD, &requests[0]);
                MPI_Send_init(sparse, 1, t, partner, 2, MPI_COMM_WORLD, &requests[1]);
                MPI_Startall(2, requests);
                MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
                errs += verify_strided("persistent vector", in, n, partner, round);
                MPI_Request_free(&requests[0]);
                MPI_Request_free(&requests[1]);
                free(in);
                break;
            }
            case 3: { /* buffered send of a vector, matched probe into dense */
                int size = 0;
                MPI_Pack_size(1, t, MPI_COMM_WORLD, &size);
                size += MPI_BSEND_OVERHEAD;
                void* buffer = mtest_malloc((size_t)size);
                MPI_Buffer_attach(buffer, size);
                MPI_Bsend(sparse, 1, t, partner, 3, MPI_COMM_WORLD);
                MPI_Message message;
                MPI_Status status;
                int count = -1;
                MPI_Mprobe(partner, 3, MPI_COMM_WORLD, &message, &status);
                MPI_Get_count(&status, MPI_DOUBLE, &count);
                errs += MT_EQ(count, n);
                MPI_Mrecv(dense, n, MPI_DOUBLE, &message, MPI_STATUS_IGNORE);
                errs += verify_dense("bsend, mrecv", dense, n, partner, round);
                MPI_Buffer_detach(&buffer, &size);
                free(buffer);
                break;
            }
            case 4: /* in place: the partner's values replace ours, holes kept */
                MPI_Sendrecv_replace(sparse, 1, t, partner, 4, partner, 4, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE);
                errs += verify_strided("sendrecv_replace", sparse, n, partner, round);
                break;
            default: { /* synchronous send of a vector into a vector */
                double* in = mtest_malloc(2 * (size_t)n * sizeof(double));
                for (int i = 0; i < 2 * n; ++i) in[i] = -1.0;
                MPI_Irecv(in, 1, t, partner, 5, MPI_COMM_WORLD, &requests[0]);
                MPI_Ssend(sparse, 1, t, partner, 5, MPI_COMM_WORLD);
                MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
                errs += verify_strided("ssend vector", in, n, partner, round);
                free(in);
                break;
            }
        }
    }
    free(sparse);
    free(dense);
    MPI_Type_free(&t);
    return errs;
}

/* A struct with a hole between its members, two items per message. */
static int mixed_struct(int partner) {
    struct record {
        char tag;
        double value;
        int index;
    };
    int errs = 0;
    const int lengths[] = {1, 1, 1};
    const MPI_Aint offsets[] = {offsetof(struct record, tag), offsetof(struct record, value),
                                offsetof(struct record, index)};
    const MPI_Datatype members[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Datatype t;
    MPI_Type_create_struct(3, lengths, offsets, members, &t);
    MPI_Type_commit(&t);
    struct record out[2], in[2];
    for (int i = 0; i < 2; ++i) {
        out[i].tag = (char)('a' + g_rank);
        out[i].value = g_rank + 0.5 * i;
        out[i].index = 10 * g_rank + i;
    }
    memset(in, 0, sizeof in);
    MPI_Status status;
    MPI_Sendrecv(out, 2, t, partner, 6, in, 2, t, partner, 6, MPI_COMM_WORLD, &status);
    for (int i = 0; i < 2; ++i) {
        errs += MT_EQ(in[i].tag, 'a' + partner);
        errs += MT_CHECK(in[i].value == partner + 0.5 * i, "value %d is %g", i, in[i].value);
        errs += MT_EQ(in[i].index, 10 * partner + i);
    }
    int count = -1, elements = -1;
    MPI_Get_count(&status, t, &count);
    MPI_Get_elements(&status, t, &elements);
    errs += MT_EQ(count, 2);
    errs += MT_EQ(elements, 6);
    MPI_Type_free(&t);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = 0;
    const int partner = g_rank ^ 1;
    if (partner < g_size) {
        static const int kCounts[] = {1, 100, 3000, 1 << 17};
        for (size_t i = 0; i < sizeof kCounts / sizeof kCounts[0]; ++i)
            errs += exchange(kCounts[i], partner);
        errs += mixed_struct(partner);
    }
    return mtest_finish(errs);
}
