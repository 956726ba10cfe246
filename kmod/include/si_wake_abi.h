/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * si_wake: user/kernel ABI of the SmartInterrupts wake-up device.
 *
 * Shared by the kernel module (kmod/si_wake.c) and user space (the runtime's
 * `kmod` wake backend, tests/vm/kmod_stress.c). Any incompatible change bumps
 * SI_WAKE_ABI_VERSION; user space checks it with SI_WAKE_IOC_VERSION before
 * anything else.
 *
 * A slot is a wait queue with a 32-bit wake sequence. A process registers a
 * slot through its open file of /dev/si_wake and publishes the slot id where
 * its wakers can read it (the runtime: the node region). Only the registering
 * process sleeps on the slot; a process of the same effective user (the
 * job's helpers, forked from its ranks) or one with CAP_SYS_ADMIN may wake
 * it, and only through a file of the same job: each file may join a job once,
 * before it registers a slot, with SI_WAKE_IOC_JOIN and a token the job
 * keeps to itself (the runtime: a random number in its node region, which
 * only the job's user can read); a slot belongs to the job of the file it was
 * registered through, and a file that did not join is a job of its own with
 * token 0. SI_WAKE_IOC_WAKE naming another user's or another job's live slot
 * fails with EPERM and wakes nothing; CAP_SYS_ADMIN lifts the user check, not
 * the job check.
 * The slot is released when the registering process closes that file (any
 * descriptor of it, like POSIX record locks) or exits.
 *
 * Sleeping cannot lose a wake-up: SI_WAKE_IOC_WAIT sleeps only while the
 * slot's sequence still equals the value the caller passes, i.e. no wake came
 * since the caller last looked; every wake increments the sequence.
 */
#ifndef SI_WAKE_ABI_H
#define SI_WAKE_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SI_WAKE_ABI_VERSION	2
#define SI_WAKE_DEVICE_NAME	"si_wake"	/* /dev/si_wake */

/* A slot id: generation in the high bits, table index in the low ones, so
 * that an id kept after its slot was released and reused is recognised. */
#define SI_WAKE_INDEX_BITS	10
#define SI_WAKE_MAX_SLOTS	(1u << SI_WAKE_INDEX_BITS)
#define SI_WAKE_ID_INDEX(id)	((id) & (SI_WAKE_MAX_SLOTS - 1))
#define SI_WAKE_ID_GENERATION(id) ((id) >> SI_WAKE_INDEX_BITS)	/* never 0 */

#define SI_WAKE_MAX_SLOTS_PER_FILE 256
#define SI_WAKE_MAX_BATCH	64		/* ids per SI_WAKE_IOC_WAKE */
#define SI_WAKE_MAX_TIMEOUT_MS	3600000u /* one hour */

struct si_wake_version {
	__u32 abi_version;	/* SI_WAKE_ABI_VERSION */
	__u32 max_slots;
	__u32 max_batch;
	__u32 reserved;
};

struct si_wake_join {
	__u64 token;		/* the job's; 0 is the token of files that never join */
};

struct si_wake_register {
	__u32 id;		/* out: the new slot's id */
	__u32 seq;		/* out: its wake sequence now */
};

enum si_wake_result {
	SI_WAKE_TIMED_OUT = 0,
	SI_WAKE_WOKEN = 1,	/* the sequence moved on */
};

struct si_wake_wait {
	__u32 id;		/* a slot this process registered */
	__u32 seq;		/* in: sequence last seen; out: sequence now */
	__u32 timeout_ms;	/* 0: do not sleep; at most SI_WAKE_MAX_TIMEOUT_MS */
	__u32 result;		/* out: enum si_wake_result */
};

struct si_wake_wake {
	__u64 ids;		/* user pointer to __u32 slot ids */
	__u32 count;		/* 1..SI_WAKE_MAX_BATCH */
	__u32 flags;		/* must be 0 */
	__u32 woken;		/* out: ids whose slot had a sleeper */
	__u32 stale;		/* out: ids whose slot was released since */
};

/* Device-wide counters since the module was loaded. */
struct si_wake_stats {
	__u64 registrations;
	__u64 sleeps;		/* waits that went to sleep */
	__u64 timeouts;
	__u64 interrupted;	/* waits ended by a signal */
	__u64 wakes;		/* slots woken (sequence incremented) */
	__u64 wakes_no_sleeper;	/* ... of which nobody slept in the slot */
	__u64 stale_wakes;	/* ids of released slots */
	__u32 slots_in_use;
	__u32 reserved;
};

#define SI_WAKE_IOC_MAGIC	0xE5
#define SI_WAKE_IOC_VERSION	_IOR(SI_WAKE_IOC_MAGIC, 0, struct si_wake_version)
#define SI_WAKE_IOC_REGISTER	_IOR(SI_WAKE_IOC_MAGIC, 1, struct si_wake_register)
#define SI_WAKE_IOC_UNREGISTER	_IOW(SI_WAKE_IOC_MAGIC, 2, __u32)
#define SI_WAKE_IOC_WAIT	_IOWR(SI_WAKE_IOC_MAGIC, 3, struct si_wake_wait)
#define SI_WAKE_IOC_WAKE	_IOWR(SI_WAKE_IOC_MAGIC, 4, struct si_wake_wake)
#define SI_WAKE_IOC_STATS	_IOR(SI_WAKE_IOC_MAGIC, 5, struct si_wake_stats)
#define SI_WAKE_IOC_JOIN	_IOW(SI_WAKE_IOC_MAGIC, 6, struct si_wake_join)

#endif /* SI_WAKE_ABI_H */
