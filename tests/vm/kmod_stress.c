/*
 * Stress and abuse test of the si_wake kernel module (kmod/), run in the
 * guest VM by tests/vm/guest.sh with the module loaded:
 *   kmod_stress [device]
 * Exits 0 when every check passed; prints one line per failed check.
 * It proves what the runtime relies on: no wake is lost between a sleeper's
 * look and its sleep, slots die with their process, and nothing a user
 * passes (ids, counts, pointers, closes, signals) hurts the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "si_wake_abi.h"

static const char *device = "/dev/" SI_WAKE_DEVICE_NAME;
static int failures;

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "FAIL %s:%d: ", __func__, __LINE__);              \
			fprintf(stderr, __VA_ARGS__);                                      \
			fprintf(stderr, " (errno %d: %s)\n", errno, strerror(errno));      \
			failures++;                                                        \
		}                                                                          \
	} while (0)

static int open_device(void)
{
	int fd = open(device, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror(device);
		exit(1);
	}
	return fd;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int wake_ids(int fd, const uint32_t *ids, uint32_t count, struct si_wake_wake *out)
{
	struct si_wake_wake arg = { .ids = (uintptr_t)ids, .count = count };
	int ret = ioctl(fd, SI_WAKE_IOC_WAKE, &arg);

	if (out)
		*out = arg;
	return ret;
}

static int wake_one(int fd, uint32_t id, struct si_wake_wake *out)
{
	return wake_ids(fd, &id, 1, out);
}

static struct si_wake_stats read_stats(int fd)
{
	struct si_wake_stats s;

	memset(&s, 0, sizeof(s));
	CHECK(ioctl(fd, SI_WAKE_IOC_STATS, &s) == 0, "STATS");
	return s;
}

/* ---- arguments nobody should pass --------------------------------------- */

static void test_bad_arguments(int fd)
{
	struct si_wake_version v;
	struct si_wake_register reg;
	struct si_wake_wait w = { 0 };
	uint32_t ids[SI_WAKE_MAX_BATCH + 1];
	uint32_t bad;

	CHECK(ioctl(fd, SI_WAKE_IOC_VERSION, &v) == 0 && v.abi_version == SI_WAKE_ABI_VERSION,
	      "ABI version");
	CHECK(ioctl(fd, _IO(SI_WAKE_IOC_MAGIC, 99)) < 0 && errno == ENOTTY, "unknown ioctl");
	CHECK(ioctl(fd, SI_WAKE_IOC_REGISTER, &reg) == 0, "register");

	/* Generation 0 (index only), all ones in the index, plain 0. */
	for (bad = 0; bad < 3; bad++) {
		uint32_t id = bad == 0 ? 0 : bad == 1 ? 5 : SI_WAKE_MAX_SLOTS - 1;

		w.id = id;
		w.timeout_ms = 1;
		CHECK(ioctl(fd, SI_WAKE_IOC_WAIT, &w) < 0 && errno == EINVAL, "wait id %u", id);
		CHECK(wake_one(fd, id, NULL) < 0 && errno == EINVAL, "wake id %u", id);
		CHECK(ioctl(fd, SI_WAKE_IOC_UNREGISTER, &id) < 0 && errno == EINVAL,
		      "unregister id %u", id);
	}
	/* Well formed but never handed out, or someone else's. */
	bad = reg.id ^ (1u << 31);
	CHECK(wake_one(fd, bad, NULL) == 0, "wake of an unknown id is not an error");
	w.id = bad;
	CHECK(ioctl(fd, SI_WAKE_IOC_WAIT, &w) < 0 && errno == ESRCH, "wait on a foreign id");

	/* Counts: none, one too many, huge; a batch with one bad id wakes nobody. */
	for (bad = 0; bad <= SI_WAKE_MAX_BATCH; bad++)
		ids[bad] = reg.id;
	CHECK(wake_ids(fd, ids, 0, NULL) < 0 && errno == EINVAL, "count 0");
	CHECK(wake_ids(fd, ids, SI_WAKE_MAX_BATCH + 1, NULL) < 0 && errno == E2BIG, "count 65");
	CHECK(wake_ids(fd, ids, 0xffffffffu, NULL) < 0 && errno == E2BIG, "count 2^32-1");
	CHECK(wake_ids(fd, ids, SI_WAKE_MAX_BATCH, NULL) == 0, "full batch");
	ids[7] = 0;
	CHECK(wake_ids(fd, ids, 8, NULL) < 0 && errno == EINVAL, "batch with a bad id");
	{
		struct si_wake_wake arg = { .ids = (uintptr_t)ids, .count = 1, .flags = 1 };

		CHECK(ioctl(fd, SI_WAKE_IOC_WAKE, &arg) < 0 && errno == EINVAL, "flags");
		arg.flags = 0;
		arg.ids = 16;	/* unmapped */
		CHECK(ioctl(fd, SI_WAKE_IOC_WAKE, &arg) < 0 && errno == EFAULT, "bad pointer");
	}
	CHECK(ioctl(fd, SI_WAKE_IOC_WAIT, (void *)16) < 0 && errno == EFAULT, "bad wait pointer");
	w.id = reg.id;
	w.seq = reg.seq + 12345;	/* stale: returns at once */
	w.timeout_ms = SI_WAKE_MAX_TIMEOUT_MS + 1;
	CHECK(ioctl(fd, SI_WAKE_IOC_WAIT, &w) < 0 && errno == EINVAL, "huge timeout");
	w.timeout_ms = 0xffffffffu;
	CHECK(ioctl(fd, SI_WAKE_IOC_WAIT, &w) < 0 && errno == EINVAL, "timeout 2^32-1");
	w.timeout_ms = 10000;
	CHECK(ioctl(fd, SI_WAKE_IOC_WAIT, &w) == 0 && w.result == SI_WAKE_WOKEN,
	      "a wait with an old sequence returns at once");
	w.timeout_ms = 20;
	CHECK(ioctl(fd, SI_WAKE_IOC_WAIT, &w) == 0 && w.result == SI_WAKE_TIMED_OUT, "timeout");
	CHECK(ioctl(fd, SI_WAKE_IOC_UNREGISTER, &reg.id) == 0, "unregister");
	CHECK(ioctl(fd, SI_WAKE_IOC_UNREGISTER, &reg.id) < 0 && errno == ESRCH, "unregister twice");
	CHECK(wake_one(fd, reg.id, NULL) == 0, "wake after unregister");
}

