// SPDX-License-Identifier: GPL-2.0
/*
 * si_wake: wait queues for SmartInterrupts interrupt threads.
 *
 * A rank's interrupt thread sleeps here and a helper process wakes it by slot
 * id. The runtime's WakeWord protocol (runtime/src/wake/wake_word.hpp)
 * decides when to sleep and when to wake; this module only moves threads, and
 * its per-slot sequence makes sure a wake issued between the sleeper's last
 * look and its sleep is not lost. ABI: include/si_wake_abi.h.
 *
 * Locking: dev->lock protects every slot's id and owner and orders wakes
 * against release; sequences are atomics read locklessly by sleepers inside
 * wait_event, which rechecks them after every wake-up. Slots live as long as
 * the device, so a sleeper never touches freed memory, even when its slot is
 * released under it.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "si_wake_abi.h"

struct si_wake_slot {
	wait_queue_head_t wq;
	atomic_t seq;
	u32 id;				/* 0: free */
	struct si_wake_file *owner;	/* the file it was registered through */
	pid_t owner_tgid;		/* and the process that did it */
	kuid_t owner_uid;		/* its effective user: only that user wakes it */
	u64 owner_token;		/* its job: only that job's files wake it */
};

struct si_wake_dev {
	struct miscdevice misc;
	spinlock_t lock;
	u32 next_generation;
	u32 next_index;			/* where the search for a free slot starts */
	u32 slots_in_use;
	atomic64_t registrations;
	atomic64_t sleeps;
	atomic64_t timeouts;
	atomic64_t interrupted;
	atomic64_t wakes;
	atomic64_t wakes_no_sleeper;
	atomic64_t stale_wakes;
	struct si_wake_slot slots[SI_WAKE_MAX_SLOTS];
};

/* One per open(): what file->private_data points to. */
struct si_wake_file {
	struct si_wake_dev *dev;
	unsigned int nslots;		/* slots it owns, under dev->lock */
	u64 token;			/* its job's (SI_WAKE_IOC_JOIN), under dev->lock */
	bool joined;
};

static struct si_wake_dev *si_wake_device;

static bool si_wake_id_valid(u32 id)
{
	return SI_WAKE_ID_GENERATION(id) != 0;
}

/* Caller holds dev->lock. Sleepers see the id change and return. */
static void si_wake_slot_release(struct si_wake_dev *dev, struct si_wake_slot *slot)
{
	slot->owner->nslots--;
	slot->id = 0;
	slot->owner = NULL;
	slot->owner_tgid = 0;
	atomic_inc(&slot->seq);
	dev->slots_in_use--;
	wake_up_interruptible_all(&slot->wq);
}

/* Releases the slots of @sf, only those registered by @tgid if it is not 0. */
static void si_wake_release_owned(struct si_wake_file *sf, pid_t tgid)
{
	struct si_wake_dev *dev = sf->dev;
	u32 i;

	spin_lock(&dev->lock);
	for (i = 0; i < SI_WAKE_MAX_SLOTS && sf->nslots > 0; i++) {
		struct si_wake_slot *slot = &dev->slots[i];

		if (slot->owner == sf && (tgid == 0 || slot->owner_tgid == tgid))
			si_wake_slot_release(dev, slot);
	}
	spin_unlock(&dev->lock);
}

static int si_wake_open(struct inode *inode, struct file *file)
{
	/* misc_open() left our miscdevice in private_data. */
	struct si_wake_dev *dev = container_of(file->private_data,
					       struct si_wake_dev, misc);
	struct si_wake_file *sf;

	sf = kzalloc(sizeof(*sf), GFP_KERNEL);
	if (!sf)
		return -ENOMEM;
	sf->dev = dev;
	file->private_data = sf;
	return stream_open(inode, file);
}

/*
 * Called on every close() of a descriptor of the file, including the
 * implicit ones at exit: the slots of the closing process go, those of a
 * process that inherited the descriptor over fork() stay with their owner.
 */
static int si_wake_flush(struct file *file, fl_owner_t id)
{
	si_wake_release_owned(file->private_data, current->tgid);
	return 0;
}

