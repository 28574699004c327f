// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/scif: one SCIF endpoint per open file, driven by the requests of
 * <uapi/linux/scif_ioctl.h>.
 *
 * Everything here is translation: user memory is copied in and out, the
 * arguments are checked, and the work is done by the in-kernel API on the
 * default instance. Two points need care:
 *
 * - Accepted endpoints. SCIF_ACCEPTREQ accepts on the listener and parks the
 *   new endpoint in the core, which returns an opaque handle (never a kernel
 *   address). SCIF_ACCEPTREG, issued on a newly opened file, claims the
 *   handle and swaps the claimed endpoint in for the file's own unused one.
 *   Only the accepting process can claim, and only while the listener is
 *   open: the core closes the endpoints left parked when it closes.
 *   The swap is only allowed while no other request, poll or mmap has ever
 *   seen the file's endpoint: once a caller has looked at it, the endpoint
 *   of a file never changes, so no reference counting is needed beyond the
 *   file's own.
 *
 * - 32-bit callers. Some argument structures are smaller on i386 because a
 *   __u64 there is only 4-byte aligned; their request numbers, which encode
 *   the size, differ too. compat_ioctl converts those layouts.
 */
#include <linux/compat.h>
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/scif.h>
#include <linux/sizes.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <uapi/linux/scif_ioctl.h>

#include "scif_epd.h"
#include "scif_fdev.h"
#include "scif_mmap.h"

/* Bounce buffer of SCIF_SEND / SCIF_RECV: at most this much per step. */
#define SCIF_FDEV_CHUNK		SZ_64K
/* Node ids are 8 bits wide on the wire, so no node list is longer. */
#define SCIF_FDEV_MAX_NODES	256

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

static void scif_fdev_op_begin(struct scif_fdev_file *f,
			       struct scif_fdev_op *op)
{
	op->owner = current->files;
	spin_lock(&f->ops_lock);
	list_add(&op->node, &f->ops);
	spin_unlock(&f->ops_lock);
}

static void scif_fdev_op_end(struct scif_fdev_file *f, struct scif_fdev_op *op)
{
	spin_lock(&f->ops_lock);
	list_del(&op->node);
	spin_unlock(&f->ops_lock);
}

/* The endpoint of @f; after this call it can no longer be swapped. */
static scif_epd_t scif_fdev_epd(struct scif_fdev_file *f)
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

static int scif_fdev_open(struct inode *inode, struct file *file)
{
	struct scif_fdev_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	spin_lock_init(&f->ops_lock);
	INIT_LIST_HEAD(&f->ops);
	f->epd = scif_open();
	if (!f->epd) {
		kfree(f);
		return -ENOMEM;
	}
	file->private_data = f;
	return nonseekable_open(inode, file);
}