/* ---- many sleepers, many wakes: none may be lost ------------------------- */

enum { kSleepers = 24, kRounds = 300 };

struct sleeper {
	int fd;
	uint32_t id;
	atomic_uint posted;	/* work the waker published */
	atomic_uint consumed;
	atomic_int registered;
	int lost;		/* timeouts with work published */
};

static void *sleeper_main(void *p)
{
	struct sleeper *s = p;
	struct si_wake_register reg;
	struct si_wake_wait w;

	if (ioctl(s->fd, SI_WAKE_IOC_REGISTER, &reg) != 0) {
		perror("register");
		atomic_store(&s->registered, -1);
		return NULL;
	}
	s->id = reg.id;
	w.id = reg.id;
	w.seq = reg.seq;
	atomic_store(&s->registered, 1);
	while (atomic_load(&s->consumed) < kRounds) {
		/* The protocol: sequence first (w.seq), then the condition, then sleep. */
		if (atomic_load(&s->consumed) < atomic_load(&s->posted)) {
			atomic_fetch_add(&s->consumed, 1);
			continue;
		}
		w.timeout_ms = 2000;
		if (ioctl(s->fd, SI_WAKE_IOC_WAIT, &w) != 0) {
			perror("wait");
			break;
		}
		if (w.result == SI_WAKE_TIMED_OUT &&
		    atomic_load(&s->consumed) < atomic_load(&s->posted))
			s->lost++;
	}
	return NULL;
}

