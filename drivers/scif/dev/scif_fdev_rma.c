// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/scif: the requests of registered memory and RMA (SCIF_REG ..
 * SCIF_FENCE_SIGNAL), turned into calls of the in-kernel API.
 */
#include <linux/scif.h>
#include <linux/uaccess.h>
#include <uapi/linux/scif_ioctl.h>

#include "../core/scif_core.h"
#include "scif_fdev.h"

/*
 * A user buffer given to the RMA requests. The core takes addresses at or
 * above TASK_SIZE for kernel memory, so nothing from userspace may get there:
 * such ranges are refused here with -EFAULT.
 */
static bool scif_fdev_urange_ok(u64 addr, u64 len)
{
	return addr < TASK_SIZE && len <= TASK_SIZE - addr;
}

long scif_fdev_reg(scif_epd_t epd, struct scifioctl_reg __user *ureq)
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

long scif_fdev_unreg(scif_epd_t epd, struct scifioctl_unreg __user *ureq)
{
	struct scifioctl_unreg req;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	return scif_unregister(epd, req.offset, req.len);
}

/* SCIF_READFROM .. SCIF_VWRITETO, told apart by the request's number. */
long scif_fdev_copy(scif_epd_t epd, unsigned int nr,
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

long scif_fdev_fence_mark(scif_epd_t epd, s32 flags, u64 umark)
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

long scif_fdev_fence_signal(scif_epd_t epd,
			    const struct scifioctl_fence_signal *req)
{
	return scif_fence_signal(epd, req->loff, req->lval, req->roff,
				 req->rval, req->flags);
}
