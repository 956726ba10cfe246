/*
 * MPI_Barrier and MPI_Bcast on MPI_COMM_WORLD, a dup, a reversed parity
 * split and a communicator without world rank 0 (so "root 0" is not world
 * rank 0), from every root, for 0, 1, 1000 and 262144 ints (1 MiB) and a
 * 4 MiB byte broadcast. Non-root buffers start as garbage and must end equal
 * to the root's; the root's buffer must not change.
 *
 * MPI_Barrier is checked by timing: one rank sleeps before entering, and no
 * other rank may leave the barrier before that rank entered it. (The bound
 * is exact; see barrier_waits.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kSleepMs = 200, kFill = 0xAB };

static int bcast_case(MPI_Comm comm, const char* comm_name, int root, int count, MPI_Datatype type,
                      int type_size) {
    int errs = 0, rank;
    MPI_Comm_rank(comm, &rank);
    const size_t bytes = (size_t)count * (size_t)type_size;
    unsigned char* buf = mtest_malloc(bytes + 16);
    const unsigned seed = (unsigned)(root * 7 + count + type_size);
    if (rank == root)
        mtest_fill(buf, bytes, seed);
    else
        memset(buf, kFill, bytes);
    memset(buf + bytes, kFill, 16);
    MPI_Bcast(buf, count, type, root, comm);
    char what[128];
    snprintf(what, sizeof what, "Bcast on %s, root %d, %d x %d bytes", comm_name, root, count,
             type_size);
    errs += MT_VERIFY(what, buf, bytes, seed);
    errs += MT_VERIFY_VALUE(what, buf + bytes, 16, kFill);
    free(buf);
    return errs;
}

/* The sleeper leaves the first barrier, sleeps, enters the second. Every
 * other rank started its clock before entering the first barrier, which the
 * sleeper cannot leave before everyone entered; so a correct second barrier
 * returns at least kSleepMs after that rank's start, whatever the skew. */
static int barrier_waits(MPI_Comm comm, const char* comm_name, int sleeper) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    const double start = MPI_Wtime();
    MPI_Barrier(comm);
    if (rank == sleeper) mtest_sleep_ms(kSleepMs);
    MPI_Barrier(comm);
    const double waited = MPI_Wtime() - start;
    if (rank == sleeper) return 0;
    return MT_CHECK(waited >= 0.99 * kSleepMs / 1000.0,
                    "two MPI_Barrier on %s returned after %.3f s although rank %d slept %d ms "
                    "between them",
                    comm_name, waited, sleeper, kSleepMs);
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, world_size;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    MPI_Comm comm;
    const char* name;
    for (int c = 0; mtest_comm_get(c, &comm, &name); ++c) {
        if (comm != MPI_COMM_NULL) {
            int size;
            MPI_Comm_size(comm, &size);
            const int counts[] = {0, 1, 1000, 262144};
            for (int root = 0; root < size; ++root)
                for (int k = 0; k < 4; ++k)
                    errs += bcast_case(comm, name, root, counts[k], MPI_INT, (int)sizeof(int));
            errs += bcast_case(comm, name, size - 1, 4 << 20, MPI_BYTE, 1);
            errs += bcast_case(comm, name, 0, 7, MPI_DOUBLE, (int)sizeof(double));
            if (c == 0 && size > 1) {
                errs += barrier_waits(comm, name, size - 1);
                errs += barrier_waits(comm, name, 0);
            }
            /* Many barriers in a row: no state may leak from one to the next. */
            for (int i = 0; i < 5; ++i) MPI_Barrier(comm);
        }
        mtest_comm_release(&comm);
    }
    return mtest_finish(errs);
}
