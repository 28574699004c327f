/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SCIF: the ioctl interface of /dev/scif.
 *
 * Every open file of /dev/scif carries one SCIF endpoint; the requests below
 * act on that endpoint. The numbers and the memory layout of each argument
 * are frozen: programs built against the scif_ioctl.h that distributions ship
 * in their kernel-headers packages must keep working unchanged, on 64-bit and
 * on 32-bit x86. New requests may only be added after number 17.
 *
 * All addresses of user buffers travel in __u64 fields so that the layout
 * does not depend on the width of a pointer. Note that several structures end
 * in a 32-bit member after 64-bit ones: their size (and therefore the request
 * number, which encodes it) differs between i386 and x86_64. The kernel
 * accepts both forms. See Documentation/scif-ioctl-abi.rst.
 */
#ifndef _UAPI_LINUX_SCIF_IOCTL_H
#define _UAPI_LINUX_SCIF_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * struct scif_port_id - address of a SCIF port
 * @node: node the port lives on
 * @port: port number on that node
 */
struct scif_port_id {
	__u16 node;
	__u16 port;
};

/**
 * struct scifioctl_connect - argument of %SCIF_CONNECT
 * @self: filled in by the kernel with the address the endpoint got bound to
 * @peer: the listening port to connect to
 */
struct scifioctl_connect {
	struct scif_port_id self;
	struct scif_port_id peer;
};

/**
 * struct scifioctl_accept - argument of %SCIF_ACCEPTREQ
 * @flags: zero, or %SCIF_ACCEPT_SYNC to wait for a request
 * @peer: filled in with the address of the connecting endpoint
 * @endpt: filled in with an opaque handle of the new endpoint; hand it to
 *	   %SCIF_ACCEPTREG on a freshly opened /dev/scif file. It is never a
 *	   kernel address.
 */
struct scifioctl_accept {
	__s32 flags;
	struct scif_port_id peer;
	__u64 endpt;
};

/**
 * struct scifioctl_msg - argument of %SCIF_SEND and %SCIF_RECV
 * @msg: user address of the data buffer
 * @len: number of bytes to transfer; must not be negative
 * @flags: zero, or %SCIF_SEND_BLOCK / %SCIF_RECV_BLOCK
 * @out_len: filled in with the number of bytes actually transferred
 */
struct scifioctl_msg {
	__u64 msg;
	__s32 len;
	__s32 flags;
	__s32 out_len;
};

/**
 * struct scifioctl_reg - argument of %SCIF_REG
 * @addr: page-aligned user address of the memory to register
 * @len: length in bytes, a multiple of the page size
 * @offset: requested window offset (exact with %SCIF_MAP_FIXED)
 * @prot: %SCIF_PROT_READ and/or %SCIF_PROT_WRITE
 * @flags: %SCIF_MAP_FIXED or zero
 * @out_offset: filled in with the offset of the new window
 */
struct scifioctl_reg {
	__u64 addr;
	__u64 len;
	__s64 offset;
	__s32 prot;
	__s32 flags;
	__s64 out_offset;
};

/**
 * struct scifioctl_unreg - argument of %SCIF_UNREG
 * @offset: first byte of the windows to remove
 * @len: length of the range to remove
 */
struct scifioctl_unreg {
	__s64 offset;
	__u64 len;
};

/**
 * struct scifioctl_copy - argument of the four RMA copy requests
 * @loffset: offset in the local registered address space (%SCIF_READFROM,
 *	     %SCIF_WRITETO)
 * @len: number of bytes to copy
 * @roffset: offset in the peer's registered address space
 * @addr: user address of the local buffer (%SCIF_VREADFROM, %SCIF_VWRITETO)
 * @flags: %SCIF_RMA_USECPU, %SCIF_RMA_USECACHE, %SCIF_RMA_SYNC,
 *	   %SCIF_RMA_ORDERED
 */
struct scifioctl_copy {
	__s64 loffset;
	__u64 len;
	__s64 roffset;
	__u64 addr;
	__s32 flags;
};

/**
 * struct scifioctl_fence_mark - argument of %SCIF_FENCE_MARK
 * @flags: %SCIF_FENCE_INIT_SELF or %SCIF_FENCE_INIT_PEER
 * @mark: user address of an __s32 that receives the mark
 */
struct scifioctl_fence_mark {
	__s32 flags;
	__u64 mark;
};

/**
 * struct scifioctl_fence_signal - argument of %SCIF_FENCE_SIGNAL
 * @loff: local registered offset to write @lval to
 * @lval: value for the local side
 * @roff: peer registered offset to write @rval to
 * @rval: value for the peer side
 * @flags: which sides to signal, and whose RMAs to wait for
 */
struct scifioctl_fence_signal {
	__s64 loff;
	__u64 lval;
	__s64 roff;
	__u64 rval;
	__s32 flags;
};

/**
 * struct scifioctl_node_ids - argument of %SCIF_GET_NODEIDS
 * @nodes: user address of an array of @len __u16 that receives node ids
 * @self: user address of one __u16 that receives the local node id
 * @len: capacity of @nodes on entry; on return, the number of nodes that
 *	 are online (which may exceed the capacity)
 */
struct scifioctl_node_ids {
	__u64 nodes;
	__u64 self;
	__s32 len;
};

/*
 * The request numbers. The argument of SCIF_LISTEN (the backlog) and of
 * SCIF_FENCE_WAIT (the mark) is passed by value; every other request takes a
 * pointer to the type named in its definition.
 */
#define SCIF_BIND		_IOWR('s', 1, __u64)
#define SCIF_LISTEN		_IOW('s', 2, __s32)
#define SCIF_CONNECT		_IOWR('s', 3, struct scifioctl_connect)
#define SCIF_ACCEPTREQ		_IOWR('s', 4, struct scifioctl_accept)
#define SCIF_ACCEPTREG		_IOWR('s', 5, __u64)
#define SCIF_SEND		_IOWR('s', 6, struct scifioctl_msg)
#define SCIF_RECV		_IOWR('s', 7, struct scifioctl_msg)
#define SCIF_REG		_IOWR('s', 8, struct scifioctl_reg)
#define SCIF_UNREG		_IOWR('s', 9, struct scifioctl_unreg)
#define SCIF_READFROM		_IOWR('s', 10, struct scifioctl_copy)
#define SCIF_WRITETO		_IOWR('s', 11, struct scifioctl_copy)
#define SCIF_VREADFROM		_IOWR('s', 12, struct scifioctl_copy)
#define SCIF_VWRITETO		_IOWR('s', 13, struct scifioctl_copy)
#define SCIF_GET_NODEIDS	_IOWR('s', 14, struct scifioctl_node_ids)
#define SCIF_FENCE_MARK		_IOWR('s', 15, struct scifioctl_fence_mark)
#define SCIF_FENCE_WAIT		_IOWR('s', 16, __s32)
#define SCIF_FENCE_SIGNAL	_IOWR('s', 17, struct scifioctl_fence_signal)

/*
 * Requests 18 up to SCIF_IOCTL_NR_MAX, this driver's own:
 * <linux/scif_requests.h>.
 */
#include <linux/scif_requests.h>

#endif /* _UAPI_LINUX_SCIF_IOCTL_H */