static int si_wake_release(struct inode *inode, struct file *file)
{
	struct si_wake_file *sf = file->private_data;

	si_wake_release_owned(sf, 0);
	kfree(sf);
	return 0;
}

static long si_wake_ioc_register(struct si_wake_file *sf,
				 struct si_wake_register __user *uarg)
{
	struct si_wake_dev *dev = sf->dev;
	struct si_wake_register out;
	struct si_wake_slot *slot = NULL;
	u32 n, index = 0;

	spin_lock(&dev->lock);
	if (sf->nslots >= SI_WAKE_MAX_SLOTS_PER_FILE) {
		spin_unlock(&dev->lock);
		return -EMFILE;
	}
	for (n = 0; n < SI_WAKE_MAX_SLOTS; n++) {
		index = (dev->next_index + n) % SI_WAKE_MAX_SLOTS;
		if (dev->slots[index].id == 0) {
			slot = &dev->slots[index];
			break;
		}
	}
	if (!slot) {
		spin_unlock(&dev->lock);
		return -ENOSPC;
	}
	/* Generations skip 0, which marks a free slot. */
	if (++dev->next_generation >> (32 - SI_WAKE_INDEX_BITS))
		dev->next_generation = 1;
	dev->next_index = (index + 1) % SI_WAKE_MAX_SLOTS;
	slot->id = (dev->next_generation << SI_WAKE_INDEX_BITS) | index;
	slot->owner = sf;
	slot->owner_tgid = current->tgid;
	slot->owner_uid = current_euid();
	slot->owner_token = sf->token;
	sf->nslots++;
	dev->slots_in_use++;
	out.id = slot->id;
	out.seq = atomic_read(&slot->seq);
	spin_unlock(&dev->lock);
	atomic64_inc(&dev->registrations);

	if (copy_to_user(uarg, &out, sizeof(out))) {
		spin_lock(&dev->lock);
		if (slot->id == out.id)
			si_wake_slot_release(dev, slot);
		spin_unlock(&dev->lock);
		return -EFAULT;
	}
	return 0;
}

/* Once, before the file registers a slot: its slots and wakes are the job's. */
static long si_wake_ioc_join(struct si_wake_file *sf, struct si_wake_join __user *uarg)
{
	struct si_wake_dev *dev = sf->dev;
	struct si_wake_join arg;
	long ret = 0;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	spin_lock(&dev->lock);
	if (sf->joined || sf->nslots > 0) {
		ret = -EBUSY;
	} else {
		sf->token = arg.token;
		sf->joined = true;
	}
	spin_unlock(&dev->lock);
	return ret;
}

static long si_wake_ioc_unregister(struct si_wake_file *sf, u32 __user *uarg)
{
	struct si_wake_dev *dev = sf->dev;
	struct si_wake_slot *slot;
	long ret = 0;
	u32 id;

	if (get_user(id, uarg))
		return -EFAULT;
	if (!si_wake_id_valid(id))
		return -EINVAL;
	slot = &dev->slots[SI_WAKE_ID_INDEX(id)];
	spin_lock(&dev->lock);
	if (slot->id != id || slot->owner != sf || slot->owner_tgid != current->tgid)
		ret = -ESRCH;
	else
		si_wake_slot_release(dev, slot);
	spin_unlock(&dev->lock);
	return ret;
}

static bool si_wake_slot_moved(struct si_wake_slot *slot, u32 id, u32 seq)
{
	return (u32)atomic_read(&slot->seq) != seq || READ_ONCE(slot->id) != id;
}

