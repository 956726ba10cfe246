/*
 * Accumulate and the atomic operations (MPI 3.1, sections 11.3.4 and
 * 11.7.1). MPI_Accumulate with every predefined operation that applies to
 * MPI_INT, MPI_LONG_LONG, MPI_DOUBLE and MPI_UNSIGNED_CHAR (5.9.2: no
 * bitwise or logical operations on floating point), every rank into every
 * rank at once, which the standard allows for the same operation on the
 * same basic type; MPI_REPLACE from a single origin; MPI_MAXLOC / MPI_MINLOC
 * on MPI_DOUBLE_INT. Accumulates are atomic per element: 500 increments per
 * rank onto one int of rank 0 under MPI_Win_lock_all lose nothing.
 * MPI_Get_accumulate returns the value before the operation, and with
 * MPI_NO_OP is an atomic read (it never sees a half-written value);
 * MPI_Fetch_and_op hands out every counter value exactly once;
 * MPI_Compare_and_swap is enough to build a lock that protects a non-atomic
 * Get + Put increment. Finally a 1 MiB accumulate of doubles under fences.
 *
 * Windows are created on malloc memory filled before MPI_Win_create, so
 * that origins may start on them without a synchronization first. Never on
 * stack or static memory: MPICH 4.0.2 (ch4:ucx) addresses a window whose
 * base is not 16-byte aligned as if it were rounded down (see rma_win.c).
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int g_rank, g_size, g_right, g_left;

struct kind {
    MPI_Datatype type;
    const char* name;
    size_t size;
    int floating;
};

/* Every value these tests use is a small integer, exact in each type, so
 * a long long models them all; unsigned char arithmetic wraps modulo 256. */
static long long load(const struct kind* k, const void* buffer, int i) {
    const char* p = (const char*)buffer + k->size * (size_t)i;
    if (k->type == MPI_INT) return *(const int*)p;
    if (k->type == MPI_LONG_LONG) return *(const long long*)p;
    if (k->type == MPI_DOUBLE) return (long long)*(const double*)p;
    return *(const unsigned char*)p;
}

static void store(const struct kind* k, void* buffer, int i, long long value) {
    char* p = (char*)buffer + k->size * (size_t)i;
    if (k->type == MPI_INT)
        *(int*)p = (int)value;
    else if (k->type == MPI_LONG_LONG)
        *(long long*)p = value;
    else if (k->type == MPI_DOUBLE)
        *(double*)p = (double)value;
    else
        *(unsigned char*)p = (unsigned char)value;
}

static long long apply(const struct kind* k, MPI_Op op, long long target, long long operand) {
    long long r = operand;
    if (op == MPI_SUM)
        r = target + operand;
    else if (op == MPI_PROD)
        r = target * operand;
    else if (op == MPI_MAX)
        r = target > operand ? target : operand;
    else if (op == MPI_MIN)
        r = target < operand ? target : operand;
    else if (op == MPI_BAND)
        r = target & operand;
    else if (op == MPI_BOR)
        r = target | operand;
    else if (op == MPI_BXOR)
        r = target ^ operand;
    else if (op == MPI_LAND)
        r = target && operand;
    return k->type == MPI_UNSIGNED_CHAR ? (r & 0xFF) : r;
}

enum { kCount = 24 };

/* Initial target values and each origin's operands: zeros included, so that
 * MPI_LAND and MPI_PROD see both cases; products of up to four operands stay
 * far inside int, and wrap for unsigned char. */
static long long initial(int i, int target) {
    return (i * 7 + 3 + target) % 11;
}
static long long operand(int i, int origin) {
    return (i * 3 + origin * 5) % 7;
}

static const struct {
    MPI_Op op;
    const char* name;
    int integer_only;
} kOps[] = {
    {MPI_SUM, "MPI_SUM", 0},   {MPI_PROD, "MPI_PROD", 0}, {MPI_MAX, "MPI_MAX", 0},
    {MPI_MIN, "MPI_MIN", 0},   {MPI_BAND, "MPI_BAND", 1}, {MPI_BOR, "MPI_BOR", 1},
    {MPI_BXOR, "MPI_BXOR", 1}, {MPI_LAND, "MPI_LAND", 1}, {MPI_REPLACE, "MPI_REPLACE", 0},
};
enum { kOpCount = sizeof kOps / sizeof kOps[0] };

/* One epoch per type, each operation on its own kCount elements of the
 * window: every rank accumulates into every rank, except MPI_REPLACE, only
 * from the left neighbour (the result of concurrent replaces is any one of
 * them). */
