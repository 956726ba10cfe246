/* Helpers shared by the integration tests; see mtest.h. */
#define _POSIX_C_SOURCE 200809L

#include "mtest.h"

#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kMaxReports = 25 }; /* per rank; a broken run should not flood the log */

static int g_rank = -1;
static atomic_int g_reports; /* threads may report too */
static char g_timeout_message[96];
static size_t g_timeout_length = 0;

int mtest_rank(void) {
    return g_rank;
}

int mtest_on_simpi(void) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    return strncmp(version, "SmartInterrupts", strlen("SmartInterrupts")) == 0;
}

MPI_Comm mtest_pairs(void) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, (rank / 2 + 1) * 2 <= size ? rank / 2 : MPI_UNDEFINED, rank,
                   &pair);
    if (pair != MPI_COMM_NULL) MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN);
    return pair;
}

/* Async-signal-safe: only write() and abort(). abort() (not _exit) so that a
 * runtime's fatal-signal handler still gets to clean up its shared memory. */
static void on_timeout(int signo) {
    (void)signo;
    ssize_t ignored = write(STDOUT_FILENO, g_timeout_message, g_timeout_length);
    (void)ignored;
    abort();
}

static void start_watchdog(void) {
    int seconds = 90;
    const char* text = getenv("MTEST_TIMEOUT");
    if (text != NULL && *text != '\0') seconds = atoi(text);
    if (seconds <= 0) return;
    int n = snprintf(g_timeout_message, sizeof g_timeout_message,
                     "[rank %d] watchdog: still running after %d s, aborting\n", g_rank, seconds);
    g_timeout_length = n > 0 ? (size_t)n : 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_timeout;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, NULL);
    alarm((unsigned)seconds);
}

static void after_init(void) {
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    /* Unbuffered output: lines of a rank that aborts must not be lost. */
    setvbuf(stdout, NULL, _IONBF, 0);
    start_watchdog();
}

void mtest_init(int* argc, char*** argv) {
    MPI_Init(argc, argv);
    after_init();
}

void mtest_init_thread(int* argc, char*** argv, int required, int* provided) {
    MPI_Init_thread(argc, argv, required, provided);
    after_init();
}

