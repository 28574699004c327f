/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SCIF: the requests of /dev/scif that this driver adds to the frozen ones
 * of <linux/scif_ioctl.h> (numbers 1 to 17), and their argument types.
 * The project's scif_ioctl.h includes this header. It is a file of its own
 * because the kernel tree ships its own include/uapi/linux/scif_ioctl.h,
 * which shadows the project's in module builds: the driver includes this
 * header by name to see the requests the kernel's copy lacks.
 *
 * Today these are the stream of a connected endpoint mapped into the
 * process, so that bytes move without system calls. See
 * Documentation/scif-ioctl-abi.rst and, for what a new request touches,
 * "Adding an ioctl" in Documentation/architecture.rst.
 */
#ifndef _UAPI_LINUX_SCIF_REQUESTS_H
#define _UAPI_LINUX_SCIF_REQUESTS_H

#include <linux/ioctl.h>
#include <linux/types.h>

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
 * @attrs: out: %SCIF_STREAM_TX_REMOTE or 0
 * @reserved: out: 0
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
	__u32 attrs;
	__u32 reserved;
};

/*
 * The peer's ring lies across the link, mapped write-combining: the bytes
 * are for another machine, so copy them in with non-temporal stores.
 * Without it the peer is on this machine and reads them from our caches.
 */
#define SCIF_STREAM_TX_REMOTE	(1U << 0)

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
 * scif_stream_wake_due() - the wake rule of a mapped stream
 * @event: the event index the other side stored (@rx_event of
 *	   &struct scif_stream_ctl after a send, @tx_event after a receive)
 * @from: our index (@written, or @consumed) before the move
 * @to: our index after it
 *
 * The same rule for the kernel and the process: the other side sleeps
 * until this move if its event index lies in [@from, @to), and the mover
 * then owes it a %SCIF_STREAM_WAKE. All values are stream offsets modulo
 * 2^32.
 *
 * Return: non-zero if a %SCIF_STREAM_WAKE is due.
 */
static __inline__ int scif_stream_wake_due(__u32 event, __u32 from, __u32 to)
{
	return (__u32)(to - event - 1U) < (__u32)(to - from);
}

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
 * File offsets of the two parts of the mapping (also reported by
 * %SCIF_STREAM_MAP).
 */
#define SCIF_STREAM_RW_OFFSET	0ULL
#define SCIF_STREAM_RO_OFFSET	(1ULL << 30)

#define SCIF_STREAM_MAP		_IOWR('s', 18, struct scifioctl_stream_map)
#define SCIF_STREAM_WAKE	_IO('s', 19)

/*
 * The highest request number /dev/scif knows: every number from 1 to this
 * one is a request. A new request takes the next number and raises this.
 */
#define SCIF_IOCTL_NR_MAX	19

#endif /* _UAPI_LINUX_SCIF_REQUESTS_H */
