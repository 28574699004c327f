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

/**
 * struct scifioctl_stream_map - argument of %SCIF_STREAM_MAP
 * @fd: out: a new file descriptor (close-on-exec) whose mmap() gives the
 *	stream's memory; closing it once mapped leaves the mappings working
 * @flags: in: must be 0
 * @rx_size: out: bytes of the endpoint's receive ring, a power of 2
 * @tx_size: out: bytes of the peer's receive ring, a power of 2
 * @rw_offset: out: file offset of the read-write part
 * @rw_len: out: its length: the &struct scif_stream_shared page, the page of
 *	    the peer's &struct scif_stream_ctl, then the peer's ring
 * @ro_offset: out: file offset of the read-only part
 * @ro_len: out: its length: the page of our &struct scif_stream_ctl, then
 *	    our receive ring
 *
 * Both parts must be mapped MAP_SHARED, each whole and in one piece; the
 * read-only part without PROT_WRITE.
 */
struct scifioctl_stream_map {
	__s32 fd;
	__u32 flags;
	__u32 rx_size;
	__u32 tx_size;
	__u64 rw_offset;
	__u64 rw_len;
	__u64 ro_offset;
	__u64 ro_len;
};

/**
 * struct scif_stream_ctl - the indices of one direction of a mapped stream
 * @written: bytes the writer put into the reader's ring in total (mod 2^32),
 *	     stored after the bytes themselves
 * @consumed: bytes of the other direction's stream this side has read, in
 *	      total: the other side's credit
 * @rx_event: stored by the other side's reader before it sleeps: the value
 *	      of @written it saw. A writer whose store of @written moves past
 *	      it must call %SCIF_STREAM_WAKE
 * @tx_event: the same for the other side's writer sleeping for room: the
 *	      value of @consumed it saw
 *
 * Little-endian. Each endpoint's block is written only by its peer: a
 * process stores @written and @consumed in the peer's block (read-write
 * part) and reads the peer's stores in its own (read-only part).
 */
struct scif_stream_ctl {
	__le32 written;
	__le32 consumed;
	__le32 rx_event;
	__le32 tx_event;
};

/**
 * struct scif_stream_shared - positions of a mapped stream, kept by the
 *			       process and read by the kernel
 * @read: bytes received in total (mod 2^32)
 * @sent: bytes sent in total (mod 2^32)
 * @rx_lock: free for the process to serialise its receivers (0 is free)
 * @tx_lock: the same for its senders
 * @down: set by the kernel once bytes may no longer move through the
 *	  mapping (the connection was closed, reset or lost): from then on
 *	  %SCIF_SEND and %SCIF_RECV report what happened
 *
 * The kernel takes @read and @sent as they stand whenever it uses the
 * stream (%SCIF_SEND, %SCIF_RECV, poll) and stores them back after
 * %SCIF_SEND and %SCIF_RECV moved bytes, so a process may mix the
 * requests with its own copies as long as it does not run both for one
 * direction at once. A value that cannot be right resets the connection.
 */
struct scif_stream_shared {
	__u32 read;
	__u32 sent;
	__u32 rx_lock;
	__u32 tx_lock;
	__u32 down;
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
/* Extensions of this driver: the stream through mapped memory. */
#define SCIF_STREAM_MAP		_IOWR('s', 18, struct scifioctl_stream_map)
#define SCIF_STREAM_WAKE	_IO('s', 19)

#endif /* _UAPI_LINUX_SCIF_IOCTL_H */
