/*
 * MPI_Comm_dup gives a new communication context: traffic on the dup never
 * matches receives on the parent, even with MPI_ANY_SOURCE/MPI_ANY_TAG and
 * identical tags (this is what lets a library use its own dup safely).
 * Also: collectives on parent and dup interleaved, many dups alive at once
 * and many created and freed (context ids must be recycled correctly),
 * names (not inherited by the dup), and MPI_COMM_SELF.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kTag = 3, kBig = 100000 };
static int g_rank, g_size;

/* Rank s sends on the dup FIRST, then on the parent, same tag. The receiver's
 * wildcard receive on the parent, posted before or after the messages
 * arrive, must get the parent's message. */
static int isolation(MPI_Comm parent, MPI_Comm dup, int prepost, int bytes) {
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    int errs = 0, count;
    unsigned char* on_dup = mtest_malloc((size_t)bytes);
    unsigned char* on_parent = mtest_malloc((size_t)bytes);
    unsigned char* in_parent = mtest_malloc((size_t)bytes);
    unsigned char* in_dup = mtest_malloc((size_t)bytes);
    MPI_Request sreq[2], rreq = MPI_REQUEST_NULL;
    MPI_Status status;
    mtest_fill(on_dup, (size_t)bytes, 1000 + (unsigned)g_rank);
    mtest_fill(on_parent, (size_t)bytes, 2000 + (unsigned)g_rank);

    if (prepost) MPI_Irecv(in_parent, bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, parent, &rreq);
    MPI_Barrier(parent);
    MPI_Isend(on_dup, bytes, MPI_BYTE, right, kTag, dup, &sreq[0]);
    MPI_Isend(on_parent, bytes, MPI_BYTE, right, kTag, parent, &sreq[1]);
    if (!prepost) {
        /* Make sure the dup's message is here before the parent receive is posted. */
        MPI_Probe(left, kTag, dup, &status);
        MPI_Irecv(in_parent, bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, parent, &rreq);
    }
    MPI_Wait(&rreq, &status);
    MPI_Get_count(&status, MPI_BYTE, &count);
    errs += MT_EQ(status.MPI_SOURCE, left);
    errs += MT_EQ(count, bytes);
    errs += MT_VERIFY("wildcard receive on the parent", in_parent, (size_t)bytes,
                      2000 + (unsigned)left);
    MPI_Recv(in_dup, bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &status);
    errs += MT_EQ(status.MPI_SOURCE, left);
    errs += MT_VERIFY("receive on the dup", in_dup, (size_t)bytes, 1000 + (unsigned)left);
    MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE);
    free(on_dup);
    free(on_parent);
    free(in_parent);
    free(in_dup);
    return errs;
}

/* Collectives on two communicators interleaved, with different roots. */
static int interleaved_collectives(MPI_Comm a, MPI_Comm b) {
    int errs = 0;
    for (int i = 0; i < 4; ++i) {
        int x = g_rank == 0 ? 100 + i : -1, y = g_rank == g_size - 1 ? 200 + i : -1, sum = 0;
        MPI_Bcast(&x, 1, MPI_INT, 0, a);
        MPI_Bcast(&y, 1, MPI_INT, g_size - 1, b);
        MPI_Allreduce(&g_rank, &sum, 1, MPI_INT, MPI_SUM, a);
        errs += MT_EQ(x, 100 + i);
        errs += MT_EQ(y, 200 + i);
        errs += MT_EQ(sum, g_size * (g_size - 1) / 2);
    }
    return errs;
}

/* Many dups at once, traffic on each (same tag everywhere), freed in an
 * order different from creation; then create/free cycles. */
static int many(void) {
    enum { kAlive = 12, kCycles = 16 };
    int errs = 0;
    MPI_Comm comms[kAlive];
    for (int i = 0; i < kAlive; ++i)
        MPI_Comm_dup(i == 0 ? MPI_COMM_WORLD : comms[i - 1], &comms[i]);
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    MPI_Request req[2 * kAlive];
    int out[kAlive], in[kAlive];
    for (int i = 0; i < kAlive; ++i) {
        out[i] = g_rank * 100 + i;
        MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[i], &req[i]);
    }
    for (int i = kAlive - 1; i >= 0; --i)
        MPI_Isend(&out[i], 1, MPI_INT, right, 0, comms[i], &req[kAlive + i]);
    MPI_Waitall(2 * kAlive, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < kAlive; ++i) errs += MT_EQ(in[i], left * 100 + i);
    for (int i = 0; i < kAlive; i += 2) MPI_Comm_free(&comms[i]);
    for (int i = 1; i < kAlive; i += 2) MPI_Comm_free(&comms[i]);

    for (int c = 0; c < kCycles; ++c) {
        MPI_Comm dup;
        int sum = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Allreduce(&c, &sum, 1, MPI_INT, MPI_SUM, dup);
        errs += MT_EQ(sum, c * g_size);
        MPI_Comm_free(&dup);
        errs += MT_CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free left the handle set");
    }
    return errs;
}

static int names(MPI_Comm dup) {
    int errs = 0, len = -1;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    errs += MT_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14,
                     "MPI_COMM_WORLD is named \"%s\" (%d)", name, len);
    MPI_Comm_get_name(dup, name, &len);
    errs +=
        MT_CHECK(len == 0 && name[0] == '\0', "a dup is named \"%s\"; names are not copied", name);
    MPI_Comm_set_name(dup, "library comm");
    MPI_Comm_get_name(dup, name, &len);
    errs += MT_CHECK(strcmp(name, "library comm") == 0 && len == 12, "dup named \"%s\"", name);
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    errs += MT_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "naming the dup renamed the parent");
    return errs;
}

/* MPI_COMM_SELF is a one-rank world of its own. */
static int self(void) {
    int errs = 0, rank = -1, size = -1, in = -1, out = 42, sum = 0;
    MPI_Comm_rank(MPI_COMM_SELF, &rank);
    MPI_Comm_size(MPI_COMM_SELF, &size);
    errs += MT_EQ(rank, 0);
    errs += MT_EQ(size, 1);
    MPI_Sendrecv(&out, 1, MPI_INT, 0, 1, &in, 1, MPI_INT, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    errs += MT_EQ(in, 42);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, dup);
    errs += MT_EQ(sum, 42);
    MPI_Comm_free(&dup);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);

    MPI_Comm dup, dup2;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_dup(dup, &dup2);
    const int sizes[] = {4, kBig};
    for (int k = 0; k < 2; ++k)
        for (int prepost = 0; prepost <= 1; ++prepost) {
            errs += isolation(MPI_COMM_WORLD, dup, prepost, sizes[k]);
            errs += isolation(dup, dup2, prepost, sizes[k]);            /* a dup of a dup */
            errs += isolation(dup2, MPI_COMM_WORLD, prepost, sizes[k]); /* the other way */
        }
    errs += interleaved_collectives(MPI_COMM_WORLD, dup);
    errs += interleaved_collectives(dup2, dup);
    errs += names(dup);
    errs += many();
    errs += self();
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    return mtest_finish(errs);
}
