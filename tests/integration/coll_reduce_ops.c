/*
 * Every predefined reduction operation on every predefined datatype the
 * standard allows it for (MPI 3.1, section 5.9.2):
 *   MPI_MAX, MPI_MIN            C integer, floating point, multi-language
 *   MPI_SUM, MPI_PROD           C integer, floating point, complex, multi-language
 *   MPI_LAND, MPI_LOR, MPI_LXOR C integer, logical (MPI_C_BOOL)
 *   MPI_BAND, MPI_BOR, MPI_BXOR C integer, byte, multi-language
 *   MPI_MAXLOC, MPI_MINLOC      the pair types (MPI_FLOAT_INT, MPI_DOUBLE_INT,
 *                               MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
 *                               MPI_LONG_DOUBLE_INT)
 * each through one of MPI_Allreduce, MPI_Reduce (each also with MPI_IN_PLACE;
 * the collective and the root change from case to case) and through
 * MPI_Reduce_local, checked against a reference computed locally from every
 * rank's (deterministic) input.
 *
 * Inputs are small integers so that every result is exact whatever order
 * the implementation combines in. Signed types get negative values (a MIN
 * done as unsigned shows), logical inputs use 2 as well as 1 for "true" (a
 * LAND done bitwise shows), and MAXLOC/MINLOC have ties, where the smallest
 * index must win.
 */
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kCount = 13 };
typedef enum { INTEGER, FLOATING, COMPLEX, LOGICAL, BYTE, PAIR } Kind;

/* One element, whatever its type: the value (a complex one has im too) and,
 * for the MAXLOC/MINLOC pair types, the index. */
typedef struct {
    long double re, im;
    int index;
} Value;

/* One row per datatype: X(handle, C type, kind, signed). */
#define SCALAR_TYPES(X)                                       \
    X(MPI_SIGNED_CHAR, signed char, INTEGER, 1)               \
    X(MPI_UNSIGNED_CHAR, unsigned char, INTEGER, 0)           \
    X(MPI_SHORT, short, INTEGER, 1)                           \
    X(MPI_UNSIGNED_SHORT, unsigned short, INTEGER, 0)         \
    X(MPI_INT, int, INTEGER, 1)                               \
    X(MPI_UNSIGNED, unsigned, INTEGER, 0)                     \
    X(MPI_LONG, long, INTEGER, 1)                             \
    X(MPI_UNSIGNED_LONG, unsigned long, INTEGER, 0)           \
    X(MPI_LONG_LONG, long long, INTEGER, 1)                   \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long, INTEGER, 0) \
    X(MPI_INT8_T, int8_t, INTEGER, 1)                         \
    X(MPI_INT16_T, int16_t, INTEGER, 1)                       \
    X(MPI_INT32_T, int32_t, INTEGER, 1)                       \
    X(MPI_INT64_T, int64_t, INTEGER, 1)                       \
    X(MPI_UINT8_T, uint8_t, INTEGER, 0)                       \
    X(MPI_UINT16_T, uint16_t, INTEGER, 0)                     \
    X(MPI_UINT32_T, uint32_t, INTEGER, 0)                     \
    X(MPI_UINT64_T, uint64_t, INTEGER, 0)                     \
    X(MPI_AINT, MPI_Aint, INTEGER, 1)                         \
    X(MPI_OFFSET, MPI_Offset, INTEGER, 1)                     \
    X(MPI_COUNT, MPI_Count, INTEGER, 1)                       \
    X(MPI_FLOAT, float, FLOATING, 1)                          \
    X(MPI_DOUBLE, double, FLOATING, 1)                        \
    X(MPI_LONG_DOUBLE, long double, FLOATING, 1)              \
    X(MPI_C_BOOL, _Bool, LOGICAL, 0)                          \
    X(MPI_BYTE, unsigned char, BYTE, 0)

#define COMPLEX_TYPES(X)                     \
    X(MPI_C_FLOAT_COMPLEX, float _Complex)   \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex) \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex)

/* Pair types, laid out as the standard defines them: { value; int index; }. */
#define PAIR_TYPES(X)         \
    X(MPI_FLOAT_INT, float)   \
    X(MPI_DOUBLE_INT, double) \
    X(MPI_LONG_INT, long)     \
    X(MPI_2INT, int)          \
    X(MPI_SHORT_INT, short)   \
    X(MPI_LONG_DOUBLE_INT, long double)

/* Accessors put_<handle> / get_<handle> for every type: plain functions,
 * written once per kind of type. */
#define DEFINE_SCALAR(h, ct, kind, is_signed)               \
    static void put_##h(void* buf, int i, Value v) {        \
        ((ct*)buf)[i] = (ct)v.re;                           \
    }                                                       \
    static Value get_##h(const void* buf, int i) {          \
        Value v = {(long double)((const ct*)buf)[i], 0, 0}; \
        return v;                                           \
    }