static int one_type(const struct kind* k) {
    int errs = 0;
    const int elements = kOpCount * kCount;
    void* mem = mtest_malloc((size_t)elements * k->size);
    long long out[kCount]; /* room and alignment for any of the kinds */
    for (int i = 0; i < elements; ++i) store(k, mem, i, initial(i % kCount, g_rank));
    for (int i = 0; i < kCount; ++i) store(k, out, i, operand(i, g_rank));
    MPI_Win win;
    MPI_Win_create(mem, (MPI_Aint)((size_t)elements * k->size), (int)k->size, MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int o = 0; o < kOpCount; ++o) {
        if (k->floating && kOps[o].integer_only) continue;
        const MPI_Aint disp = (MPI_Aint)o * kCount;
        if (kOps[o].op == MPI_REPLACE)
            MPI_Accumulate(out, kCount, k->type, g_right, disp, kCount, k->type, MPI_REPLACE, win);
        else
            for (int t = 0; t < g_size; ++t)
                MPI_Accumulate(out, kCount, k->type, t, disp, kCount, k->type, kOps[o].op, win);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int o = 0; o < kOpCount; ++o) {
        const MPI_Op op = kOps[o].op;
        const int skipped = k->floating && kOps[o].integer_only;
        for (int i = 0; i < kCount; ++i) {
            long long expected = initial(i, g_rank); /* stays so where the op was skipped */
            if (!skipped && op == MPI_REPLACE)
                expected = apply(k, op, expected, operand(i, g_left));
            else if (!skipped)
                for (int r = 0; r < g_size; ++r) expected = apply(k, op, expected, operand(i, r));
            const long long got = load(k, mem, o * kCount + i);
            errs += MT_CHECK(got == expected,
                             "MPI_Accumulate %s on %s, element %d: %lld, expected %lld",
                             kOps[o].name, k->name, i, got, expected);
        }
    }
    MPI_Win_free(&win);
    free(mem);
    return errs;
}

static int all_ops(void) {
    static const struct kind kinds[] = {
        {MPI_INT, "MPI_INT", sizeof(int), 0},
        {MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long), 0},
        {MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), 1},
        {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", sizeof(unsigned char), 0},
    };
    int errs = 0;
    for (size_t t = 0; t < sizeof kinds / sizeof kinds[0]; ++t) errs += one_type(&kinds[t]);
    return errs;
}

