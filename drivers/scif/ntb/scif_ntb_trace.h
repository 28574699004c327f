/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the NTB transport: a record written into a peer's ring,
 * the doorbell rung, our doorbell arriving, the receive work running and
 * what it drained, a sender waiting for room. With the core's events
 * (core/scif_trace.h) they time each stage of a message.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM scif_ntb

#if !defined(SCIF_NTB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SCIF_NTB_TRACE_H

#include <linux/tracepoint.h>

/* A record of @cells cells written to the ring of peer @node. */
TRACE_EVENT(scif_ntb_ring_tx,
	    TP_PROTO(u16 node, u32 cells, u32 widx),
	    TP_ARGS(node, cells, widx),
	    TP_STRUCT__entry(__field(u32, cells)
			     __field(u32, widx)
			     __field(u16, node)),
	    TP_fast_assign(__entry->cells = cells;
			   __entry->widx = widx;
			   __entry->node = node;),
	    TP_printk("node=%u cells=%u widx=%u", __entry->node,
		      __entry->cells, __entry->widx)
);

/* Per peer: its doorbell rung, its receive work started. */
DECLARE_EVENT_CLASS(scif_ntb_peer_class,
		    TP_PROTO(u16 node),
		    TP_ARGS(node),
		    TP_STRUCT__entry(__field(u16, node)),
		    TP_fast_assign(__entry->node = node;),
		    TP_printk("node=%u", __entry->node)
);

DEFINE_EVENT(scif_ntb_peer_class, scif_ntb_doorbell,
	     TP_PROTO(u16 node), TP_ARGS(node));
DEFINE_EVENT(scif_ntb_peer_class, scif_ntb_rx_work,
	     TP_PROTO(u16 node), TP_ARGS(node));

/* Our doorbell fired (hard interrupt context); @bits were pending. */
TRACE_EVENT(scif_ntb_db_event,
	    TP_PROTO(int vector, u64 bits),
	    TP_ARGS(vector, bits),
	    TP_STRUCT__entry(__field(u64, bits)
			     __field(int, vector)),
	    TP_fast_assign(__entry->bits = bits;
			   __entry->vector = vector;),
	    TP_printk("vector=%d bits=%#llx", __entry->vector, __entry->bits)
);

/* One pass over the ring of peer @node consumed @cells cells (<0: bad). */
TRACE_EVENT(scif_ntb_drain,
	    TP_PROTO(u16 node, int cells),
	    TP_ARGS(node, cells),
	    TP_STRUCT__entry(__field(int, cells)
			     __field(u16, node)),
	    TP_fast_assign(__entry->cells = cells;
			   __entry->node = node;),
	    TP_printk("node=%u cells=%d", __entry->node, __entry->cells)
);

/* A sender to peer @node found @room cells free and needs @need. */
TRACE_EVENT(scif_ntb_tx_wait,
	    TP_PROTO(u16 node, u32 need, u32 room),
	    TP_ARGS(node, need, room),
	    TP_STRUCT__entry(__field(u32, need)
			     __field(u32, room)
			     __field(u16, node)),
	    TP_fast_assign(__entry->need = need;
			   __entry->room = room;
			   __entry->node = node;),
	    TP_printk("node=%u need=%u room=%u", __entry->node,
		      __entry->need, __entry->room)
);

#endif /* SCIF_NTB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE scif_ntb_trace
#include <trace/define_trace.h>
