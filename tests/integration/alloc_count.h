/*
 * Counting the heap allocations of the calling thread, for the tests that
 * hold a call to allocating nothing once warmed up (coll_no_alloc,
 * rma_no_alloc). Include it in one file of the program: it defines malloc
 * and its kin, which the dynamic linker resolves before the C library's for
 * every library of the process (operator new included); they count the
 * calls of a thread that set `t_counting` and forward to glibc's __libc_*
 * entry points. Background threads of the runtime (progress, interrupt) are
 * not counted. Only this runtime is held to it (SI_MPI); under a sanitizer,
 * whose runtime owns malloc, nothing is counted and COUNT_ALLOCATIONS is not
 * defined.
 */
#pragma once

#include <stddef.h>

#include "mpi.h" /* SI_MPI: this runtime */

#if defined(SI_MPI) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define COUNT_ALLOCATIONS 1
#endif

#ifdef COUNT_ALLOCATIONS
extern void* __libc_malloc(size_t bytes);
extern void* __libc_calloc(size_t count, size_t bytes);
extern void* __libc_realloc(void* old, size_t bytes);
extern void* __libc_memalign(size_t alignment, size_t bytes);
extern void __libc_free(void* p);

static __thread int t_counting;
static __thread long t_allocations;

static void counted(void) {
    if (t_counting) ++t_allocations;
}

void* malloc(size_t bytes) {
    counted();
    return __libc_malloc(bytes);
}
void* calloc(size_t count, size_t bytes) {
    counted();
    return __libc_calloc(count, bytes);
}
void* realloc(void* old, size_t bytes) {
    counted();
    return __libc_realloc(old, bytes);
}
void* aligned_alloc(size_t alignment, size_t bytes) {
    counted();
    return __libc_memalign(alignment, bytes);
}
void* memalign(size_t alignment, size_t bytes) {
    counted();
    return __libc_memalign(alignment, bytes);
}
int posix_memalign(void** out, size_t alignment, size_t bytes) {
    counted();
    void* p = __libc_memalign(alignment, bytes);
    if (p == NULL) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void free(void* p) {
    __libc_free(p);
}
#endif