static int scif_fdev_release(struct inode *inode, struct file *file)
{
	struct scif_fdev_file *f = file->private_data;

	scif_close(f->epd);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

/*
 * Called on every close() of a descriptor: if threads sharing the closing
 * descriptor table are blocked in a request on this file, wake them.
 */
static int scif_fdev_flush(struct file *file, fl_owner_t id)
{
	struct scif_fdev_file *f = file->private_data;
	struct scif_fdev_op *op;
	bool mine = false;

	spin_lock(&f->ops_lock);
	list_for_each_entry(op, &f->ops, node) {
		if (op->owner == id) {
			mine = true;
			break;
		}
	}
	spin_unlock(&f->ops_lock);
	if (mine)
		scif_epd_flush(scif_fdev_epd(f));
	return 0;
}

static __poll_t scif_fdev_poll(struct file *file, poll_table *wait)
{
	struct scif_fdev_file *f = file->private_data;

	return scif_epd_poll(scif_fdev_epd(f), file, wait);
}

static long scif_fdev_bind(scif_epd_t epd, u64 __user *uport)
{
	u64 port;
	int ret;

	if (get_user(port, uport))
		return -EFAULT;
	if (port > U16_MAX)
		return -EINVAL;
	ret = scif_bind(epd, port);
	if (ret < 0)
		return ret;
	port = ret;
	if (put_user(port, uport))
		return -EFAULT;
	return 0;
}

/* The id of the local node. */
static void scif_fdev_self(u16 *self)
{
	u16 first;

	*self = 0;
	scif_get_node_ids(&first, 1, self);
}

static long scif_fdev_connect(struct file *file, scif_epd_t epd,
			      struct scifioctl_connect __user *ureq)
{
	struct scifioctl_connect req;
	int ret;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (file->f_flags & O_NONBLOCK)
		ret = scif_epd_connect_nb(epd, &req.peer);
	else
		ret = scif_connect(epd, &req.peer);
	if (ret < 0)
		return ret;
	scif_fdev_self(&req.self.node);
	req.self.port = ret;
	if (copy_to_user(&ureq->self, &req.self, sizeof(req.self)))
		return -EFAULT;
	return 0;
}

static long scif_fdev_accept_req(scif_epd_t epd,
				 struct scifioctl_accept __user *ureq)
{
	struct scifioctl_accept req;
	scif_epd_t newepd;
	u64 handle;
	int ret;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (req.flags & ~SCIF_ACCEPT_SYNC)
		return -EINVAL;
	ret = scif_accept(epd, &req.peer, &newepd, req.flags);
	if (ret < 0)
		return ret;
	ret = scif_epd_park(epd, newepd, &handle);
	if (ret < 0) {
		scif_close(newepd);
		return ret;
	}
	req.endpt = handle;
	if (copy_to_user(ureq, &req, sizeof(req))) {
		/* Nobody can learn the handle now: take it back and drop it. */
		newepd = scif_epd_claim(handle);
		if (!IS_ERR_OR_NULL(newepd))
			scif_close(newepd);
		return -EFAULT;
	}
	return 0;
}

static long scif_fdev_accept_reg(struct scif_fdev_file *f, u64 __user *uh)
{
	scif_epd_t newepd, old;
	u64 handle;

	if (get_user(handle, uh))
		return -EFAULT;
	mutex_lock(&f->lock);
	if (f->used) {
		mutex_unlock(&f->lock);
		return -EBUSY;
	}
	newepd = scif_epd_claim(handle);
	if (IS_ERR_OR_NULL(newepd)) {
		mutex_unlock(&f->lock);
		return newepd ? PTR_ERR(newepd) : -EINVAL;
	}
	old = f->epd;
	f->epd = newepd;
	/* Lock-free readers must see the new @epd once they see @used. */
	smp_store_release(&f->used, true);
	mutex_unlock(&f->lock);
	/* Nobody ever saw the file's first endpoint. */
	scif_close(old);
	return 0;
}

/*
 * Move @len bytes between the user buffer @ubuf and the connection through a
 * kernel bounce buffer, one chunk at a time. Returns the number of bytes
 * moved, or an error if none was.
 */
static int scif_fdev_xfer(scif_epd_t epd, void __user *ubuf, int len,
			  int flags, bool send)
{
	int done = 0, chunk, ret = 0;
	void *kbuf;

	if (len < 0)
		return -EINVAL;
	if (flags & ~SCIF_SEND_BLOCK)
		return -EINVAL;
	if (!len)
		return send ? scif_send(epd, NULL, 0, flags) :
			      scif_recv(epd, NULL, 0, flags);

	kbuf = kvmalloc(min(len, SCIF_FDEV_CHUNK), GFP_KERNEL);
	if (!kbuf)
		return -ENOMEM;
	while (done < len) {
		chunk = min(len - done, SCIF_FDEV_CHUNK);
		if (send) {
			if (copy_from_user(kbuf, ubuf + done, chunk)) {
				ret = -EFAULT;
				break;
			}
			ret = scif_send(epd, kbuf, chunk, flags);
		} else {
			ret = scif_recv(epd, kbuf, chunk, flags);
			/*
			 * The bytes are consumed already; if the buffer is bad
			 * they are lost, which is the caller's doing.
			 */
			if (ret > 0 && copy_to_user(ubuf + done, kbuf, ret))
				ret = -EFAULT;
		}
		if (ret < 0)
			break;
		done += ret;
		/* Short: non-blocking and nothing more now, or interrupted. */
		if (ret < chunk)
			break;
	}
	kvfree(kbuf);
	return done ? done : ret;
}

static long scif_fdev_msg(scif_epd_t epd, struct scifioctl_msg *req,
			  s32 __user *uout, bool send)
{
	int ret;

	ret = scif_fdev_xfer(epd, u64_to_user_ptr(req->msg), req->len,
			     req->flags, send);
	if (ret < 0)
		return ret;
	if (put_user(ret, uout))
		return -EFAULT;
	return 0;
}

static long scif_fdev_node_ids(struct scifioctl_node_ids *req,
			       s32 __user *ulen)
{
	u16 *nodes, self;
	int n, total;
	long ret = 0;

	if (req->len < 0)
		return -EINVAL;
	n = min(req->len, SCIF_FDEV_MAX_NODES);
	nodes = kcalloc(max(n, 1), sizeof(*nodes), GFP_KERNEL);
	if (!nodes)
		return -ENOMEM;
	total = scif_get_node_ids(nodes, n, &self);
	if (total < 0) {
		ret = total;
		goto out;
	}
	if (copy_to_user(u64_to_user_ptr(req->nodes), nodes,
			 min(n, total) * sizeof(*nodes)) ||
	    put_user(self, (u16 __user *)u64_to_user_ptr(req->self)) ||
	    put_user(total, ulen))
		ret = -EFAULT;
out:
	kfree(nodes);
	return ret;
}

/*
 * A user buffer given to the RMA requests. The core takes addresses at or
 * above TASK_SIZE for kernel memory, so nothing from userspace may get there:
 * such ranges are refused here with -EFAULT.
 */
static bool scif_fdev_urange_ok(u64 addr, u64 len)
{
	return addr < TASK_SIZE && len <= TASK_SIZE - addr;
}

static long scif_fdev_reg(scif_epd_t epd, struct scifioctl_reg __user *ureq)
{
	struct scifioctl_reg req;
	off_t off;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	/* SCIF_MAP_KERNEL is for kernel callers only. */
	if (req.flags & ~SCIF_MAP_FIXED)
		return -EINVAL;
	if (!scif_fdev_urange_ok(req.addr, req.len))
		return -EFAULT;
	off = scif_register(epd, (void *)(unsigned long)req.addr, req.len,
			    req.offset, req.prot, req.flags);
	if (off < 0)
		return off;
	if (put_user(off, &ureq->out_offset)) {
		/* The caller cannot know the window: take it down again. */
		scif_unregister(epd, off, req.len);
		return -EFAULT;
	}
	return 0;
}

static long scif_fdev_unreg(scif_epd_t epd,
			    struct scifioctl_unreg __user *ureq)
{
	struct scifioctl_unreg req;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	return scif_unregister(epd, req.offset, req.len);
}

/* SCIF_READFROM .. SCIF_VWRITETO, told apart by the request's number. */
static long scif_fdev_copy(scif_epd_t epd, unsigned int nr,
			   const struct scifioctl_copy *req)
{
	void *addr = (void *)(unsigned long)req->addr;

	switch (nr) {
	case _IOC_NR(SCIF_READFROM):
		return scif_readfrom(epd, req->loffset, req->len, req->roffset,
				     req->flags);
	case _IOC_NR(SCIF_WRITETO):
		return scif_writeto(epd, req->loffset, req->len, req->roffset,
				    req->flags);
	}
	if (!req->addr || !scif_fdev_urange_ok(req->addr, req->len))
		return -EFAULT;
	if (nr == _IOC_NR(SCIF_VREADFROM))
		return scif_vreadfrom(epd, addr, req->len, req->roffset,
				      req->flags);
	return scif_vwriteto(epd, addr, req->len, req->roffset, req->flags);
}

static long scif_fdev_fence_mark(scif_epd_t epd, s32 flags, u64 umark)
{
	s32 __user *p = u64_to_user_ptr(umark);
	int mark;
	long ret;

	/* Find a bad pointer before a peer mark is taken in vain. */
	if (put_user(0, p))
		return -EFAULT;
	ret = scif_fence_mark(epd, flags, &mark);
	if (ret)
		return ret;
	if (put_user(mark, p))
		return -EFAULT;
	return 0;
}

static long scif_fdev_fence_signal(scif_epd_t epd,
				   const struct scifioctl_fence_signal *req)
{
	return scif_fence_signal(epd, req->loff, req->lval, req->roff,
				 req->rval, req->flags);
}

/* The requests whose argument has the same layout on every ABI. */
static long scif_fdev_common(struct file *file, unsigned int cmd,
			     unsigned long arg, void __user *argp)
{
	struct scif_fdev_file *f = file->private_data;

	switch (cmd) {
	case SCIF_BIND:
		return scif_fdev_bind(scif_fdev_epd(f), argp);
	case SCIF_LISTEN:
		/* The backlog travels by value. */
		return scif_listen(scif_fdev_epd(f), (int)arg);
	case SCIF_CONNECT:
		return scif_fdev_connect(file, scif_fdev_epd(f), argp);
	case SCIF_ACCEPTREQ:
		return scif_fdev_accept_req(scif_fdev_epd(f), argp);
	case SCIF_ACCEPTREG:
		return scif_fdev_accept_reg(f, argp);
	case SCIF_REG:
		return scif_fdev_reg(scif_fdev_epd(f), argp);
	case SCIF_UNREG:
		return scif_fdev_unreg(scif_fdev_epd(f), argp);
	case SCIF_FENCE_WAIT:
		/* The mark travels by value. */
		return scif_fence_wait(scif_fdev_epd(f), (int)arg);
	}
	return -ENOTTY;
}

static long scif_fdev_do_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	struct scif_fdev_file *f = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case SCIF_SEND:
	case SCIF_RECV: {
		struct scifioctl_msg __user *ureq = argp;
		struct scifioctl_msg req;

		if (copy_from_user(&req, ureq, sizeof(req)))
			return -EFAULT;
		return scif_fdev_msg(scif_fdev_epd(f), &req, &ureq->out_len,
				     cmd == SCIF_SEND);
	}
	case SCIF_GET_NODEIDS: {
		struct scifioctl_node_ids __user *ureq = argp;
		struct scifioctl_node_ids req;

		if (copy_from_user(&req, ureq, sizeof(req)))
			return -EFAULT;
		return scif_fdev_node_ids(&req, &ureq->len);
	}
	case SCIF_READFROM:
	case SCIF_WRITETO:
	case SCIF_VREADFROM:
	case SCIF_VWRITETO: {
		struct scifioctl_copy req;

		if (copy_from_user(&req, argp, sizeof(req)))
			return -EFAULT;
		return scif_fdev_copy(scif_fdev_epd(f), _IOC_NR(cmd), &req);
	}
	case SCIF_FENCE_MARK: {
		struct scifioctl_fence_mark req;

		if (copy_from_user(&req, argp, sizeof(req)))
			return -EFAULT;
		return scif_fdev_fence_mark(scif_fdev_epd(f), req.flags,
					    req.mark);
	}
	case SCIF_FENCE_SIGNAL: {
		struct scifioctl_fence_signal req;

		if (copy_from_user(&req, argp, sizeof(req)))
			return -EFAULT;
		return scif_fdev_fence_signal(scif_fdev_epd(f), &req);
	}
	}
	return scif_fdev_common(file, cmd, arg, argp);
}

