/*
 * The blocking collectives as they run through a node's shared memory
 * (runtime/src/coll/node_collectives.hpp; the testlist also forces them
 * with SI_COLL_<NAME>=shm, and runs them across simulated nodes, where the
 * point-to-point algorithms serve the communicators that span two): on every
 * communicator of mtest_comm_get, every root, sizes from 0 bytes past the
 * size of a cell (where the point-to-point algorithms take over, on the
 * same communicator), MPI_IN_PLACE, a non-commutative user operator (wrong
 * unless combined in rank order) and MPI_MAXLOC on a pair type, a
 * non-contiguous datatype; long runs of calls without a barrier between
 * them, in which the ranks that only publish (a broadcast's root, a
 * gather's leaves) run ahead and must not overwrite what a slower reader
 * has not read yet; nonblocking collectives and point-to-point messages on
 * the same communicator in between; counts that disagree between ranks
 * (MPI_ERR_TRUNCATE and MPI_ERR_COUNT, this runtime only). With this
 * runtime, its counters (SI_STATS) must show calls through shared memory on
 * every rank, or none where the point-to-point algorithms are forced.
 *
 * Arguments: none.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"
#include "smart/stats.h"

/* Past the largest cell on up to 4 ranks (16 KiB), so that both kinds of
 * algorithm run; larger rank counts have larger cells. */
static const int kSizes[] = {0, 1, 8, 100, 1024, 4096, 16384, 20000};
enum { kSizeCount = sizeof kSizes / sizeof kSizes[0] };

/* The value of item k of rank r's contribution in round `round`. */
static int value(int r, int k, int round) {
    return (r + 1) * 1000 + k * 7 + round;
}

static int bcasts(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    for (int s = 0; s < kSizeCount; ++s) {
        const int bytes = kSizes[s];
        unsigned char* buf = mtest_malloc((size_t)bytes + 1);
        for (int root = 0; root < n; ++root) {
            if (me == root)
                mtest_fill(buf, (size_t)bytes, (unsigned)(root + s));
            else
                memset(buf, 0, (size_t)bytes);
            errs += MT_EQ(MPI_Bcast(buf, bytes, MPI_BYTE, root, comm), MPI_SUCCESS);
            if (MT_VERIFY(name, buf, (size_t)bytes, (unsigned)(root + s))) return errs + 1;
        }
        free(buf);
    }
    return errs;
}

/* (x -> a x + b) composed in rank order: wrong unless combined in order. */
typedef struct {
    int a, b;
} affine;
enum { kPrime = 1009 };

static void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
    const affine* f = in;
    affine* g = inout;
    for (int i = 0; i < *len; ++i) {
        affine h = {(g[i].a * f[i].a) % kPrime, (g[i].a * f[i].b + g[i].b) % kPrime};
        g[i] = h;
    }
}

static affine rank_map(int r, int k) {
    affine f = {(r * 7 + k) % (kPrime - 1) + 1, (r * 13 + 3 * k) % kPrime};
    return f;
}

