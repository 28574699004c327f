// SPDX-License-Identifier: GPL-2.0
/*
 * Describe the binary interface given by whichever scif_ioctl.h the
 * compiler finds: the size and member offsets of every argument structure
 * and the value of every request number. Built once against the
 * distribution's header and once against the project's, for each ABI; the
 * descriptions must be identical (see tools/Makefile, target check-abi).
 *
 * Built with -DSCIF_ABI_OWN (project's header only), it describes instead
 * the requests this driver adds (<linux/scif_requests.h>). The kernel
 * passes those to its handlers unconverted for 32-bit callers, so the -m64
 * and -m32 descriptions must be identical.
 *
 * Nothing here is run: the file is only compiled to assembly (-S), and
 * every value is a constant the compiler writes into that assembly as an
 * ".ascii" line starting "@@abi" (the kernel's asm-offsets do the same),
 * which tools/Makefile turns into one text line per fact. So both ABIs are
 * checked on a host that cannot execute i386 programs.
 */
#include <stddef.h>
#include <sys/ioctl.h>
#include <linux/scif_ioctl.h>

/*
 * One fact: its kind, its name and its value, which the assembly shows as
 * an immediate operand ("$N"). The value goes through long, so a
 * request number above 2^31 may come out negative on i386; the Makefile
 * prints every value modulo 2^32.
 */
#define EMIT(kind, name, val) \
	do { \
		asm volatile("\n.ascii \"@@abi " kind " " name " %0\"" \
			     : : "i" ((long)(val))); \
	} while (0)

/*
 * Describe one member: offset and size. Its type and the structure's are
 * named through typedefs, so that each argument appears once outside the
 * name strings.
 */
#define DESCRIBE(t, m) \
	do { \
		typedef t abi_s_; \
		EMIT("offsetof", #t "." #m, offsetof(abi_s_, m)); \
		EMIT("member", #t "." #m, sizeof(((abi_s_ *)0)->m)); \
	} while (0)
/* Whether an integer member is signed: all ones, in its type, is below 1. */
#define SIGNED(t, m) \
	do { \
		typedef t abi_s_; \
		typedef __typeof__(((abi_s_ *)0)->m) abi_m_; \
		EMIT("signed", #t "." #m, (abi_m_)~0 < 1); \
	} while (0)
/* An integer member. */
#define FIELD(t, m) \
	do { \
		DESCRIBE(t, m); \
		SIGNED(t, m); \
	} while (0)
/* A member that is itself a structure. */
#define SFIELD(t, m) DESCRIBE(t, m)
#define SIZE(t) EMIT("sizeof", #t, sizeof(t))
#define REQ(name) EMIT("ioctl", #name, name)

#ifdef SCIF_ABI_OWN
void scif_abi_describe(void);

void scif_abi_describe(void)
{
	SIZE(struct scifioctl_stream_map);
	FIELD(struct scifioctl_stream_map, fd);
	FIELD(struct scifioctl_stream_map, flags);
	FIELD(struct scifioctl_stream_map, rx_size);
	FIELD(struct scifioctl_stream_map, tx_size);
	FIELD(struct scifioctl_stream_map, rw_offset);
	FIELD(struct scifioctl_stream_map, rw_len);
	FIELD(struct scifioctl_stream_map, ro_offset);
	FIELD(struct scifioctl_stream_map, ro_len);
	FIELD(struct scifioctl_stream_map, attrs);
	FIELD(struct scifioctl_stream_map, reserved);

	SIZE(struct scif_stream_ctl);
	SIZE(struct scif_stream_shared);

	REQ(SCIF_STREAM_MAP);
	REQ(SCIF_STREAM_WAKE);
	EMIT("highest", "request number", SCIF_IOCTL_NR_MAX);
}
#else
void scif_abi_describe(void);

void scif_abi_describe(void)
{
	SIZE(struct scif_port_id);
	FIELD(struct scif_port_id, node);
	FIELD(struct scif_port_id, port);

	SIZE(struct scifioctl_connect);
	SFIELD(struct scifioctl_connect, self);
	SFIELD(struct scifioctl_connect, peer);

	SIZE(struct scifioctl_accept);
	FIELD(struct scifioctl_accept, flags);
	SFIELD(struct scifioctl_accept, peer);
	FIELD(struct scifioctl_accept, endpt);

	SIZE(struct scifioctl_msg);
	FIELD(struct scifioctl_msg, msg);
	FIELD(struct scifioctl_msg, len);
	FIELD(struct scifioctl_msg, flags);
	FIELD(struct scifioctl_msg, out_len);

	SIZE(struct scifioctl_reg);
	FIELD(struct scifioctl_reg, addr);
	FIELD(struct scifioctl_reg, len);
	FIELD(struct scifioctl_reg, offset);
	FIELD(struct scifioctl_reg, prot);
	FIELD(struct scifioctl_reg, flags);
	FIELD(struct scifioctl_reg, out_offset);

	SIZE(struct scifioctl_unreg);
	FIELD(struct scifioctl_unreg, offset);
	FIELD(struct scifioctl_unreg, len);

	SIZE(struct scifioctl_copy);
	FIELD(struct scifioctl_copy, loffset);
	FIELD(struct scifioctl_copy, len);
	FIELD(struct scifioctl_copy, roffset);
	FIELD(struct scifioctl_copy, addr);
	FIELD(struct scifioctl_copy, flags);

	SIZE(struct scifioctl_fence_mark);
	FIELD(struct scifioctl_fence_mark, flags);
	FIELD(struct scifioctl_fence_mark, mark);

	SIZE(struct scifioctl_fence_signal);
	FIELD(struct scifioctl_fence_signal, loff);
	FIELD(struct scifioctl_fence_signal, lval);
	FIELD(struct scifioctl_fence_signal, roff);
	FIELD(struct scifioctl_fence_signal, rval);
	FIELD(struct scifioctl_fence_signal, flags);

	SIZE(struct scifioctl_node_ids);
	FIELD(struct scifioctl_node_ids, nodes);
	FIELD(struct scifioctl_node_ids, self);
	FIELD(struct scifioctl_node_ids, len);

	REQ(SCIF_BIND);
	REQ(SCIF_LISTEN);
	REQ(SCIF_CONNECT);
	REQ(SCIF_ACCEPTREQ);
	REQ(SCIF_ACCEPTREG);
	REQ(SCIF_SEND);
	REQ(SCIF_RECV);
	REQ(SCIF_REG);
	REQ(SCIF_UNREG);
	REQ(SCIF_READFROM);
	REQ(SCIF_WRITETO);
	REQ(SCIF_VREADFROM);
	REQ(SCIF_VWRITETO);
	REQ(SCIF_GET_NODEIDS);
	REQ(SCIF_FENCE_MARK);
	REQ(SCIF_FENCE_WAIT);
	REQ(SCIF_FENCE_SIGNAL);
}
#endif