static long scif_fdev_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct scif_fdev_file *f = file->private_data;
	struct scif_fdev_op op;
	long ret;

	scif_fdev_op_begin(f, &op);
	ret = scif_fdev_do_ioctl(file, cmd, arg);
	scif_fdev_op_end(f, &op);
	return ret;
}

#ifdef CONFIG_COMPAT
/*
 * i386 layouts of the structures that differ: a __u64 is only 4-byte
 * aligned there, so the tail padding after the last __s32 disappears.
 */
struct scifioctl_msg32 {
	compat_u64 msg;
	s32 len;
	s32 flags;
	s32 out_len;
};

struct scifioctl_node_ids32 {
	compat_u64 nodes;
	compat_u64 self;
	s32 len;
};

struct scifioctl_copy32 {
	compat_s64 loffset;
	compat_u64 len;
	compat_s64 roffset;
	compat_u64 addr;
	s32 flags;
};

struct scifioctl_fence_mark32 {
	s32 flags;
	compat_u64 mark;
};

struct scifioctl_fence_signal32 {
	compat_s64 loff;
	compat_u64 lval;
	compat_s64 roff;
	compat_u64 rval;
	s32 flags;
};

#define SCIF_SEND32		_IOWR('s', 6, struct scifioctl_msg32)
#define SCIF_RECV32		_IOWR('s', 7, struct scifioctl_msg32)
#define SCIF_READFROM32		_IOWR('s', 10, struct scifioctl_copy32)
#define SCIF_WRITETO32		_IOWR('s', 11, struct scifioctl_copy32)
#define SCIF_VREADFROM32	_IOWR('s', 12, struct scifioctl_copy32)
#define SCIF_VWRITETO32		_IOWR('s', 13, struct scifioctl_copy32)
#define SCIF_GET_NODEIDS32	_IOWR('s', 14, struct scifioctl_node_ids32)
#define SCIF_FENCE_MARK32	_IOWR('s', 15, struct scifioctl_fence_mark32)
#define SCIF_FENCE_SIGNAL32	_IOWR('s', 17, struct scifioctl_fence_signal32)