#define DEFINE_COMPLEX(h, ct)                                                    \
    static void put_##h(void* buf, int i, Value v) {                             \
        ((ct*)buf)[i] = (ct)(v.re + v.im * I);                                   \
    }                                                                            \
    static Value get_##h(const void* buf, int i) {                               \
        Value v = {creall(((const ct*)buf)[i]), cimagl(((const ct*)buf)[i]), 0}; \
        return v;                                                                \
    }
#define DEFINE_PAIR(h, ct)                                          \
    typedef struct {                                                \
        ct value;                                                   \
        int index;                                                  \
    } pair_##h;                                                     \
    static void put_##h(void* buf, int i, Value v) {                \
        ((pair_##h*)buf)[i].value = (ct)v.re;                       \
        ((pair_##h*)buf)[i].index = v.index;                        \
    }                                                               \
    static Value get_##h(const void* buf, int i) {                  \
        Value v = {(long double)((const pair_##h*)buf)[i].value, 0, \
                   ((const pair_##h*)buf)[i].index};                \
        return v;                                                   \
    }
SCALAR_TYPES(DEFINE_SCALAR)
COMPLEX_TYPES(DEFINE_COMPLEX)
PAIR_TYPES(DEFINE_PAIR)

typedef struct {
    MPI_Datatype type;
    const char* name;
    Kind kind;
    int is_signed;
    void (*put)(void* buf, int i, Value v);
    Value (*get)(const void* buf, int i);
} TypeInfo;

static const TypeInfo kTypes[] = {
#define SCALAR_ROW(h, ct, kind, is_signed) {h, #h, kind, is_signed, put_##h, get_##h},
#define COMPLEX_ROW(h, ct) {h, #h, COMPLEX, 1, put_##h, get_##h},
#define PAIR_ROW(h, ct) {h, #h, PAIR, 1, put_##h, get_##h},
    SCALAR_TYPES(SCALAR_ROW) COMPLEX_TYPES(COMPLEX_ROW) PAIR_TYPES(PAIR_ROW)};

static const struct {
    MPI_Op op;
    const char* name;
} kOps[] = {{MPI_MAX, "MPI_MAX"},   {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
            {MPI_PROD, "MPI_PROD"}, {MPI_LAND, "MPI_LAND"},     {MPI_LOR, "MPI_LOR"},
            {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"},     {MPI_BOR, "MPI_BOR"},
            {MPI_BXOR, "MPI_BXOR"}, {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"}};

static int allowed(Kind kind, MPI_Datatype type, MPI_Op op) {
    const int multi_language = type == MPI_AINT || type == MPI_OFFSET || type == MPI_COUNT;
    if (op == MPI_MAX || op == MPI_MIN) return kind == INTEGER || kind == FLOATING;
    if (op == MPI_SUM || op == MPI_PROD)
        return kind == INTEGER || kind == FLOATING || kind == COMPLEX;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return (kind == INTEGER && !multi_language) || kind == LOGICAL;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return kind == INTEGER || kind == BYTE;
    return kind == PAIR; /* MAXLOC, MINLOC */
}

/* The input of `rank` at element i for `op`, as a small integer that every
 * type can hold exactly (int8_t included: sums stay within 4 * 20). */
static long long input(MPI_Op op, int is_signed, int rank, int i) {
    if (op == MPI_SUM) return (rank * 3 + i) % 20 - (is_signed ? 6 : 0);
    if (op == MPI_PROD)
        return (rank + i) % 3 == 0 ? 2 : ((rank + i) % 5 == 1 && is_signed ? -1 : 1);
    if (op == MPI_MAX || op == MPI_MIN) return (rank * 37 + i * 11) % 101 - (is_signed ? 50 : 0);
    if (op == MPI_LAND) return (rank + i) % 5 == 0 ? 0 : 1 + (rank + i) % 2;
    if (op == MPI_LOR) return (rank + 2 * i) % 5 == 0 ? 1 + i % 2 : 0;
    if (op == MPI_LXOR) return (rank * 3 + i) % 3 == 0 ? 0 : 1 + i % 2;
    if (op == MPI_BAND) return 0x7f ^ (1 << ((rank + i) % 7));
    if (op == MPI_BOR) return 1 << ((rank * 2 + i) % 7);
    if (op == MPI_BXOR) return ((rank + 1) * 37 + i * 13) & 0x7f;
    return (rank * 5 + i * 3) % 4 - 1; /* MAXLOC/MINLOC values, many ties */
}
static int pair_index(int rank, int size, int i) {
    return (size - rank) * 3 + i;
}

static long long combine(MPI_Op op, long long a, long long b) {
    if (op == MPI_SUM) return a + b;
    if (op == MPI_PROD) return a * b;
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_LAND) return a && b;
    if (op == MPI_LOR) return a || b;
    if (op == MPI_LXOR) return !a != !b;
    if (op == MPI_BAND) return a & b;
    if (op == MPI_BOR) return a | b;
    return a ^ b; /* BXOR */
}

/* Fills buf with the input of `rank`. */
static void fill(const TypeInfo* t, MPI_Op op, int rank, int size, void* buf) {
    for (int i = 0; i < kCount; ++i) {
        Value v = {
            (long double)input(op, t->kind == COMPLEX || t->kind == PAIR || t->is_signed, rank, i),
            0, 0};
        if (t->kind == COMPLEX) v.im = (long double)input(op, 1, rank, i + 1);
        if (t->kind == PAIR) v.index = pair_index(rank, size, i);
        t->put(buf, i, v);
    }
}

/* Checks buf against the reduction of the inputs of ranks 0..nranks-1. */
static int check(const TypeInfo* t, MPI_Op op, const char* op_name, const char* how, int nranks,
                 int size, const void* buf) {
    for (int i = 0; i < kCount; ++i) {
        const Value got = t->get(buf, i);
        long double got_re = got.re, got_im = got.im, want_re, want_im = 0;
        int got_index = got.index, want_index = 0;
        if (t->kind == PAIR) {
            long long best = input(op, 1, 0, i);
            want_index = pair_index(0, size, i);
            for (int r = 1; r < nranks; ++r) {
                long long v = input(op, 1, r, i);
                int idx = pair_index(r, size, i);
                int better = op == MPI_MAXLOC ? v > best : v < best;
                if (better || (v == best && idx < want_index)) {
                    best = v;
                    want_index = idx;
                }
            }
            want_re = (long double)best;
        } else if (t->kind == COMPLEX) {
            long double complex acc = input(op, 1, 0, i) + input(op, 1, 0, i + 1) * I;
            for (int r = 1; r < nranks; ++r) {
                long double complex z = input(op, 1, r, i) + input(op, 1, r, i + 1) * I;
                acc = op == MPI_SUM ? acc + z : acc * z;
            }
            want_re = creall(acc);
            want_im = cimagl(acc);
        } else {
            long long acc = input(op, t->is_signed, 0, i);
            for (int r = 1; r < nranks; ++r) acc = combine(op, acc, input(op, t->is_signed, r, i));
            want_re = (long double)acc;
            if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) {
                /* Only truth matters (one rank's input 2 comes back as 2). */
                got_re = got_re != 0;
                want_re = want_re != 0;
            }
        }
        if (got_re != want_re || got_im != want_im || got_index != want_index)
            return MT_CHECK(0,
                            "%s %s %s, element %d: got (%Lg, %Lg, index %d), expected "
                            "(%Lg, %Lg, index %d)",
                            how, op_name, t->name, i, got_re, got_im, got_index, want_re, want_im,
                            want_index);
    }
    return 0;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank, size, cases = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* 32 bytes is the largest element (long double pairs and complex). */
    _Alignas(max_align_t) unsigned char in[kCount * 32], out[kCount * 32], other[kCount * 32];

    for (size_t ti = 0; ti < sizeof kTypes / sizeof kTypes[0]; ++ti) {
        const TypeInfo* t = &kTypes[ti];
        for (size_t oi = 0; oi < sizeof kOps / sizeof kOps[0]; ++oi) {
            const MPI_Op op = kOps[oi].op;
            if (!allowed(t->kind, t->type, op)) continue;
            const char* op_name = kOps[oi].name;
            /* The collective cycles through Allreduce, Allreduce in place,
             * Reduce and Reduce in place, the root moving on every time. */
            const int variant = cases % 4, root = (cases / 4) % size;
            ++cases;

            fill(t, op, rank, size, in);
            memcpy(out, in, sizeof in);
            switch (variant) {
                case 0:
                    MPI_Allreduce(in, out, kCount, t->type, op, MPI_COMM_WORLD);
                    errs += check(t, op, op_name, "MPI_Allreduce", size, size, out);
                    break;
                case 1:
                    MPI_Allreduce(MPI_IN_PLACE, out, kCount, t->type, op, MPI_COMM_WORLD);
                    errs += check(t, op, op_name, "MPI_Allreduce (in place)", size, size, out);
                    break;
                default:
                    /* With MPI_IN_PLACE the root's input is in its receive buffer. */
                    MPI_Reduce(variant == 3 && rank == root ? MPI_IN_PLACE : in, out, kCount,
                               t->type, op, root, MPI_COMM_WORLD);
                    if (rank == root)
                        errs += check(t, op, op_name,
                                      variant == 3 ? "MPI_Reduce (in place)" : "MPI_Reduce", size,
                                      size, out);
                    break;
            }

            /* MPI_Reduce_local: inout = in op inout, here rank 1's and rank 0's inputs. */
            fill(t, op, 0, size, other);
            fill(t, op, 1, size, out);
            MPI_Reduce_local(other, out, kCount, t->type, op);
            errs += check(t, op, op_name, "MPI_Reduce_local", 2, size, out);
        }
    }
    errs += MT_CHECK(cases >= 200, "only %d type/operation cases ran", cases);
    return mtest_finish(errs);
}
