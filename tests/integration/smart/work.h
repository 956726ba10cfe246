/* Synthetic work for the tests: a compute loop that never calls MPI. */
#ifndef SMART_WORK_H
#define SMART_WORK_H

#include <time.h>

static inline double work_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* Computes for about `seconds` (checking the clock every few hundred
 * operations), or until done(context) returns non-zero. Returns the time
 * spent. */
static inline double work_until(double seconds, int (*done)(const void*), const void* context) {
    volatile double sink = 1.0;
    const double start = work_now();
    double elapsed = 0.0;
    while (elapsed < seconds) {
        for (int i = 0; i < 256; ++i) sink = sink * 1.0000001 + 1e-9;
        if (done != NULL && done(context)) break;
        elapsed = work_now() - start;
    }
    return work_now() - start;
}

/* Idles (sleeps) for about `seconds`, leaving the core to others. */
static inline void idle_for(double seconds) {
    struct timespec left = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&left, &left) != 0) {
    }
}

#endif
