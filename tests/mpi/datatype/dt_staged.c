/*
 * Rendezvous messages of non-contiguous types that this runtime packs into
 * the sender's shared staging area (SI_SHM_STAGING_BYTES), which the receiver
 * copies or unpacks from as plain memory: short runs (256 B) unpacked part by
 * part as they are packed, a receive shorter than the message
 * (MPI_ERR_TRUNCATE; nothing past the receive changes), more messages in
 * flight than the area holds (the rest are packed privately and read across
 * processes, the area's blocks come back and are reused), blocking sends of
 * contiguous data, which are copied through the area too when it has room,
 * and a receiver that computes while the message comes. Holes between blocks
 * stay untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum {
    kRun = 32,        /* doubles: 256 B */
    kRuns = 4096,     /* 1 MiB of data, 2 MiB of span */
    kInFlight = 12,   /* 9 MiB: more than the default area (4 MiB for 2 ranks) */
};

static double value_of(int rank, int message, int i) {
    return rank * 1e8 + message * 1e6 + i;
}

/* `runs` runs of kRun doubles, one run's gap between them. */
static MPI_Datatype runs_type(int runs) {
    MPI_Datatype t;
    MPI_Type_vector(runs, kRun, 2 * kRun, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

static size_t span_doubles(int runs) {
    return (size_t)runs * 2 * kRun;
}

static void fill_sparse(double* sparse, int runs, int rank, int message) {
    for (int r = 0; r < runs; ++r)
        for (int j = 0; j < 2 * kRun; ++j)
            sparse[(size_t)r * 2 * kRun + j] = j < kRun ? value_of(rank, message, r * kRun + j) : -2.0;
}

static void clear(double* sparse, size_t doubles) {
    for (size_t i = 0; i < doubles; ++i) sparse[i] = -1.0;
}

/* The first `filled` of `runs` runs hold the sender's values; holes and
   everything after them are -1. */
static int verify(const char* what, const double* sparse, int runs, int filled, int sender,
                  int message) {
    int errs = 0;
    for (int r = 0; r < runs && errs < 3; ++r)
        for (int j = 0; j < 2 * kRun && errs < 3; ++j) {
            const double got = sparse[(size_t)r * 2 * kRun + j];
            const double want = j < kRun && r < filled ? value_of(sender, message, r * kRun + j) : -1.0;
            errs += MT_CHECK(got == want, "%s, message %d: run %d double %d is %g, not %g", what,
                             message, r, j, got, want);
        }
    return errs;
}

static int short_runs(MPI_Comm pair, int rank, double* out, double* in) {
    const int partner = 1 - rank;
    MPI_Datatype t = runs_type(kRuns);
    int errs = 0;
    fill_sparse(out, kRuns, rank, 0);
    clear(in, span_doubles(kRuns));
    MPI_Status status;
    MPI_Sendrecv(out, 1, t, partner, 0, in, 1, t, partner, 0, pair, &status);
    errs += verify("short runs both ways", in, kRuns, kRuns, partner, 0);
    int count = -1;
    MPI_Get_count(&status, t, &count);
    errs += MT_EQ(count, 1);
    MPI_Type_free(&t);
    return errs;
}

static int truncated(MPI_Comm pair, int rank, double* out, double* in) {
    const int partner = 1 - rank;
    MPI_Datatype t = runs_type(kRuns), half = runs_type(kRuns / 2);
    int errs = 0;
    fill_sparse(out, kRuns, rank, 1);
    clear(in, span_doubles(kRuns));
    MPI_Request request;
    MPI_Isend(out, 1, t, partner, 1, pair, &request);
    const int rc = MPI_Recv(in, 1, half, partner, 1, pair, MPI_STATUS_IGNORE);
    errs += MT_CLASS(rc, MPI_ERR_TRUNCATE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
#ifdef SI_MPI
    errs += verify("receive of half the runs", in, kRuns, kRuns / 2, partner, 1);
#else
    /* The standard leaves a truncated receive's buffer undefined. */
    errs += verify("receive of half the runs", in + span_doubles(kRuns / 2), kRuns / 2, 0, partner, 1);
#endif
    MPI_Type_free(&half);
    MPI_Type_free(&t);
    return errs;
}

/* Rank 0 sends kInFlight messages before rank 1 posts a receive; rank 1
   takes them last first, every other one as dense doubles. Meanwhile rank 0
   sends two dense messages with MPI_Send, which this runtime copies through
   the staging area where there is room: 1 MiB, for which there is none left
   (it goes from the user's memory), and 256 KiB, for which there is. */
static int many_in_flight(MPI_Comm pair, int rank) {
    /* 768 KiB each: with the default area (4 MiB and a page, in 64 blocks)
       five are staged and leave four blocks, room for 256 KiB, not 1 MiB. */
    enum { kInFlightRuns = kRuns * 3 / 4 };
    MPI_Datatype t = runs_type(kInFlightRuns);
    const size_t span = span_doubles(kInFlightRuns);
    double* buffers = mtest_malloc(kInFlight * span * sizeof(double));
    static const int kDense[] = {kRuns * kRun, kRuns * kRun / 4};
    int errs = 0;
    if (rank == 0) {
        MPI_Request requests[kInFlight];
        for (int m = 0; m < kInFlight; ++m) {
            fill_sparse(buffers + m * span, kInFlightRuns, rank, 10 + m);
            MPI_Isend(buffers + m * span, 1, t, 1, 10 + m, pair, &requests[m]);
        }
        double* dense = mtest_malloc((size_t)kDense[0] * sizeof(double));
        for (int d = 0; d < 2; ++d) {
            for (int i = 0; i < kDense[d]; ++i) dense[i] = value_of(rank, 30 + d, i);
            MPI_Send(dense, kDense[d], MPI_DOUBLE, 1, 30 + d, pair);
        }
        free(dense);
        MPI_Barrier(pair);
        MPI_Waitall(kInFlight, requests, MPI_STATUSES_IGNORE);
    } else {
        double* dense = mtest_malloc((size_t)kDense[0] * sizeof(double));
        for (int d = 0; d < 2; ++d) {
            MPI_Recv(dense, kDense[d], MPI_DOUBLE, 0, 30 + d, pair, MPI_STATUS_IGNORE);
            for (int i = 0; i < kDense[d] && errs < 3; ++i)
                errs += MT_CHECK(dense[i] == value_of(0, 30 + d, i),
                                 "dense MPI_Send %d while the area is taken: double %d is %g", d, i,
                                 dense[i]);
        }
        free(dense);
        MPI_Barrier(pair);
        for (int m = kInFlight - 1; m >= 0; --m) {
            double* in = buffers + m * span;
            clear(in, span);
            if (m % 2 == 0) {
                MPI_Recv(in, 1, t, 0, 10 + m, pair, MPI_STATUS_IGNORE);
                errs += verify("many in flight, strided", in, kInFlightRuns, kInFlightRuns, 0, 10 + m);
            } else {
                MPI_Recv(in, kInFlightRuns * kRun, MPI_DOUBLE, 0, 10 + m, pair, MPI_STATUS_IGNORE);
                for (int i = 0; i < kInFlightRuns * kRun && errs < 3; ++i)
                    errs += MT_CHECK(in[i] == value_of(0, 10 + m, i),
                                     "many in flight, dense, message %d: double %d is %g", m, i,
                                     in[i]);
            }
        }
    }
    free(buffers);
    MPI_Type_free(&t);
    return errs;
}

/* Rank 0 computes while rank 1's message comes. */
static int receiver_computing(MPI_Comm pair, int rank, double* out, double* in) {
    MPI_Datatype t = runs_type(kRuns);
    int errs = 0;
    if (rank == 0) {
        clear(in, span_doubles(kRuns));
        MPI_Request request;
        MPI_Irecv(in, 1, t, 1, 2, pair, &request);
        MPI_Barrier(pair);
        mtest_sleep_ms(20);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        errs += verify("receiver computing", in, kRuns, kRuns, 1, 2);
    } else {
        fill_sparse(out, kRuns, rank, 2);
        MPI_Barrier(pair);
        MPI_Send(out, 1, t, 0, 2, pair);
    }
    MPI_Type_free(&t);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm pair = mtest_pairs();
    if (pair != MPI_COMM_NULL) {
        int me;
        MPI_Comm_rank(pair, &me);
        double* out = mtest_malloc(span_doubles(kRuns) * sizeof(double));
        double* in = mtest_malloc(span_doubles(kRuns) * sizeof(double));
        errs += short_runs(pair, me, out, in);
        errs += truncated(pair, me, out, in);
        errs += many_in_flight(pair, me);
        errs += receiver_computing(pair, me, out, in);
        free(in);
        free(out);
        MPI_Comm_free(&pair);
    }
    return mtest_finish(errs);
}