/* Values tie between ranks of the same parity: the lowest index wins. */
static int maxloc_minloc(void) {
    int errs = 0;
    struct double_int {
        double value;
        int index;
    } mine = {g_rank % 2 ? 10.0 : 5.0, g_rank};
    struct double_int* mem = mtest_malloc(2 * sizeof *mem);
    mem[0] = (struct double_int){1.0, 1000};
    mem[1] = (struct double_int){100.0, 1000};
    MPI_Win win;
    MPI_Win_create(g_rank == 0 ? mem : NULL, g_rank == 0 ? (MPI_Aint)(2 * sizeof *mem) : 0,
                   (int)sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Accumulate(&mine, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win);
    MPI_Accumulate(&mine, 1, MPI_DOUBLE_INT, 0, 1, 1, MPI_DOUBLE_INT, MPI_MINLOC, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (g_rank == 0) {
        const double max = g_size > 1 ? 10.0 : 5.0;
        const int max_at = g_size > 1 ? 1 : 0;
        errs += MT_CHECK(mem[0].value == max && mem[0].index == max_at,
                         "MPI_MAXLOC gave (%g, %d), expected (%g, %d)", mem[0].value, mem[0].index,
                         max, max_at);
        errs += MT_CHECK(mem[1].value == 5.0 && mem[1].index == 0,
                         "MPI_MINLOC gave (%g, %d), expected (5, 0)", mem[1].value, mem[1].index);
    }
    MPI_Win_free(&win);
    free(mem);
    return errs;
}

/* A counter on rank 0 that only rank 0 exposes. Read atomically by everyone
 * with MPI_Fetch_and_op(MPI_NO_OP). */
static MPI_Win counter_window(int* counter) {
    counter[0] = 0;
    MPI_Win win;
    MPI_Win_create(g_rank == 0 ? counter : NULL, g_rank == 0 ? (MPI_Aint)sizeof(int) : 0,
                   sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    return win;
}

static int read_counter(MPI_Win win) {
    int value = -1, ignored = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&ignored, &value, MPI_INT, 0, 0, MPI_NO_OP, win);
    MPI_Win_unlock(0, win);
    return value;
}

static int contended_sum(void) {
    enum { kAdds = 500 };
    int errs = 0;
    int* counter = mtest_malloc(sizeof(int));
    MPI_Win win = counter_window(counter);
    const int one = 1;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < kAdds; ++i)
        MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    const int total = read_counter(win);
    errs += MT_CHECK(total == kAdds * g_size, "%d concurrent MPI_SUM accumulates made %d",
                     kAdds * g_size, total);
    MPI_Win_free(&win);
    free(counter);
    return errs;
}

/* Single origin per target (the left neighbour), so results are exact. */
enum { kVector = 10 };

static int get_accumulate(void) {
    int errs = 0;
    int* mem = mtest_malloc((1 + kVector) * sizeof(int));
    mem[0] = 100 + g_rank;
    for (int i = 0; i < kVector; ++i) mem[1 + i] = 10 * g_rank + i;
    MPI_Win win;
    MPI_Win_create(mem, (1 + kVector) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    const int five = 5;
    int old = -1, now = -1, vector[kVector], olds[kVector], nows[kVector];
    for (int i = 0; i < kVector; ++i) vector[i] = 1000 * g_rank + i;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, g_right, 0, win);
    MPI_Get_accumulate(&five, 1, MPI_INT, &old, 1, MPI_INT, g_right, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush(g_right, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &now, 1, MPI_INT, g_right, 0, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Get_accumulate(vector, kVector, MPI_INT, olds, kVector, MPI_INT, g_right, 1, kVector,
                       MPI_INT, MPI_REPLACE, win);
    MPI_Win_flush(g_right, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, nows, kVector, MPI_INT, g_right, 1, kVector, MPI_INT,
                       MPI_NO_OP, win);
    MPI_Win_unlock(g_right, win);
    errs += MT_CHECK(old == 100 + g_right, "MPI_Get_accumulate(MPI_SUM) returned %d, expected %d",
                     old, 100 + g_right);
    errs += MT_CHECK(now == 105 + g_right, "MPI_Get_accumulate(MPI_NO_OP) returned %d, expected %d",
                     now, 105 + g_right);
    for (int i = 0; i < kVector; ++i) {
        errs += MT_CHECK(olds[i] == 10 * g_right + i,
                         "MPI_Get_accumulate(MPI_REPLACE) element %d returned %d, expected %d", i,
                         olds[i], 10 * g_right + i);
        errs += MT_CHECK(nows[i] == vector[i], "after MPI_REPLACE element %d reads %d, expected %d",
                         i, nows[i], vector[i]);
    }
    MPI_Win_free(&win);
    free(mem);
    return errs;
}

/* One rank rewrites a long long on rank 0 with MPI_REPLACE while the others
 * read it with MPI_Get_accumulate(MPI_NO_OP): every read must be one of the
 * values written, all four 16-bit parts equal, never a mix of two. */
static int atomic_read(void) {
    enum { kRounds = 100 };
    const long long kParts = 0x0001000100010001LL;
    int errs = 0;
    long long* cell = mtest_malloc(sizeof *cell);
    *cell = 0;
    MPI_Win win;
    MPI_Win_create(g_rank == 0 ? cell : NULL, g_rank == 0 ? (MPI_Aint)sizeof *cell : 0,
                   sizeof *cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    const int writer = g_size - 1;
    MPI_Win_lock_all(0, win);
    for (int k = 1; k <= kRounds; ++k) {
        if (g_rank == writer) {
            const long long value = k * kParts;
            MPI_Accumulate(&value, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, MPI_REPLACE, win);
            MPI_Win_flush(0, win);
        }
        if (g_rank != writer || g_size == 1) {
            long long seen = -1;
            MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, &seen, 1, MPI_LONG_LONG, 0, 0, 1,
                               MPI_LONG_LONG, MPI_NO_OP, win);
            MPI_Win_flush(0, win);
            errs += MT_CHECK(seen % kParts == 0 && seen / kParts >= 0 && seen / kParts <= kRounds,
                             "MPI_NO_OP read a torn value 0x%016llx", (unsigned long long)seen);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(cell);
    return errs;
}

/* Fetch-and-add of 1, 100 times per rank: the values fetched, all ranks
 * together, are 0 .. 100*size-1, each once. */
static int fetch_and_op(void) {
    enum { kFetches = 100 };
    int errs = 0;
    int* counter = mtest_malloc(sizeof(int));
    MPI_Win win = counter_window(counter);
    int mine[kFetches];
    const int one = 1;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < kFetches; ++i) {
        MPI_Fetch_and_op(&one, &mine[i], MPI_INT, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    /* One origin's operations on one location are ordered. */
    for (int i = 1; i < kFetches; ++i)
        errs += MT_CHECK(mine[i] > mine[i - 1], "fetch %d returned %d after %d", i, mine[i],
                         mine[i - 1]);
    const int total = kFetches * g_size;
    int* all = g_rank == 0 ? mtest_malloc(sizeof(int) * (size_t)total) : NULL;
    MPI_Gather(mine, kFetches, MPI_INT, all, kFetches, MPI_INT, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        char* seen = calloc((size_t)total, 1);
        for (int i = 0; i < total; ++i) {
            const int v = all[i];
            if (v < 0 || v >= total || seen[v]++)
                errs += MT_CHECK(0,
                                 "MPI_Fetch_and_op handed out %d (from rank %d) twice or out of "
                                 "range",
                                 v, i / kFetches);
        }
        free(seen);
        free(all);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every rank's fetches done */
    const int final_count = read_counter(win);
    errs += MT_CHECK(final_count == total, "counter after fetch-and-add is %d, expected %d",
                     final_count, total);
    MPI_Win_free(&win);
    free(counter);
    return errs;
}

/* A spin lock in slot 0 of rank 0's window (0 free, rank+1 held), guarding
 * a counter in slot 1 that is incremented with a plain Get and Put. */
static int cas_lock(void) {
    enum { kTurns = 50 };
    int errs = 0;
    int* mem = mtest_malloc(2 * sizeof(int));
    mem[0] = mem[1] = 0;
    MPI_Win win;
    MPI_Win_create(g_rank == 0 ? mem : NULL, g_rank == 0 ? 2 * (MPI_Aint)sizeof(int) : 0,
                   sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    const int me = g_rank + 1, free_mark = 0;
    MPI_Win_lock_all(0, win);
    for (int turn = 0; turn < kTurns; ++turn) {
        int holder = -1;
        do {
            MPI_Compare_and_swap(&me, &free_mark, &holder, MPI_INT, 0, 0, win);
            MPI_Win_flush(0, win);
        } while (holder != free_mark);
        int count = -1;
        MPI_Get(&count, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        ++count;
        MPI_Put(&count, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Compare_and_swap(&free_mark, &me, &holder, MPI_INT, 0, 0, win);
        MPI_Win_flush(0, win);
        errs += MT_CHECK(holder == me, "released a lock held by %d, not by this rank", holder - 1);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int count = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&count, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    errs += MT_CHECK(count == kTurns * g_size, "count under the CAS lock is %d, expected %d", count,
                     kTurns * g_size);
    MPI_Win_free(&win);
    free(mem);
    return errs;
}

/* 1 MiB of doubles from every rank into every rank with MPI_SUM. */
static int large(void) {
    enum { kDoubles = (1 << 20) / sizeof(double) };
    int errs = 0;
    double* mem = mtest_malloc(kDoubles * sizeof(double));
    double* out = mtest_malloc(kDoubles * sizeof(double));
    for (int i = 0; i < kDoubles; ++i) {
        mem[i] = (double)(i % 1000);
        out[i] = (double)(i % 7 + g_rank);
    }
    MPI_Win win;
    MPI_Win_create(mem, kDoubles * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int t = 0; t < g_size; ++t)
        MPI_Accumulate(out, kDoubles, MPI_DOUBLE, t, 0, kDoubles, MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    const double ranks = g_size * (g_size - 1) / 2.0;
    int bad = 0;
    for (int i = 0; i < kDoubles && bad < 5; ++i) {
        const double expected = i % 1000 + g_size * (i % 7) + ranks;
        if (mem[i] != expected)
            bad += MT_CHECK(0, "1 MiB MPI_SUM: element %d is %g, expected %g", i, mem[i], expected);
    }
    errs += bad;
    MPI_Win_free(&win);
    free(mem);
    free(out);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_right = (g_rank + 1) % g_size;
    g_left = (g_rank + g_size - 1) % g_size;
    int errs = all_ops();
    errs += maxloc_minloc();
    errs += contended_sum();
    errs += get_accumulate();
    errs += atomic_read();
    errs += fetch_and_op();
    errs += cas_lock();
    errs += large();
    return mtest_finish(errs);
}
