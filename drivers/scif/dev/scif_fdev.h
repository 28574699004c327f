/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/scif inside: the state of an open file, and the request handlers
 * shared by the native (dev/scif_fdev.c, dev/scif_fdev_rma.c) and the
 * 32-bit (dev/scif_fdev_compat.c) ioctl paths.
 */
#ifndef SCIF_FDEV_H
#define SCIF_FDEV_H

#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/scif.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <uapi/linux/scif_ioctl.h>
#include <uapi/linux/scif_requests.h>

/*
 * vm_flags_set() and vm_flags_clear() came with Linux 6.3 (the Kbuild file
 * looks for them); before, the flags were written directly, as mmap_lock
 * is held for writing in ->mmap. Both mmap handlers of the dev layer use
 * them.
 */
#ifndef SCIF_HAVE_VM_FLAGS_SET
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

struct scif_endpt;
struct scif_instance;
struct vm_area_struct;

/**
 * struct scif_fdev_file - state of one open file of /dev/scif
 * @lock: serialises the endpoint swap of %SCIF_ACCEPTREG against the first
 *	  use of the endpoint
 * @epd: the file's endpoint; fixed once @used is set
 * @used: set (with release semantics) when anybody obtained @epd; from then
 *	  on @epd is read without the lock
 * @ops_lock: protects @ops
 * @ops: requests in progress on the file (&struct scif_fdev_op)
 */
struct scif_fdev_file {
	struct mutex lock;	/* see above: swap vs. first use */
	scif_epd_t epd;
	bool used;
	spinlock_t ops_lock;	/* protects @ops */
	struct list_head ops;
};

/*
 * A request in progress on a file, and the descriptor table it came from.
 * close() interrupts only the requests of the process (descriptor table)
 * that closes: a child closing its inherited copy after fork() must not
 * disturb the parent.
 */
struct scif_fdev_op {
	struct list_head node;
	fl_owner_t owner;
};

static inline void scif_fdev_op_begin(struct scif_fdev_file *f,
				      struct scif_fdev_op *op)
{
	op->owner = current->files;
	spin_lock(&f->ops_lock);
	list_add(&op->node, &f->ops);
	spin_unlock(&f->ops_lock);
}

static inline void scif_fdev_op_end(struct scif_fdev_file *f,
				    struct scif_fdev_op *op)
{
	spin_lock(&f->ops_lock);
	list_del(&op->node);
	spin_unlock(&f->ops_lock);
}

/* The endpoint of @f; after this call it can no longer be swapped. */
static inline scif_epd_t scif_fdev_epd(struct scif_fdev_file *f)
{
	scif_epd_t epd;

	/* Pairs with the releases below and in scif_fdev_accept_reg(). */
	if (smp_load_acquire(&f->used))
		return f->epd;
	mutex_lock(&f->lock);
	epd = f->epd;
	/* Publish @epd before the flag that lets readers skip the lock. */
	smp_store_release(&f->used, true);
	mutex_unlock(&f->lock);
	return epd;
}

/* dev/scif_fdev.c */
long scif_fdev_msg(scif_epd_t epd, struct scifioctl_msg *req,
		   s32 __user *out_len, bool send);
long scif_fdev_node_ids(struct scifioctl_node_ids *req, s32 __user *out_len);
long scif_fdev_common(struct file *file, unsigned int cmd, unsigned long arg,
		      void __user *argp);

/* dev/scif_fdev_rma.c */
long scif_fdev_reg(scif_epd_t epd, struct scifioctl_reg __user *ureq);
long scif_fdev_unreg(scif_epd_t epd, struct scifioctl_unreg __user *ureq);
long scif_fdev_copy(scif_epd_t epd, unsigned int nr,
		    const struct scifioctl_copy *req);
long scif_fdev_fence_mark(scif_epd_t epd, s32 flags, u64 umark);
long scif_fdev_fence_signal(scif_epd_t epd,
			    const struct scifioctl_fence_signal *req);

/* dev/scif_fdev_compat.c */
long scif_fdev_compat_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg);

/* dev/scif_debugfs.c */
int scif_debugfs_add(struct scif_instance *si);
void scif_debugfs_remove(struct scif_instance *si);

/* dev/scif_mmap.c */
int scif_mmap(scif_epd_t epd, struct vm_area_struct *vma);
void scif_mmap_node_lost(struct scif_instance *si, u16 node);
void scif_mmap_ep_dead(struct scif_endpt *ep);

/* dev/scif_stream_map.c */
long scif_fdev_stream_map(scif_epd_t epd, void __user *ureq);
long scif_fdev_stream_wake(scif_epd_t epd);
int scif_stream_map_init(void);
void scif_stream_map_exit(void);

#endif /* SCIF_FDEV_H */
