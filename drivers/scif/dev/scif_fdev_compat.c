// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/scif for 32-bit callers. Some argument structures are smaller on
 * i386 because a __u64 there is only 4-byte aligned; their request numbers,
 * which encode the size, differ too. These are converted to the native
 * layouts here; every other request passes through unchanged.
 */
#include <linux/compat.h>
#include <linux/uaccess.h>

#include "../core/scif_core.h"
#include "scif_fdev.h"

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
static_assert(sizeof(struct scifioctl_stream_map) == 56);
static_assert(offsetof(struct scifioctl_stream_map, rw_offset) == 16);
/*
 * A new request raises SCIF_IOCTL_NR_MAX. Its handler goes into
 * scif_fdev_common() when its argument is laid out alike on both ABIs,
 * else into both switches (the native one and the one below, with an i386
 * layout): a case only in scif_fdev_do_ioctl() answers ENOTTY to 32-bit
 * callers. See "Adding an ioctl" in Documentation/architecture.rst.
 */
static_assert(_IOC_NR(SCIF_STREAM_WAKE) == SCIF_IOCTL_NR_MAX);

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

long scif_fdev_compat_ioctl(struct file *file, unsigned int cmd,
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