int mtest_finish(int errors) {
    int total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Finalize(); /* still under the watchdog: a hang here is a failure too */
    alarm(0);
    /* After MPI_Finalize: a crash or hang in it must not leave "No Errors" behind. */
    if (g_rank == 0) {
        if (total == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", total);
    }
    return errors != 0 || total != 0;
}

static void report(const char* file, int line, const char* format, va_list args) {
    const int reported = atomic_fetch_add(&g_reports, 1);
    if (reported >= kMaxReports) {
        if (reported == kMaxReports) printf("[rank %d] more errors; not printing them\n", g_rank);
        return;
    }
    char message[512];
    vsnprintf(message, sizeof message, format, args);
    const char* base = strrchr(file, '/');
    printf("[rank %d] %s:%d: %s\n", g_rank, base ? base + 1 : file, line, message);
}

void mtest_fatal_at(const char* file, int line, const char* format, ...) {
    va_list args;
    va_start(args, format);
    atomic_store(&g_reports, 0); /* always print the reason for stopping */
    report(file, line, format, args);
    va_end(args);
    printf("[rank %d] fatal: aborting the job\n", g_rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* MPI_Abort must not return; make sure we stop anyway */
}

int mtest_check_at(int ok, const char* file, int line, const char* format, ...) {
    if (ok) return 0;
    va_list args;
    va_start(args, format);
    report(file, line, format, args);
    va_end(args);
    return 1;
}

static int report_line(const char* file, int line, const char* format, ...) {
    va_list args;
    va_start(args, format);
    report(file, line, format, args);
    va_end(args);
    return 1;
}

int mtest_check_eq_at(const char* file, int line, const char* what, long long got,
                      long long expected) {
    if (got == expected) return 0;
    return report_line(file, line, "%s is %lld, expected %lld", what, got, expected);
}

const char* mtest_class_name(int error_class) {
    static const struct {
        int value;
        const char* name;
    } names[] = {
        {MPI_SUCCESS, "MPI_SUCCESS"},
        {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
        {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
        {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
        {MPI_ERR_TAG, "MPI_ERR_TAG"},
        {MPI_ERR_COMM, "MPI_ERR_COMM"},
        {MPI_ERR_RANK, "MPI_ERR_RANK"},
        {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
        {MPI_ERR_ROOT, "MPI_ERR_ROOT"},
        {MPI_ERR_GROUP, "MPI_ERR_GROUP"},
        {MPI_ERR_OP, "MPI_ERR_OP"},
        {MPI_ERR_ARG, "MPI_ERR_ARG"},
        {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN"},
        {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
        {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
        {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
        {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"},
        {MPI_ERR_PENDING, "MPI_ERR_PENDING"},
        {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM"},
        {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY"},
        {MPI_ERR_DIMS, "MPI_ERR_DIMS"},
        {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY"},
        {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE"},
        {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (names[i].value == error_class) return names[i].name;
    static char unknown[32];
    snprintf(unknown, sizeof unknown, "class %d", error_class);
    return unknown;
}

int mtest_check_class_at(const char* file, int line, const char* what, int rc, int expected_class) {
    int got_class = rc;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &got_class) != MPI_SUCCESS)
        return report_line(file, line, "%s returned %d, which MPI_Error_class rejects", what, rc);
    if (got_class != expected_class) {
        char text[MPI_MAX_ERROR_STRING] = "";
        int length = 0;
        if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &length);
        return report_line(file, line, "%s returned %s (\"%s\"), expected %s", what,
                           mtest_class_name(got_class), text, mtest_class_name(expected_class));
    }
    if (rc == MPI_SUCCESS) return 0;
    /* Every error code must have a description. */
    char text[MPI_MAX_ERROR_STRING];
    int length = -1;
    int src = MPI_Error_string(rc, text, &length);
    if (src != MPI_SUCCESS || length <= 0 || length >= MPI_MAX_ERROR_STRING ||
        strlen(text) != (size_t)length)
        return report_line(file, line, "MPI_Error_string of the code from %s: rc %d, length %d",
                           what, src, length);
    return 0;
}

unsigned char mtest_pattern(size_t i, unsigned seed) {
    /* A multiplicative hash of (i, seed), cheap enough for 4 MiB buffers. */
    unsigned long long x = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476Dull;
    return (unsigned char)(x >> 40);
}

void mtest_fill(void* buf, size_t bytes, unsigned seed) {
    unsigned char* p = buf;
    for (size_t i = 0; i < bytes; ++i) p[i] = mtest_pattern(i, seed);
}

int mtest_verify_at(const char* file, int line, const char* what, const void* buf, size_t bytes,
                    unsigned seed) {
    const unsigned char* p = buf;
    for (size_t i = 0; i < bytes; ++i) {
        unsigned char expected = mtest_pattern(i, seed);
        if (p[i] != expected)
            return report_line(file, line, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what,
                               i, bytes, p[i], expected);
    }
    return 0;
}

int mtest_verify_value_at(const char* file, int line, const char* what, const void* buf,
                          size_t bytes, unsigned char value) {
    const unsigned char* p = buf;
    for (size_t i = 0; i < bytes; ++i)
        if (p[i] != value)
            return report_line(file, line, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what,
                               i, bytes, p[i], value);
    return 0;
}

void* mtest_malloc(size_t bytes) {
    void* p = malloc(bytes ? bytes : 1);
    if (p == NULL) MT_FATAL("out of memory allocating %zu bytes", bytes);
    return p;
}

void mtest_sleep_ms(int milliseconds) {
    struct timespec delay = {milliseconds / 1000, (long)(milliseconds % 1000) * 1000000L};
    while (nanosleep(&delay, &delay) != 0) {
    }
}

int mtest_comm_get(int index, MPI_Comm* comm, const char** name) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    switch (index) {
        case 0:
            *comm = MPI_COMM_WORLD;
            *name = "MPI_COMM_WORLD";
            return 1;
        case 1:
            MPI_Comm_dup(MPI_COMM_WORLD, comm);
            *name = "dup of MPI_COMM_WORLD";
            return 1;
        case 2:
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, comm);
            *name = "split by parity, reversed";
            return 1;
        case 3:
            if (size == 1) {
                MPI_Comm_split(MPI_COMM_SELF, 0, 0, comm);
                *name = "split of MPI_COMM_SELF";
            } else {
                MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, comm);
                *name = "world without rank 0";
            }
            return 1;
        default:
            *comm = MPI_COMM_NULL;
            *name = "";
            return 0;
    }
}

void mtest_comm_release(MPI_Comm* comm) {
    if (*comm != MPI_COMM_NULL && *comm != MPI_COMM_WORLD && *comm != MPI_COMM_SELF)
        MPI_Comm_free(comm);
    *comm = MPI_COMM_NULL;
}