static void test_many_sleepers(int fd)
{
	static struct sleeper sleepers[kSleepers];
	pthread_t threads[kSleepers];
	struct si_wake_stats before = read_stats(fd), after;
	int i, round;

	for (i = 0; i < kSleepers; i++) {
		sleepers[i].fd = fd;
		pthread_create(&threads[i], NULL, sleeper_main, &sleepers[i]);
	}
	for (i = 0; i < kSleepers; i++)
		while (atomic_load(&sleepers[i].registered) == 0)
			usleep(1000);
	for (round = 0; round < kRounds; round++) {
		uint32_t ids[kSleepers];

		for (i = 0; i < kSleepers; i++) {
			/* Waits until the sleeper caught up, so every wake is needed. */
			while (atomic_load(&sleepers[i].posted) > atomic_load(&sleepers[i].consumed))
				sched_yield();
			atomic_fetch_add(&sleepers[i].posted, 1);
			ids[i] = sleepers[i].id;
		}
		/* Alternately one batch and one call per id. */
		if (round % 2 == 0) {
			CHECK(wake_ids(fd, ids, kSleepers, NULL) == 0, "batch wake");
		} else {
			for (i = 0; i < kSleepers; i++)
				CHECK(wake_one(fd, ids[i], NULL) == 0, "wake");
		}
	}
	for (i = 0; i < kSleepers; i++) {
		pthread_join(threads[i], NULL);
		CHECK(sleepers[i].lost == 0, "sleeper %d lost %d wakes", i, sleepers[i].lost);
		CHECK(atomic_load(&sleepers[i].consumed) == kRounds, "sleeper %d finished", i);
		CHECK(ioctl(fd, SI_WAKE_IOC_UNREGISTER, &sleepers[i].id) == 0, "unregister");
	}
	after = read_stats(fd);
	CHECK(after.wakes - before.wakes == (uint64_t)kSleepers * kRounds, "wakes counted");
	printf("many sleepers: %d threads x %d rounds, %llu sleeps, %llu wakes without sleeper\n",
	       kSleepers, kRounds, (unsigned long long)(after.sleeps - before.sleeps),
	       (unsigned long long)(after.wakes_no_sleeper - before.wakes_no_sleeper));
}

/* ---- wakes racing with exits ---------------------------------------------- */

enum { kChildren = 40 };

static void test_wakes_racing_exits(void)
{
	/* Children publish their slot ids here, as ranks do in the node region. */
	_Atomic uint32_t *ids = mmap(NULL, kChildren * sizeof(*ids), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fd = open_device(), i, alive = kChildren;
	pid_t pids[kChildren];
	uint64_t stale = 0;

	for (i = 0; i < kChildren; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			int mine = open_device();
			struct si_wake_register reg;
			struct si_wake_wait w;
			int sleeps = 1 + i % 7;

			if (ioctl(mine, SI_WAKE_IOC_REGISTER, &reg) != 0)
				_exit(2);
			atomic_store(&ids[i], reg.id);
			w.id = reg.id;
			w.seq = reg.seq;
			while (sleeps-- > 0) {
				w.timeout_ms = 5;
				if (ioctl(mine, SI_WAKE_IOC_WAIT, &w) != 0)
					_exit(3);
			}
			/* Every third dies without closing, by a signal. */
			if (i % 3 == 0)
				raise(SIGKILL);
			_exit(0);
		}
	}
	while (alive > 0) {
		uint32_t batch[kChildren];
		struct si_wake_wake out;
		uint32_t n = 0;
		int status;
		pid_t pid;

		for (i = 0; i < kChildren; i++)
			if (atomic_load(&ids[i]) != 0)
				batch[n++] = atomic_load(&ids[i]);
		if (n > 0) {
			CHECK(wake_ids(fd, batch, n, &out) == 0, "wake during exits");
			stale += out.stale;
		}
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
			alive--;
			CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
			      (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL),
			      "child %d status %#x", pid, status);
		}
	}
	/* Every slot died with its process. */
	for (i = 0; i < kChildren; i++) {
		struct si_wake_wake out;

		CHECK(wake_one(fd, atomic_load(&ids[i]), &out) == 0 && out.stale == 1,
		      "slot of exited child %d released", i);
	}
	printf("wakes racing exits: %d children, %llu stale ids seen on the way\n", kChildren,
	       (unsigned long long)stale);
	close(fd);
	munmap(ids, kChildren * sizeof(*ids));
}

/* ---- closing the file while another thread sleeps in it -------------------- */