static_assert(sizeof(struct scifioctl_msg32) == 20);
static_assert(sizeof(struct scifioctl_node_ids32) == 20);
static_assert(sizeof(struct scifioctl_copy32) == 36);
static_assert(sizeof(struct scifioctl_fence_mark32) == 12);
static_assert(offsetof(struct scifioctl_fence_mark32, mark) == 4);
static_assert(sizeof(struct scifioctl_fence_signal32) == 36);
/* These are laid out alike on both ABIs; compat passes them through. */
static_assert(sizeof(struct scifioctl_connect) == 8);
static_assert(sizeof(struct scifioctl_accept) == 16);
static_assert(sizeof(struct scifioctl_reg) == 40);
static_assert(offsetof(struct scifioctl_reg, out_offset) == 32);
static_assert(sizeof(struct scifioctl_unreg) == 16);

static long scif_fdev_do_compat_ioctl(struct file *file, unsigned int cmd,
				      unsigned long arg)
{
	struct scif_fdev_file *f = file->private_data;
	void __user *argp = compat_ptr(arg);

	switch (cmd) {
	case SCIF_SEND32:
	case SCIF_RECV32: {
		struct scifioctl_msg32 __user *ureq = argp;
		struct scifioctl_msg32 req32;
		struct scifioctl_msg req;

		if (copy_from_user(&req32, ureq, sizeof(req32)))
			return -EFAULT;
		req.msg = req32.msg;
		req.len = req32.len;
		req.flags = req32.flags;
		return scif_fdev_msg(scif_fdev_epd(f), &req, &ureq->out_len,
				     cmd == SCIF_SEND32);
	}
	case SCIF_GET_NODEIDS32: {
		struct scifioctl_node_ids32 __user *ureq = argp;
		struct scifioctl_node_ids32 req32;
		struct scifioctl_node_ids req;

		if (copy_from_user(&req32, ureq, sizeof(req32)))
			return -EFAULT;
		req.nodes = req32.nodes;
		req.self = req32.self;
		req.len = req32.len;
		return scif_fdev_node_ids(&req, &ureq->len);
	}
	case SCIF_READFROM32:
	case SCIF_WRITETO32:
	case SCIF_VREADFROM32:
	case SCIF_VWRITETO32: {
		struct scifioctl_copy32 req32;
		struct scifioctl_copy req;

		if (copy_from_user(&req32, argp, sizeof(req32)))
			return -EFAULT;
		req.loffset = req32.loffset;
		req.len = req32.len;
		req.roffset = req32.roffset;
		req.addr = req32.addr;
		req.flags = req32.flags;
		return scif_fdev_copy(scif_fdev_epd(f), _IOC_NR(cmd), &req);
	}
	case SCIF_FENCE_MARK32: {
		struct scifioctl_fence_mark32 req32;

		if (copy_from_user(&req32, argp, sizeof(req32)))
			return -EFAULT;
		return scif_fdev_fence_mark(scif_fdev_epd(f), req32.flags,
					    req32.mark);
	}
	case SCIF_FENCE_SIGNAL32: {
		struct scifioctl_fence_signal32 req32;
		struct scifioctl_fence_signal req;

		if (copy_from_user(&req32, argp, sizeof(req32)))
			return -EFAULT;
		req.loff = req32.loff;
		req.lval = req32.lval;
		req.roff = req32.roff;
		req.rval = req32.rval;
		req.flags = req32.flags;
		return scif_fdev_fence_signal(scif_fdev_epd(f), &req);
	}
	case SCIF_LISTEN:
	case SCIF_FENCE_WAIT:
		/* By value: no pointer to convert. */
		return scif_fdev_common(file, cmd, arg, NULL);
	}
	return scif_fdev_common(file, cmd, (unsigned long)argp, argp);
}

