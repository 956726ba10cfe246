/*
 * Helpers shared by the multi-process integration tests.
 *
 * Every test is one MPI program written against the standard MPI C API only
 * (the subset in runtime/include/mpi.h), so that the same source builds
 * against this runtime and against MPICH, the reference. A test counts its
 * failed checks in a local `int errs` and ends with `return mtest_finish(errs);`,
 * which makes rank 0 print "No Errors" or "Found N errors" after MPI_Finalize.
 * A test passes only if the launcher also exits 0 (tests/run-mpi-test.sh).
 *
 * Checks never stop the program: they print what differed and return 1 so the
 * caller adds it to its count. When a failure would make the rest of the test
 * wait forever (a message that will never come), call mtest_fatal() instead;
 * it aborts the whole job. A watchdog (SIGALRM, MTEST_TIMEOUT seconds, default
 * 90, 0 disables) aborts a rank that hangs anyway, naming the rank.
 */
#ifndef MTEST_H
#define MTEST_H

#include <mpi.h>
#include <stddef.h>

/* GCC 11-12 warn (-Wstringop-overflow) when MPI_STATUSES_IGNORE, a constant
 * pointer, is passed where the prototype declares an array of statuses: a
 * false positive, with MPICH's mpi.h as with ours. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

/* MPI_Init / MPI_Init_thread plus the watchdog. */
void mtest_init(int* argc, char*** argv);
void mtest_init_thread(int* argc, char*** argv, int required, int* provided);

/* Sums the error counts of all ranks on rank 0, calls MPI_Finalize, then rank 0
 * prints "No Errors" or "Found N errors". Returns the exit status for main. */
int mtest_finish(int errors);

/* Rank in MPI_COMM_WORLD, for messages (valid after mtest_init). */
int mtest_rank(void);

/* Whether the library running the program is this runtime, whichever mpi.h
 * it was compiled with: a program built against MPICH runs here through the
 * MPICH ABI (sirun --abi mpich), and then must expect this runtime's
 * behaviour where the two differ. May be called before MPI_Init. */
int mtest_on_simpi(void);

/* MPI_COMM_WORLD split into pairs of consecutive ranks (0 and 1, 2 and 3, ...)
 * whose errors return; MPI_COMM_NULL for the odd rank out. */
MPI_Comm mtest_pairs(void);

/* Prints "[rank R] file:line: <message>" and aborts the job; never returns. */
_Noreturn void mtest_fatal_at(const char* file, int line, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

/* The checks return 0 when the condition holds, 1 (after printing) when not. */
int mtest_check_at(int ok, const char* file, int line, const char* format, ...)
    __attribute__((format(printf, 4, 5)));
int mtest_check_eq_at(const char* file, int line, const char* what, long long got,
                      long long expected);
/* rc is what an MPI call returned; compares MPI_Error_class(rc) with
 * expected_class and, for a failure, that MPI_Error_string gives some text. */
int mtest_check_class_at(const char* file, int line, const char* what, int rc, int expected_class);

#define MT_FATAL(...) mtest_fatal_at(__FILE__, __LINE__, __VA_ARGS__)
/* errs += MT_CHECK(cond, "printf format", args...) */
#define MT_CHECK(cond, ...) mtest_check_at((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)
/* errs += MT_EQ(got, expected): integers, prints both expressions' values. */
#define MT_EQ(got, expected) \
    mtest_check_eq_at(__FILE__, __LINE__, #got, (long long)(got), (long long)(expected))
/* errs += MT_CLASS(MPI_Send(...), MPI_ERR_RANK) */
#define MT_CLASS(call, expected_class) \
    mtest_check_class_at(__FILE__, __LINE__, #call, (call), (expected_class))

/* Name of an error class (for messages), "class <n>" when unknown. */
const char* mtest_class_name(int error_class);

/* Deterministic byte pattern: byte i of a buffer filled with `seed`. The
 * pattern changes with every bit of i, so a misplaced block is caught too. */
unsigned char mtest_pattern(size_t i, unsigned seed);
void mtest_fill(void* buf, size_t bytes, unsigned seed);
/* Returns 1 (after printing the first wrong byte) if buf differs. */
int mtest_verify_at(const char* file, int line, const char* what, const void* buf, size_t bytes,
                    unsigned seed);
#define MT_VERIFY(what, buf, bytes, seed) \
    mtest_verify_at(__FILE__, __LINE__, (what), (buf), (bytes), (seed))
/* Returns 1 if any byte of buf is not `value` (guard areas, untouched buffers). */
int mtest_verify_value_at(const char* file, int line, const char* what, const void* buf,
                          size_t bytes, unsigned char value);
#define MT_VERIFY_VALUE(what, buf, bytes, value) \
    mtest_verify_value_at(__FILE__, __LINE__, (what), (buf), (bytes), (value))

/* malloc that aborts the job on failure. */
void* mtest_malloc(size_t bytes);

/* Sleeps without using the CPU (the tests run oversubscribed). */
void mtest_sleep_ms(int milliseconds);

/*
 * The communicators collective tests run on: index 0, 1, ... until the
 * function returns 0. On return 1, *comm is either a communicator this rank
 * belongs to or MPI_COMM_NULL (the rank is not a member of this one); *name
 * says which it is. Release with mtest_comm_release.
 *   0 MPI_COMM_WORLD
 *   1 a dup of MPI_COMM_WORLD
 *   2 split by world rank parity, keys reversing the order within each half
 *   3 all ranks but world rank 0 (with one rank: a split of MPI_COMM_SELF)
 */
int mtest_comm_get(int index, MPI_Comm* comm, const char** name);
void mtest_comm_release(MPI_Comm* comm);

#endif /* MTEST_H */