struct close_case {
	int fd;
	uint32_t id;
	uint32_t seq;
	int ret;
	int err;
	double slept;
};

static void *sleep_long(void *p)
{
	struct close_case *c = p;
	struct si_wake_wait w = { .id = c->id, .seq = c->seq, .timeout_ms = 20000 };
	double t0 = now_s();

	c->ret = ioctl(c->fd, SI_WAKE_IOC_WAIT, &w);
	c->err = errno;
	c->slept = now_s() - t0;
	return NULL;
}

static void test_close_while_sleeping(void)
{
	struct close_case c = { .fd = open_device() };
	struct si_wake_register reg;
	struct si_wake_wake out;
	pthread_t thread;

	CHECK(ioctl(c.fd, SI_WAKE_IOC_REGISTER, &reg) == 0, "register");
	c.id = reg.id;
	c.seq = reg.seq;
	pthread_create(&thread, NULL, sleep_long, &c);
	usleep(200 * 1000);
	close(c.fd);	/* the sleeper holds the file; its slot goes now */
	pthread_join(thread, NULL);
	CHECK(c.ret < 0 && c.err == ESRCH, "sleeper sees its slot released (ret %d)", c.ret);
	CHECK(c.slept < 5.0, "sleeper returned after %.1f s", c.slept);
	{
		int fd = open_device();

		CHECK(wake_one(fd, reg.id, &out) == 0 && out.stale == 1, "released on close");
		close(fd);
	}
}

/* A child that inherited the descriptor closes it: the parent keeps its slot,
 * and the child may not sleep on it. */