static long scif_fdev_compat_ioctl(struct file *file, unsigned int cmd,
				   unsigned long arg)
{
	struct scif_fdev_file *f = file->private_data;
	struct scif_fdev_op op;
	long ret;

	scif_fdev_op_begin(f, &op);
	ret = scif_fdev_do_compat_ioctl(file, cmd, arg);
	scif_fdev_op_end(f, &op);
	return ret;
}
#endif

/* Map the peer's registered address space; the file offset is its offset. */
static int scif_fdev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct scif_fdev_file *f = file->private_data;

	return scif_mmap(scif_fdev_epd(f), vma);
}

static const struct file_operations scif_fdev_fops = {
	.owner = THIS_MODULE,
	.open = scif_fdev_open,
	.release = scif_fdev_release,
	.flush = scif_fdev_flush,
	.poll = scif_fdev_poll,
	.mmap = scif_fdev_mmap,
	.unlocked_ioctl = scif_fdev_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl = scif_fdev_compat_ioctl,
#endif
};

static struct miscdevice scif_fdev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "scif",
	.fops = &scif_fdev_fops,
	.mode = 0666,
};

/**
 * scif_fdev_init() - create /dev/scif
 *
 * Call after the default instance is ready: opening the device uses it.
 *
 * Return: 0, or a negative errno from misc_register().
 */
int scif_fdev_init(void)
{
	return misc_register(&scif_fdev_misc);
}

/**
 * scif_fdev_exit() - remove /dev/scif
 *
 * No file of the device can be open any more (the module is pinned while
 * one is), so nothing uses the default instance through it afterwards.
 */
void scif_fdev_exit(void)
{
	misc_deregister(&scif_fdev_misc);
}
