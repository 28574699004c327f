// SPDX-License-Identifier: GPL-2.0
/*
 * Print the binary interface described by whichever scif_ioctl.h the
 * compiler finds: the size and member offsets of every argument structure
 * and the value of every request number. Built once against the
 * distribution's header and once against the project's, for each ABI; the
 * outputs must be identical (see tools/Makefile, target check-abi).
 *
 * Built with -DSCIF_ABI_OWN (project's header only), it prints instead the
 * requests this driver adds (<linux/scif_requests.h>). The kernel passes
 * those to its handlers unconverted for 32-bit callers, so the -m64 and
 * -m32 outputs must be identical.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <linux/scif_ioctl.h>

/*
 * Describe one member: offset and size, and with @sign set also whether it
 * is a signed integer. The member is named once only, through a pointer
 * into a local instance of the structure.
 */
#define DESCRIBE(t, m, sign) \
	do { \
		t obj_; \
		__auto_type mp_ = &obj_.m; \
		const char *name_ = #t "." #m; \
		printf("offsetof %-28s %zu\n", name_, \
		       (size_t)((char *)mp_ - (char *)&obj_)); \
		printf("member %-30s %zu\n", name_, sizeof(*mp_)); \
		sign; \
	} while (0)
#define PRINT_SIGN \
	do { \
		__typeof__(*mp_) v_ = 0; \
		v_--; \
		printf("signed %-30s %d\n", name_, !(v_ > 0)); \
	} while (0)
/* An integer member. */
#define FIELD(t, m) DESCRIBE(t, m, PRINT_SIGN)
/* A member that is itself a structure. */
#define SFIELD(t, m) DESCRIBE(t, m, (void)0)
#define SIZE(t) \
	printf("sizeof %-30s %zu\n", #t, sizeof(t))
#define REQ(name) print_request(#name, name)

static void print_request(const char *name, unsigned long nr)
{
	printf("ioctl %-31s 0x%08lx\n", name, nr);
}

#ifdef SCIF_ABI_OWN
int main(void)
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
	printf("highest request number %d\n", SCIF_IOCTL_NR_MAX);
	return 0;
}
#else
int main(void)
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
	return 0;
}
#endif