static int reductions(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Op op;
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(compose, 0, &op);
    for (int s = 0; s < kSizeCount; ++s) {
        const int count = kSizes[s] / (int)sizeof(int);
        int* in = mtest_malloc(sizeof(int) * (size_t)count + 1);
        int* out = mtest_malloc(sizeof(int) * (size_t)count + 1);
        for (int k = 0; k < count; ++k) in[k] = value(me, k, s);
        /* Sum, every root, then in place. */
        for (int root = 0; root < n; ++root) {
            errs += MT_EQ(MPI_Reduce(in, out, count, MPI_INT, MPI_SUM, root, comm), MPI_SUCCESS);
            if (me == root)
                for (int k = 0; k < count; ++k) {
                    long want = 0;
                    for (int r = 0; r < n; ++r) want += value(r, k, s);
                    if (out[k] != want) {
                        errs += MT_CHECK(0, "%s: reduce to %d of %d ints: item %d is %d, not %ld",
                                         name, root, count, k, out[k], want);
                        break;
                    }
                }
        }
        memcpy(out, in, sizeof(int) * (size_t)count);
        errs += MT_EQ(MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
        for (int k = 0; k < count; ++k) {
            long want = 0;
            for (int r = 0; r < n; ++r) want += value(r, k, s);
            if (out[k] != want) {
                errs += MT_CHECK(0, "%s: allreduce in place of %d ints: item %d is %d, not %ld",
                                 name, count, k, out[k], want);
                break;
            }
        }
        /* MPI_MAXLOC on MPI_2INT: the largest value, the lowest rank on ties. */
        const int pairs = count / 2;
        for (int k = 0; k < pairs; ++k) {
            in[2 * k] = (k + me) % 3;
            in[2 * k + 1] = me;
        }
        errs += MT_EQ(MPI_Allreduce(in, out, pairs, MPI_2INT, MPI_MAXLOC, comm), MPI_SUCCESS);
        for (int k = 0; k < pairs; ++k) {
            int best = -1, at = 0;
            for (int r = 0; r < n; ++r)
                if ((k + r) % 3 > best) best = (k + r) % 3, at = r;
            if (out[2 * k] != best || out[2 * k + 1] != at) {
                errs += MT_CHECK(0, "%s: maxloc of %d pairs: pair %d is (%d, %d), not (%d, %d)",
                                 name, pairs, k, out[2 * k], out[2 * k + 1], best, at);
                break;
            }
        }
        /* A non-commutative operator, reduce at the last rank and allreduce. */
        affine* f = (affine*)in;
        affine* g = (affine*)out;
        for (int k = 0; k < pairs; ++k) f[k] = rank_map(me, k);
        errs += MT_EQ(MPI_Reduce(f, g, pairs, pair, op, n - 1, comm), MPI_SUCCESS);
        for (int round = 0; round < 2; ++round) {
            if (round == 1) errs += MT_EQ(MPI_Allreduce(f, g, pairs, pair, op, comm), MPI_SUCCESS);
            if (round == 0 && me != n - 1) continue;
            for (int k = 0; k < pairs; ++k) {
                affine h = {1, 0};
                for (int r = 0; r < n; ++r) {
                    affine m = rank_map(r, k);
                    affine next = {(m.a * h.a) % kPrime, (m.a * h.b + m.b) % kPrime};
                    h = next;
                }
                if (g[k].a != h.a || g[k].b != h.b) {
                    errs += MT_CHECK(0, "%s: %s of %d maps: map %d is wrong (not in rank order?)",
                                     name, round ? "allreduce" : "reduce", pairs, k);
                    break;
                }
            }
        }
        free(in);
        free(out);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    return errs;
}

/* Gather, scatter, allgather and alltoall of `bytes` per block, each rank's
 * blocks filled with its own seed, in place too. */
static int blocks(MPI_Comm comm, const char* name, int bytes) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    const size_t b = (size_t)bytes, all = b * (size_t)n;
    unsigned char* send = mtest_malloc(all + 1);
    unsigned char* recv = mtest_malloc(all + 1);
    for (int root = 0; root < n; ++root) {
        mtest_fill(send, b, (unsigned)(me * 31 + bytes));
        memset(recv, 0, all);
        const int in_place = root % 2 == 1;
        if (in_place && me == root) mtest_fill(recv + (size_t)me * b, b, (unsigned)(me * 31 + bytes));
        errs += MT_EQ(MPI_Gather(in_place && me == root ? MPI_IN_PLACE : send, bytes, MPI_BYTE,
                                 recv, bytes, MPI_BYTE, root, comm),
                      MPI_SUCCESS);
        if (me == root)
            for (int r = 0; r < n; ++r)
                errs += MT_VERIFY(name, recv + (size_t)r * b, b, (unsigned)(r * 31 + bytes));
        /* Scatter: block r of the root's buffer, seeded by r. */
        if (me == root)
            for (int r = 0; r < n; ++r) mtest_fill(send + (size_t)r * b, b, (unsigned)(r + 7 * bytes));
        memset(recv, 0, all);
        if (me == root && in_place) {
            errs += MT_EQ(MPI_Scatter(send, bytes, MPI_BYTE, MPI_IN_PLACE, bytes, MPI_BYTE, root, comm),
                          MPI_SUCCESS);
        } else {
            errs += MT_EQ(MPI_Scatter(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, root, comm),
                          MPI_SUCCESS);
            errs += MT_VERIFY(name, recv, b, (unsigned)(me + 7 * bytes));
        }
    }
    /* Allgather, then in place. */
    for (int in_place = 0; in_place <= 1; ++in_place) {
        memset(recv, 0, all);
        mtest_fill(send, b, (unsigned)(me + bytes));
        if (in_place) memcpy(recv + (size_t)me * b, send, b);
        errs += MT_EQ(MPI_Allgather(in_place ? MPI_IN_PLACE : send, bytes, MPI_BYTE, recv, bytes,
                                    MPI_BYTE, comm),
                      MPI_SUCCESS);
        for (int r = 0; r < n; ++r)
            errs += MT_VERIFY(name, recv + (size_t)r * b, b, (unsigned)(r + bytes));
    }
    /* Alltoall: the block from rank r to rank d seeded by r * 100 + d. */
    for (int in_place = 0; in_place <= 1; ++in_place) {
        unsigned char* from = in_place ? recv : send;
        for (int d = 0; d < n; ++d) mtest_fill(from + (size_t)d * b, b, (unsigned)(me * 100 + d));
        if (!in_place) memset(recv, 0, all);
        errs += MT_EQ(MPI_Alltoall(in_place ? MPI_IN_PLACE : send, bytes, MPI_BYTE, recv, bytes,
                                   MPI_BYTE, comm),
                      MPI_SUCCESS);
        for (int r = 0; r < n; ++r)
            errs += MT_VERIFY(name, recv + (size_t)r * b, b, (unsigned)(r * 100 + me));
    }
    free(send);
    free(recv);
    return errs;
}

/* Many calls without a barrier: a broadcast's root and a gather's leaves
 * publish and leave, and must wait for their cells before they overwrite
 * what a slow reader has not read. Rank 1 sleeps now and then to be slow.
 * Nonblocking collectives and messages on the same communicator between. */
static int runs_ahead(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    enum { kRounds = 60 };
    int word = 0, gathered[64];
    for (int i = 0; i < kRounds; ++i) {
        if (me == 1 % n && i % 20 == 5) mtest_sleep_ms(20);
        word = me == 0 ? i * 3 + 1 : -1;
        errs += MT_EQ(MPI_Bcast(&word, 1, MPI_INT, 0, comm), MPI_SUCCESS);
        if (word != i * 3 + 1) {
            errs += MT_CHECK(0, "%s: broadcast %d brought %d", name, i, word);
            break;
        }
        const int mine = me * 1000 + i;
        errs += MT_EQ(MPI_Gather(&mine, 1, MPI_INT, gathered, 1, MPI_INT, n - 1, comm), MPI_SUCCESS);
        if (me == n - 1)
            for (int r = 0; r < n; ++r)
                if (gathered[r] != r * 1000 + i) {
                    errs += MT_CHECK(0, "%s: gather %d: rank %d's is %d", name, i, r, gathered[r]);
                    break;
                }
        if (i % 10 == 0) {
            MPI_Request request;
            int total = 0;
            errs += MT_EQ(MPI_Iallreduce(&mine, &total, 1, MPI_INT, MPI_SUM, comm, &request),
                          MPI_SUCCESS);
            int token = me, got = -1;
            MPI_Sendrecv(&token, 1, MPI_INT, (me + 1) % n, 9, &got, 1, MPI_INT, (me + n - 1) % n,
                         9, comm, MPI_STATUS_IGNORE);
            errs += MT_EQ(got, (me + n - 1) % n);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            errs += MT_EQ(total, n * (n - 1) / 2 * 1000 + n * i);
        }
    }
    errs += MT_EQ(MPI_Barrier(comm), MPI_SUCCESS);
    return errs;
}

/* A vector type (every other int): packed around the same algorithms.
 * MPICH 4.0.2 refuses a predefined operator on a derived type; this runtime
 * applies it to any type made of one basic type (README). */
#ifdef SI_MPI
static int noncontiguous(MPI_Comm comm, const char* name) {
    int errs = 0, n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Datatype strided;
    MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int in[8], out[8];
    for (int k = 0; k < 8; ++k) in[k] = me * 10 + k;
    for (int k = 0; k < 8; ++k) out[k] = -1;
    errs += MT_EQ(MPI_Allreduce(in, out, 1, strided, MPI_SUM, comm), MPI_SUCCESS);
    for (int k = 0; k < 8; ++k) {
        const int want = k % 2 == 0 ? n * (n - 1) / 2 * 10 + n * k : -1;
        if (out[k] != want) {
            errs += MT_CHECK(0, "%s: allreduce of a vector: int %d is %d, not %d", name, k, out[k], want);
            break;
        }
    }
    MPI_Type_free(&strided);
    return errs;
}
#endif

static int run_all(MPI_Comm comm, const char* name) {
    int errs = 0;
    /* Enough calls for the communicator's area to be made. */
    for (int i = 0; i < 4; ++i) errs += MT_EQ(MPI_Barrier(comm), MPI_SUCCESS);
    errs += bcasts(comm, name);
    errs += reductions(comm, name);
    for (int s = 0; s < kSizeCount; ++s) errs += blocks(comm, name, kSizes[s]);
    errs += runs_ahead(comm, name);
#ifdef SI_MPI
    errs += noncontiguous(comm, name);
#endif
    return errs;
}

#ifdef SI_MPI
/* Counts that disagree: the root broadcasts 16 bytes where the others
 * expect 8 (MPI_ERR_TRUNCATE) or 32 (MPI_ERR_COUNT); every rank still
 * finishes the call. Through shared memory every other rank reports it;
 * through a tree only the root's children must (a rank passes on what it
 * holds, at its own size). */
static int mismatch(MPI_Comm comm, int expect_bytes, int expected_class) {
    int errs = 0, me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    char buf[32] = {0};
    const int rc = MPI_Bcast(buf, me == 0 ? 16 : expect_bytes, MPI_BYTE, 0, comm);
    int reported = 0, anywhere = 0;
    if (me != 0 && rc != MPI_SUCCESS) {
        errs += MT_CLASS(rc, expected_class);
        reported = 1;
    }
    MPI_Allreduce(&reported, &anywhere, 1, MPI_INT, MPI_MAX, comm);
    errs += MT_CHECK(anywhere == 1 || n == 1, "no rank reported a broadcast of 16 bytes into %d",
                     expect_bytes);
    return errs;
}

static int mismatches(MPI_Comm comm) {
    int errs = 0;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    errs += mismatch(comm, 8, MPI_ERR_TRUNCATE);
    errs += mismatch(comm, 32, MPI_ERR_COUNT);
    errs += MT_EQ(MPI_Barrier(comm), MPI_SUCCESS);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
    return errs;
}
#endif

/* 1: this rank must have run collectives through shared memory; 0: none
 * (SI_COLL_BARRIER names a point-to-point algorithm, as the testlist line
 * forcing them all does); -1: no check (one rank: no area). */
static int expected_on_node(void) {
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char* forced = getenv("SI_COLL_BARRIER");
    if (n < 2) return -1;
    if (forced != NULL && strcmp(forced, "shm") != 0 && strcmp(forced, "auto") != 0) return 0;
    return 1;
}

#ifdef SI_MPI
static int check_counters(int nranks, const int* expected) {
    int errs = 0;
    for (int r = 0; r < nranks; ++r) {
        const long long calls = stats_counter(r, "collectives_on_node");
        if (expected[r] == 1)
            errs += MT_CHECK(calls > 0, "rank %d ran no collective through shared memory", r);
        else if (expected[r] == 0)
            errs += MT_CHECK(calls == 0, "rank %d ran %lld collectives through shared memory "
                             "with the point-to-point algorithms forced", r, calls);
    }
    return errs;
}
#endif

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm comm;
    const char* name;
    for (int index = 0; mtest_comm_get(index, &comm, &name); ++index) {
        if (comm == MPI_COMM_NULL) continue;
        errs += run_all(comm, name);
#ifdef SI_MPI
        errs += mismatches(comm);
#endif
        mtest_comm_release(&comm);
    }
    /* The ranks of one node (a simulated one under SI_NODE_SIZE, where the
     * communicators above span two and run the point-to-point algorithms). */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &comm);
    errs += run_all(comm, "the ranks of a node");
    MPI_Comm_free(&comm);
#ifdef SI_MPI
    return stats_finish(errs, expected_on_node(), check_counters);
#else
    return stats_finish(errs, expected_on_node(), NULL);
#endif
}
