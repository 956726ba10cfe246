/*
 * What the intercommunicator collective tests share (coll_inter.c, the
 * blocking calls; coll_inter_nonblocking.c, the nonblocking ones): the
 * intercommunicators they run on, the values each rank sends, uneven block
 * sizes, and a non-commutative operator whose result shows the order in
 * which a group's contributions were combined.
 */
#ifndef COLL_INTER_H
#define COLL_INTER_H

#include <stdlib.h>

#include "mtest.h"

typedef long long item;
#define ITEM MPI_LONG_LONG

enum { kGuard = -7 };
static const item kMod = 1000003;

typedef struct {
    MPI_Comm comm;
    const char* name;
    int g;          /* this group: 0 or 1; the other is 1 - g */
    int rank, size; /* in this group */
    int rsize;      /* of the other group */
} Inter;

static inline item val(int g, int r, int k) {
    return (g + 1) * 100000000LL + r * 1000000LL + k;
}

static inline item* items(int n) {
    item* p = mtest_malloc(sizeof(item) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) p[i] = kGuard;
    return p;
}

static inline int same(const Inter* t, const char* what, int root, const item* got,
                       const item* want, int n) {
    for (int i = 0; i < n; ++i)
        if (got[i] != want[i])
            return MT_CHECK(0, "%s, %s, root argument %d: item %d is %lld, expected %lld", t->name,
                            what, root, i, got[i], want[i]);
    return 0;
}

/* Block sizes: ((rank + group) % 3) units, so some are empty. */
static int g_n = 5;
static inline int vcount(int g, int r) {
    return ((r + g) % 3) * (g_n / 2 + 1);
}
/* Items rank s of group sg sends to rank d of the other group. */
static inline int pcount(int sg, int s, int d) {
    return ((s + 2 * d + sg) % 3) * (g_n / 2 + 1);
}

/* Blocks in reverse rank order with one guard item before each; returns the size. */
static inline int reverse_layout(int n, const int* counts, int* displs) {
    int at = 0;
    for (int i = n - 1; i >= 0; --i) {
        at += 1;
        displs[i] = at;
        at += counts[i];
    }
    return at;
}

/* x -> a x + b as the pair (a, b); in op inout = in after inout, so the
 * result of s0 op s1 op ... is the composition in rank order. */
static inline void affine(void* in, void* inout, int* len, MPI_Datatype* type) {
    (void)type;
    const item* a = in;
    item* b = inout;
    for (int i = 0; i < *len; ++i) {
        const item a0 = a[2 * i], a1 = a[2 * i + 1];
        b[2 * i + 1] = (a0 * b[2 * i + 1] + a1) % kMod;
        b[2 * i] = a0 * b[2 * i] % kMod;
    }
}
static MPI_Op g_affine;
static MPI_Datatype g_pair;

/* MPI_Init, the item count from argv[1] if given, the pair type and the
 * affine operator: what both intercommunicator tests start with. */
static inline void inter_init(int* argc, char*** argv) {
    mtest_init(argc, argv);
    if (*argc > 1) g_n = atoi((*argv)[1]);
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) MT_FATAL("needs 2 ranks or more");
    MPI_Type_contiguous(2, ITEM, &g_pair);
    MPI_Type_commit(&g_pair);
    MPI_Op_create(affine, 0, &g_affine);
}

static inline void affine_item(int g, int r, int k, item* e) {
    e[0] = ((r + 2) * (g + 3) + k) % kMod;
    e[1] = (7 * r + 11 * g + 3 * k + 1) % kMod;
}

/* What a process receives from reductions over group g (of `members` ranks):
 * the sum of val(g, j, offset + k), and the affine composition in rank order. */
static inline void sums(int g, int members, int offset, int n, item* want) {
    for (int k = 0; k < n; ++k) {
        want[k] = 0;
        for (int j = 0; j < members; ++j) want[k] += val(g, j, offset + k);
    }
}
static inline void composition(int g, int members, int n, item* want) {
    for (int k = 0; k < n; ++k) {
        affine_item(g, 0, k, &want[2 * k]);
        for (int j = 1; j < members; ++j) {
            item e[2];
            affine_item(g, j, k, e);
            want[2 * k + 1] = (want[2 * k] * e[1] + want[2 * k + 1]) % kMod;
            want[2 * k] = want[2 * k] * e[0] % kMod;
        }
    }
}

/* kind 0: world rank 0 against the rest; 1: even against odd world ranks,
 * keys reversing each group's order; 2: low half against high half. */
static inline void make_inter(int kind, Inter* t) {
    static const char* names[] = {"rank 0 vs the rest", "even vs odd, reversed",
                                  "low vs high half"};
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int color, leader[2];
    if (kind == 0) {
        color = wrank == 0 ? 0 : 1;
        leader[0] = 0, leader[1] = 1;
    } else if (kind == 1) {
        color = wrank % 2;
        leader[0] = (wsize - 1) / 2 * 2, leader[1] = wsize / 2 * 2 - 1;
    } else {
        color = wrank < wsize / 2 ? 0 : 1;
        leader[0] = 0, leader[1] = wsize / 2;
    }
    MPI_Comm local;
    MPI_Comm_split(MPI_COMM_WORLD, color, kind == 1 ? -wrank : wrank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, leader[1 - color], 50 + kind, &t->comm);
    MPI_Comm_free(&local);
    t->name = names[kind];
    t->g = color;
    MPI_Comm_rank(t->comm, &t->rank);
    MPI_Comm_size(t->comm, &t->size);
    MPI_Comm_remote_size(t->comm, &t->rsize);
}

#endif /* COLL_INTER_H */
