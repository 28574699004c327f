/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the SCIF core: messages as they leave for and arrive from
 * a node, and the stages of a byte stream (a call entering, its data
 * arriving in the receive ring, the wakeup, the call returning). With the
 * transport's own events (scif_ntb) they split one round trip into stages;
 * Documentation/benchmarks.rst shows how (scripts/bench/bench-trace).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM scif

#if !defined(SCIF_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SCIF_TRACE_H

#include <linux/tracepoint.h>

/* A wire message handed to a link (@ret its result) or taken from one. */
DECLARE_EVENT_CLASS(scif_msg_class,
		    TP_PROTO(u16 node, u8 type, u64 src_ep, u64 dst_ep,
			     u32 len, int ret),
		    TP_ARGS(node, type, src_ep, dst_ep, len, ret),
		    TP_STRUCT__entry(__field(u64, src_ep)
				     __field(u64, dst_ep)
				     __field(u32, len)
				     __field(int, ret)
				     __field(u16, node)
				     __field(u8, type)),
		    TP_fast_assign(__entry->src_ep = src_ep;
				   __entry->dst_ep = dst_ep;
				   __entry->len = len;
				   __entry->ret = ret;
				   __entry->node = node;
				   __entry->type = type;),
		    TP_printk("node=%u type=%u src_ep=%llx dst_ep=%llx len=%u ret=%d",
			      __entry->node, __entry->type, __entry->src_ep,
			      __entry->dst_ep, __entry->len, __entry->ret)
);

DEFINE_EVENT(scif_msg_class, scif_msg_tx,
	     TP_PROTO(u16 node, u8 type, u64 src_ep, u64 dst_ep, u32 len,
		      int ret),
	     TP_ARGS(node, type, src_ep, dst_ep, len, ret));

DEFINE_EVENT(scif_msg_class, scif_msg_rx,
	     TP_PROTO(u16 node, u8 type, u64 src_ep, u64 dst_ep, u32 len,
		      int ret),
	     TP_ARGS(node, type, src_ep, dst_ep, len, ret));

/* scif_send() or scif_recv() entered (@len asked) or returning (@len ret). */
DECLARE_EVENT_CLASS(scif_stream_call_class,
		    TP_PROTO(u64 ep, int len, int flags),
		    TP_ARGS(ep, len, flags),
		    TP_STRUCT__entry(__field(u64, ep)
				     __field(int, len)
				     __field(int, flags)),
		    TP_fast_assign(__entry->ep = ep;
				   __entry->len = len;
				   __entry->flags = flags;),
		    TP_printk("ep=%llx len=%d flags=%#x", __entry->ep,
			      __entry->len, __entry->flags)
);

DEFINE_EVENT(scif_stream_call_class, scif_send_enter,
	     TP_PROTO(u64 ep, int len, int flags), TP_ARGS(ep, len, flags));
DEFINE_EVENT(scif_stream_call_class, scif_send_exit,
	     TP_PROTO(u64 ep, int len, int flags), TP_ARGS(ep, len, flags));
DEFINE_EVENT(scif_stream_call_class, scif_recv_enter,
	     TP_PROTO(u64 ep, int len, int flags), TP_ARGS(ep, len, flags));
DEFINE_EVENT(scif_stream_call_class, scif_recv_exit,
	     TP_PROTO(u64 ep, int len, int flags), TP_ARGS(ep, len, flags));

/* Stream data copied into an endpoint's receive ring; readers woken. */
TRACE_EVENT(scif_stream_rx,
	    TP_PROTO(u64 ep, u32 seq, u32 len, u32 queued),
	    TP_ARGS(ep, seq, len, queued),
	    TP_STRUCT__entry(__field(u64, ep)
			     __field(u32, seq)
			     __field(u32, len)
			     __field(u32, queued)),
	    TP_fast_assign(__entry->ep = ep;
			   __entry->seq = seq;
			   __entry->len = len;
			   __entry->queued = queued;),
	    TP_printk("ep=%llx seq=%u len=%u queued=%u", __entry->ep,
		      __entry->seq, __entry->len, __entry->queued)
);

/* A sender or reader about to sleep for room, data or a state change. */
TRACE_EVENT(scif_stream_sleep,
	    TP_PROTO(u64 ep, bool send),
	    TP_ARGS(ep, send),
	    TP_STRUCT__entry(__field(u64, ep)
			     __field(bool, send)),
	    TP_fast_assign(__entry->ep = ep;
			   __entry->send = send;),
	    TP_printk("ep=%llx %s", __entry->ep,
		      __entry->send ? "send" : "recv")
);

#endif /* SCIF_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE scif_trace
#include <trace/define_trace.h>