static void test_inherited_descriptor(void)
{
	int fd = open_device(), status;
	struct si_wake_register reg;
	struct si_wake_wake out;
	pid_t pid;

	CHECK(ioctl(fd, SI_WAKE_IOC_REGISTER, &reg) == 0, "register");
	pid = fork();
	if (pid == 0) {
		struct si_wake_wait w = { .id = reg.id, .seq = reg.seq, .timeout_ms = 10 };
		int ok = ioctl(fd, SI_WAKE_IOC_WAIT, &w) < 0 && errno == ESRCH;

		close(fd);
		_exit(ok ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "only the owner sleeps");
	CHECK(wake_one(fd, reg.id, &out) == 0 && out.stale == 0, "slot survives a child's close");
	close(fd);
}

/* Another user may open the device (0666) but not wake this user's slots:
 * the wake fails with EPERM and wakes nothing; the same user still can. */
static void test_foreign_user(void)
{
	int fd = open_device(), status;
	struct si_wake_register reg;
	struct si_wake_wake out;
	struct si_wake_stats before, after;
	pid_t pid;

	CHECK(ioctl(fd, SI_WAKE_IOC_REGISTER, &reg) == 0, "register");
	before = read_stats(fd);
	pid = fork();
	if (pid == 0) {
		int foreign, ok;

		close(fd);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		foreign = open(device, O_RDWR | O_CLOEXEC);
		if (foreign < 0)
			_exit(3);
		ok = wake_one(foreign, reg.id, NULL) < 0 && errno == EPERM;
		_exit(ok ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a foreign user's wake is refused with EPERM (child status %d)", status);
	after = read_stats(fd);
	CHECK(after.wakes == before.wakes, "the refused wake woke nothing");
	CHECK(wake_one(fd, reg.id, &out) == 0 && out.stale == 0, "the owner's user still wakes it");
	CHECK(ioctl(fd, SI_WAKE_IOC_UNREGISTER, &reg.id) == 0, "unregister");
	close(fd);
}

/* Wakes stay within a job: a file that joined another job's token, or none,
 * is refused; a file joins once, and before it registers a slot. */
static void test_foreign_job(void)
{
	struct si_wake_join mine = { .token = 0x5eed5eed12345678ull }, other = { .token = 42 };
	int fd = open_device(), same = open_device(), foreign = open_device();
	int unjoined = open_device();
	struct si_wake_register reg, late;
	struct si_wake_wake out;
	struct si_wake_stats before;

	CHECK(ioctl(fd, SI_WAKE_IOC_JOIN, &mine) == 0, "join");
	CHECK(ioctl(fd, SI_WAKE_IOC_JOIN, &mine) < 0 && errno == EBUSY, "a second join is refused");
	CHECK(ioctl(same, SI_WAKE_IOC_JOIN, &mine) == 0, "join the same job");
	CHECK(ioctl(foreign, SI_WAKE_IOC_JOIN, &other) == 0, "join another job");
	CHECK(ioctl(fd, SI_WAKE_IOC_REGISTER, &reg) == 0, "register");
	before = read_stats(fd);
	CHECK(wake_one(foreign, reg.id, NULL) < 0 && errno == EPERM,
	      "another job's wake is refused with EPERM, even for root");
	CHECK(wake_one(unjoined, reg.id, NULL) < 0 && errno == EPERM,
	      "a wake through a file of no job is refused");
	CHECK(read_stats(fd).wakes == before.wakes, "the refused wakes woke nothing");
	CHECK(wake_one(same, reg.id, &out) == 0 && out.stale == 0, "the job's other file wakes it");
	CHECK(ioctl(unjoined, SI_WAKE_IOC_REGISTER, &late) == 0, "register without joining");
	CHECK(ioctl(unjoined, SI_WAKE_IOC_JOIN, &mine) < 0 && errno == EBUSY,
	      "joining after registering is refused");
	CHECK(wake_one(same, late.id, NULL) < 0 && errno == EPERM,
	      "a slot of no job is not the job's");
	close(unjoined);
	close(foreign);
	close(same);
	close(fd);
}

/* ---- signals, limits ------------------------------------------------------- */

static void on_signal(int sig) { (void)sig; }

static void test_signal(void)
{
	struct close_case c = { .fd = open_device() };
	struct sigaction action = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct si_wake_register reg;
	pthread_t thread;

	sigaction(SIGUSR1, &action, NULL);
	CHECK(ioctl(c.fd, SI_WAKE_IOC_REGISTER, &reg) == 0, "register");
	c.id = reg.id;
	c.seq = reg.seq;
	pthread_create(&thread, NULL, sleep_long, &c);
	usleep(200 * 1000);
	pthread_kill(thread, SIGUSR1);
	pthread_join(thread, NULL);
	CHECK(c.ret < 0 && c.err == EINTR && c.slept < 5.0, "signal ends the sleep (ret %d)", c.ret);
	close(c.fd);
}

static void test_limits(void)
{
	int fd = open_device(), n = 0;
	struct si_wake_register reg;
	unsigned int in_use = read_stats(fd).slots_in_use;

	while (ioctl(fd, SI_WAKE_IOC_REGISTER, &reg) == 0)
		n++;
	CHECK(errno == EMFILE && n == SI_WAKE_MAX_SLOTS_PER_FILE, "per-file cap after %d", n);
	CHECK(read_stats(fd).slots_in_use == in_use + n, "slots in use");
	close(fd);
	fd = open_device();
	CHECK(read_stats(fd).slots_in_use == in_use, "all released on close");
	close(fd);
}

int main(int argc, char **argv)
{
	int fd;
	struct si_wake_stats s;

	if (argc > 1)
		device = argv[1];
	fd = open_device();
	test_bad_arguments(fd);
	test_many_sleepers(fd);
	test_wakes_racing_exits();
	test_close_while_sleeping();
	test_inherited_descriptor();
	test_foreign_user();
	test_foreign_job();
	test_signal();
	test_limits();
	s = read_stats(fd);
	close(fd);
	printf("counters: registrations %llu sleeps %llu timeouts %llu interrupted %llu wakes %llu "
	       "wakes_no_sleeper %llu stale_wakes %llu slots_in_use %u\n",
	       (unsigned long long)s.registrations, (unsigned long long)s.sleeps,
	       (unsigned long long)s.timeouts, (unsigned long long)s.interrupted,
	       (unsigned long long)s.wakes, (unsigned long long)s.wakes_no_sleeper,
	       (unsigned long long)s.stale_wakes, s.slots_in_use);
	if (failures) {
		printf("kmod_stress: %d checks failed\n", failures);
		return 1;
	}
	printf("kmod_stress: all checks passed\n");
	return 0;
}
