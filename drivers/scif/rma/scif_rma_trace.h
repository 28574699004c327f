/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the RMA layer, in the core's "scif" trace system: an RMA
 * copy starting and ending. With the core's events (core/scif_trace.h)
 * they time the stages of an RMA.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM scif

#if !defined(SCIF_RMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SCIF_RMA_TRACE_H

#include <linux/tracepoint.h>

/* An RMA copy (readfrom, writeto and the v variants) starts or ends. */
DECLARE_EVENT_CLASS(scif_rma_copy_class,
		    TP_PROTO(u64 ep, size_t len, bool write, int flags,
			     int ret),
		    TP_ARGS(ep, len, write, flags, ret),
		    TP_STRUCT__entry(__field(u64, ep)
				     __field(size_t, len)
				     __field(int, flags)
				     __field(int, ret)
				     __field(bool, write)),
		    TP_fast_assign(__entry->ep = ep;
				   __entry->len = len;
				   __entry->flags = flags;
				   __entry->ret = ret;
				   __entry->write = write;),
		    TP_printk("ep=%llx %s len=%zu flags=%#x ret=%d",
			      __entry->ep, __entry->write ? "write" : "read",
			      __entry->len, __entry->flags, __entry->ret)
);

DEFINE_EVENT(scif_rma_copy_class, scif_rma_copy_start,
	     TP_PROTO(u64 ep, size_t len, bool write, int flags, int ret),
	     TP_ARGS(ep, len, write, flags, ret));
DEFINE_EVENT(scif_rma_copy_class, scif_rma_copy_done,
	     TP_PROTO(u64 ep, size_t len, bool write, int flags, int ret),
	     TP_ARGS(ep, len, write, flags, ret));

#endif /* SCIF_RMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE scif_rma_trace
#include <trace/define_trace.h>