static long si_wake_ioc_wait(struct si_wake_file *sf, struct si_wake_wait __user *uarg)
{
	struct si_wake_dev *dev = sf->dev;
	struct si_wake_slot *slot;
	struct si_wake_wait arg;
	long left;
	bool mine;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (!si_wake_id_valid(arg.id) || arg.timeout_ms > SI_WAKE_MAX_TIMEOUT_MS)
		return -EINVAL;
	slot = &dev->slots[SI_WAKE_ID_INDEX(arg.id)];
	spin_lock(&dev->lock);
	mine = slot->id == arg.id && slot->owner == sf &&
	       slot->owner_tgid == current->tgid;
	spin_unlock(&dev->lock);
	if (!mine)
		return -ESRCH;

	/* The armed check: a wake since the caller's last look ends it here. */
	if (si_wake_slot_moved(slot, arg.id, arg.seq)) {
		arg.result = SI_WAKE_WOKEN;
	} else if (arg.timeout_ms == 0) {
		arg.result = SI_WAKE_TIMED_OUT;
	} else {
		atomic64_inc(&dev->sleeps);
		left = wait_event_interruptible_timeout(slot->wq,
				si_wake_slot_moved(slot, arg.id, arg.seq),
				msecs_to_jiffies(arg.timeout_ms));
		if (left < 0) {
			atomic64_inc(&dev->interrupted);
			return left;	/* -ERESTARTSYS */
		}
		arg.result = left > 0 ? SI_WAKE_WOKEN : SI_WAKE_TIMED_OUT;
		if (left == 0)
			atomic64_inc(&dev->timeouts);
	}
	/* Released while we slept (close from another thread, unregister). */
	if (READ_ONCE(slot->id) != arg.id)
		return -ESRCH;
	arg.seq = atomic_read(&slot->seq);
	if (copy_to_user(uarg, &arg, sizeof(arg)))
		return -EFAULT;
	return 0;
}

static long si_wake_ioc_wake(struct si_wake_file *sf, struct si_wake_wake __user *uarg)
{
	struct si_wake_dev *dev = sf->dev;
	u32 ids[SI_WAKE_MAX_BATCH];
	struct si_wake_wake arg;
	bool admin;
	u32 i;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags != 0 || arg.count == 0)
		return -EINVAL;
	if (arg.count > SI_WAKE_MAX_BATCH)
		return -E2BIG;
	if (copy_from_user(ids, u64_to_user_ptr(arg.ids), arg.count * sizeof(ids[0])))
		return -EFAULT;
	for (i = 0; i < arg.count; i++)
		if (!si_wake_id_valid(ids[i]))
			return -EINVAL;

	arg.woken = 0;
	arg.stale = 0;
	admin = capable(CAP_SYS_ADMIN);
	spin_lock(&dev->lock);
	/* The device is open to everyone (0666): a user may wake only its own
	 * threads, and a job only its own, so that no other job can make one
	 * spin in vain. */
	for (i = 0; i < arg.count; i++) {
		const struct si_wake_slot *slot = &dev->slots[SI_WAKE_ID_INDEX(ids[i])];

		if (slot->id == ids[i] && (slot->owner_token != sf->token ||
					   (!admin && !uid_eq(slot->owner_uid, current_euid())))) {
			spin_unlock(&dev->lock);
			return -EPERM;
		}
	}
	for (i = 0; i < arg.count; i++) {
		struct si_wake_slot *slot = &dev->slots[SI_WAKE_ID_INDEX(ids[i])];

		if (slot->id != ids[i]) {
			arg.stale++;
			continue;
		}
		atomic_inc(&slot->seq);
		/* Full barrier, pairing with the sleeper's set_current_state(). */
		if (wq_has_sleeper(&slot->wq)) {
			wake_up_interruptible(&slot->wq);
			arg.woken++;
		} else {
			atomic64_inc(&dev->wakes_no_sleeper);
		}
	}
	spin_unlock(&dev->lock);
	atomic64_add(arg.count - arg.stale, &dev->wakes);
	atomic64_add(arg.stale, &dev->stale_wakes);

	if (copy_to_user(uarg, &arg, sizeof(arg)))
		return -EFAULT;
	return 0;
}

static void si_wake_read_stats(struct si_wake_dev *dev, struct si_wake_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->registrations = atomic64_read(&dev->registrations);
	out->sleeps = atomic64_read(&dev->sleeps);
	out->timeouts = atomic64_read(&dev->timeouts);
	out->interrupted = atomic64_read(&dev->interrupted);
	out->wakes = atomic64_read(&dev->wakes);
	out->wakes_no_sleeper = atomic64_read(&dev->wakes_no_sleeper);
	out->stale_wakes = atomic64_read(&dev->stale_wakes);
	out->slots_in_use = READ_ONCE(dev->slots_in_use);
}

