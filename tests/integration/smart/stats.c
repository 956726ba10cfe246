#define _GNU_SOURCE
#include "stats.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char kPrefix[] = "/tmp/si-test-stats";
static time_t g_started; /* seconds, CLOCK_REALTIME: the clock of file times */
/* Each rank's parent, gathered by stats_finish: ranks started by different
 * parents (one proxy per simulated node) write under different paths. */
static int* g_parent_of;

void stats_enable(void) {
    char path[64];
    snprintf(path, sizeof path, "%s-%d", kPrefix, (int)getppid());
    setenv("SI_STATS", path, 1);
    g_started = time(NULL);
}

static void rank_file_name(int rank, char* name, size_t size) {
    const int parent = g_parent_of != NULL ? g_parent_of[rank] : (int)getppid();
    snprintf(name, size, "%s-%d.%d", kPrefix, parent, rank);
}

/* A file of this job, not one an earlier job left whose parent had the same
 * pid (pids wrap: a long test run reuses them, and a job that was killed
 * never removed its files). The margin covers the coarse clock of file
 * times; a pid comes back only after far more than a second. */
static int written_by_this_job(const char* name) {
    struct stat info;
    return stat(name, &info) == 0 && info.st_mtime >= g_started - 1;
}

/* Waits up to 10 s for rank's file of this job; its name in `name`. A rank
 * writes it in MPI_Finalize, after the closing barrier: it may come after
 * rank 0 has returned. */
static int wait_for_rank_file(int rank, char* name, size_t size) {
    rank_file_name(rank, name, size);
    for (int tries = 0; tries < 1000; ++tries) {
        if (written_by_this_job(name)) return 1;
        const struct timespec ten_ms = {0, 10 * 1000 * 1000};
        nanosleep(&ten_ms, NULL);
    }
    fprintf(stderr, "stats: %s did not appear (or only an older job's)\n", name);
    return 0;
}

static FILE* open_rank_file(int rank) {
    char name[96];
    return wait_for_rank_file(rank, name, sizeof name) ? fopen(name, "r") : NULL;
}

/* Calls visit(name, value, context) for every row of a rank's file. */
static int for_each_counter(int rank, void (*visit)(const char*, long long, void*), void* context) {
    FILE* file = open_rank_file(rank);
    if (file == NULL) return -1;
    char line[256];
    while (fgets(line, sizeof line, file) != NULL) {
        char name[128];
        long long value = 0;
        int row_rank = 0;
        if (sscanf(line, "%d,%127[^,],%lld", &row_rank, name, &value) == 3)
            visit(name, value, context);
    }
    fclose(file);
    return 0;
}

struct Lookup {
    const char* name;
    long long value;
};

static void find_counter(const char* name, long long value, void* context) {
    struct Lookup* lookup = context;
    if (strcmp(name, lookup->name) == 0) lookup->value = value;
}

long long stats_counter(int rank, const char* name) {
    struct Lookup lookup = {name, -1};
    for_each_counter(rank, find_counter, &lookup);
    return lookup.value;
}

struct Sum {
    const char* prefix;
    const char* suffix;
    long long total;
};

static void add_matching(const char* name, long long value, void* context) {
    struct Sum* sum = context;
    const size_t length = strlen(name), suffix_length = strlen(sum->suffix);
    if (strncmp(name, sum->prefix, strlen(sum->prefix)) == 0 && length >= suffix_length &&
        strcmp(name + length - suffix_length, sum->suffix) == 0)
        sum->total += value;
}

long long stats_sum(int rank, const char* prefix, const char* suffix) {
    struct Sum sum = {prefix, suffix, 0};
    for_each_counter(rank, add_matching, &sum);
    return sum.total;
}

long long stats_sum_all(int nranks, const char* prefix, const char* suffix) {
    long long total = 0;
    for (int rank = 0; rank < nranks; ++rank) total += stats_sum(rank, prefix, suffix);
    return total;
}

int ghost_domain_size(int nranks) {
    const char* transport = getenv("SI_TRANSPORT");
    const char* node_size = getenv("SI_NODE_SIZE");
    if (transport == NULL || strcmp(transport, "verbs") != 0 || node_size == NULL) return nranks;
    const int size = atoi(node_size);
    return size > 0 && size < nranks ? size : nranks;
}

int stats_finish(int errors, int note, int (*check)(int nranks, const int* notes)) {
    int rank = 0, size = 0, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* notes = malloc(sizeof *notes * (size_t)size);
    int* parents = malloc(sizeof *parents * (size_t)size);
    const int parent = (int)getppid();
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Gather(&note, 1, MPI_INT, notes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&parent, 1, MPI_INT, parents, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank != 0) {
        free(notes);
        free(parents);
        return 0;
    }
    g_parent_of = parents;
    /* MTEST_REMOTE_STATS: the ranks ran on other nodes (tests/cluster), whose
     * files rank 0 cannot read; the caller reads and removes them there. */
    const int local = getenv("MTEST_REMOTE_STATS") == NULL;
    if (check != NULL && local) total += check(size, notes);
    free(notes);
    /* Removed once written, so that none is left for a later job. */
    for (int r = 0; r < size && local; ++r) {
        char name[96];
        if (wait_for_rank_file(r, name, sizeof name)) unlink(name);
    }
    g_parent_of = NULL;
    free(parents);
    if (total == 0)
        printf("No Errors\n");
    else
        printf("Found %d errors\n", total);
    fflush(stdout);
    return total == 0 ? 0 : 1;
}
