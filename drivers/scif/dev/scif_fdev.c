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
 * - 32-bit callers: dev/scif_fdev_compat.c converts the layouts that
 *   differ on i386.
 *
 * The RMA requests are in dev/scif_fdev_rma.c.
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "../core/scif_core.h"
#include "../rma/scif_rma.h"
#include "scif_dev.h"
#include "scif_fdev.h"

/* Node ids are 8 bits wide on the wire, so no node list is longer. */
#define SCIF_FDEV_MAX_NODES	256

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
 * Move @len bytes between the user buffer @ubuf and the connection. The
 * core copies them straight between user memory and the rings, with no
 * kernel buffer in between. Returns the number of bytes moved, or an
 * error if none was.
 */
static int scif_fdev_xfer(scif_epd_t epd, void __user *ubuf, int len,
			  int flags, bool send)
{
	struct iov_iter iter;

	if (len < 0)
		return -EINVAL;
	if (flags & ~SCIF_SEND_BLOCK)
		return -EINVAL;
	if (!len)
		return send ? scif_send(epd, NULL, 0, flags) :
			      scif_recv(epd, NULL, 0, flags);
	/* As import_ubuf() would, which older kernels lack. */
	len = min_t(int, len, MAX_RW_COUNT);
	if (!access_ok(ubuf, len))
		return -EFAULT;
	iov_iter_ubuf(&iter, send ? ITER_SOURCE : ITER_DEST, ubuf, len);
	return send ? scif_send_iter(epd, &iter, flags) :
		      scif_recv_iter(epd, &iter, flags);
}

long scif_fdev_msg(scif_epd_t epd, struct scifioctl_msg *req,
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

long scif_fdev_node_ids(struct scifioctl_node_ids *req, s32 __user *ulen)
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

/* The requests whose argument has the same layout on every ABI. */
long scif_fdev_common(struct file *file, unsigned int cmd, unsigned long arg,
		      void __user *argp)
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
	case SCIF_STREAM_MAP:
		return scif_fdev_stream_map(scif_fdev_epd(f), argp);
	case SCIF_STREAM_WAKE:
		return scif_fdev_stream_wake(scif_fdev_epd(f));
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
 * Return: 0, or a negative errno from misc_register() or
 * scif_stream_map_init().
 */
int scif_fdev_init(void)
{
	int ret = scif_stream_map_init();

	if (ret)
		return ret;
	ret = misc_register(&scif_fdev_misc);
	if (ret)
		scif_stream_map_exit();
	return ret;
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
	scif_stream_map_exit();
}

static const struct scif_rma_watch scif_dev_rma_watch = {
	.peer_windows_gone = scif_mmap_ep_dead,
};

/* What /dev/scif's layer wants the core to tell it. */
static const struct scif_layer scif_dev_layer = {
	.name = "dev",
	.instance_add = scif_debugfs_add,
	.instance_remove = scif_debugfs_remove,
	.node_lost = scif_mmap_node_lost,
};

/**
 * scif_dev_register() - hook /dev/scif's layer into the core and RMA
 *
 * Called at module load before the first instance is created, so that
 * every instance gets its debugfs directory and every mapping of a peer's
 * window is stopped when the node is lost or the windows are dropped.
 *
 * Return: 0, or the error of scif_layer_register().
 */
int scif_dev_register(void)
{
	int ret = scif_layer_register(&scif_dev_layer);

	if (!ret)
		scif_rma_set_watch(&scif_dev_rma_watch);
	return ret;
}

/**
 * scif_dev_unregister() - undo scif_dev_register()
 *
 * Called at module unload after the last instance is gone.
 */
void scif_dev_unregister(void)
{
	scif_rma_set_watch(NULL);
	scif_layer_unregister(&scif_dev_layer);
}