static long si_wake_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct si_wake_file *sf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case SI_WAKE_IOC_VERSION: {
		struct si_wake_version version = {
			.abi_version = SI_WAKE_ABI_VERSION,
			.max_slots = SI_WAKE_MAX_SLOTS,
			.max_batch = SI_WAKE_MAX_BATCH,
		};

		return copy_to_user(uarg, &version, sizeof(version)) ? -EFAULT : 0;
	}
	case SI_WAKE_IOC_REGISTER:
		return si_wake_ioc_register(sf, uarg);
	case SI_WAKE_IOC_UNREGISTER:
		return si_wake_ioc_unregister(sf, uarg);
	case SI_WAKE_IOC_JOIN:
		return si_wake_ioc_join(sf, uarg);
	case SI_WAKE_IOC_WAIT:
		return si_wake_ioc_wait(sf, uarg);
	case SI_WAKE_IOC_WAKE:
		return si_wake_ioc_wake(sf, uarg);
	case SI_WAKE_IOC_STATS: {
		struct si_wake_stats stats;

		si_wake_read_stats(sf->dev, &stats);
		return copy_to_user(uarg, &stats, sizeof(stats)) ? -EFAULT : 0;
	}
	default:
		return -ENOTTY;
	}
}

static const struct file_operations si_wake_fops = {
	.owner = THIS_MODULE,
	.open = si_wake_open,
	.flush = si_wake_flush,
	.release = si_wake_release,
	.unlocked_ioctl = si_wake_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

/* /sys/class/misc/si_wake/stats: the counters as "name value" lines. */
static ssize_t stats_show(struct device *device, struct device_attribute *attr, char *buf)
{
	/* misc_register() made the miscdevice the class device's drvdata. */
	struct miscdevice *misc = dev_get_drvdata(device);
	struct si_wake_stats s;

	if (!misc)
		return -ENODEV;
	si_wake_read_stats(container_of(misc, struct si_wake_dev, misc), &s);
	return sysfs_emit(buf,
			  "registrations %llu\nsleeps %llu\ntimeouts %llu\ninterrupted %llu\n"
			  "wakes %llu\nwakes_no_sleeper %llu\nstale_wakes %llu\nslots_in_use %u\n",
			  s.registrations, s.sleeps, s.timeouts, s.interrupted, s.wakes,
			  s.wakes_no_sleeper, s.stale_wakes, s.slots_in_use);
}
static DEVICE_ATTR_RO(stats);

static struct attribute *si_wake_attrs[] = {
	&dev_attr_stats.attr,
	NULL,
};
ATTRIBUTE_GROUPS(si_wake);

static int __init si_wake_init(void)
{
	struct si_wake_dev *dev;
	u32 i;
	int ret;

	dev = kvzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	spin_lock_init(&dev->lock);
	for (i = 0; i < SI_WAKE_MAX_SLOTS; i++)
		init_waitqueue_head(&dev->slots[i].wq);
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.name = SI_WAKE_DEVICE_NAME;
	dev->misc.fops = &si_wake_fops;
	dev->misc.groups = si_wake_groups;
	/* Any local user may use it: a stray wake only costs the sleeper a
	 * recheck of its wake word, and slots are capped per open file. */
	dev->misc.mode = 0666;

	ret = misc_register(&dev->misc);
	if (ret)
		goto out_free_dev;
	si_wake_device = dev;
	pr_info("si_wake: /dev/%s ready, ABI %u, %u slots\n", SI_WAKE_DEVICE_NAME,
		SI_WAKE_ABI_VERSION, SI_WAKE_MAX_SLOTS);
	return 0;

out_free_dev:
	kvfree(dev);
	return ret;
}

static void __exit si_wake_exit(void)
{
	/* No file can be open: each holds a module reference (fops.owner). */
	misc_deregister(&si_wake_device->misc);
	kvfree(si_wake_device);
}

module_init(si_wake_init);
module_exit(si_wake_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("SmartInterrupts wake-up slots for interrupt threads");
MODULE_AUTHOR("SmartInterrupts project");
