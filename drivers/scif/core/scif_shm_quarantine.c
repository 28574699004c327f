// SPDX-License-Identifier: GPL-2.0
/*
 * The quarantine of stream memory the peer may still write.
 *
 * A closed endpoint's receive ring and control block (or those of a
 * connect put aside) cannot be freed while the peer may still write
 * them. They wait here, on a list per node, until the peer says it stopped
 * (an answer naming the endpoint, the connect and the writer) or the node
 * is lost. An endpoint lets go of its memory here (scif_shm_put()). The
 * list is bounded: a node whose quarantine is full gets no more shared
 * memory (scif_shm_alloc() in core/scif_shm.c).
 */
#include <kunit/visibility.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "scif_core.h"
#include "scif_instance.h"
#include "scif_shm.h"

/**
 * scif_shm_retire() - keep memory the peer may still write in quarantine
 * @si: the instance
 * @shm: state of an endpoint that is closing, or of an earlier connect
 *	 that is put aside; we no longer write into the peer's memory
 *
 * Unless the peer said it stopped writing @shm (or was never told of it),
 * @shm joins the quarantine of its node, which holds a reference until
 * scif_shm_unquarantine() or node loss. Done once; later calls do nothing.
 * A closing endpoint is retired before it leaves the endpoint table, so
 * that an answer which no longer finds the endpoint finds its memory.
 */
void scif_shm_retire(struct scif_instance *si, struct scif_shm *shm)
{
	struct scif_node *n;

	if (!shm || scif_shm_reusable(shm))
		return;
	down_read(&si->nodes_rwsem);
	n = xa_load(&si->nodes, shm->node);
	if (n) {
		spin_lock(&n->shm_q_lock);
		if (!shm->retired) {
			shm->retired = true;
			kref_get(&shm->ref);
			list_add_tail(&shm->qlink, &n->shm_q);
			n->shm_q_len++;
		}
		spin_unlock(&n->shm_q_lock);
	}
	up_read(&si->nodes_rwsem);
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_retire);

/**
 * scif_shm_put() - let go of an endpoint's memory as it is freed
 * @si: the instance
 * @shm: the state, or NULL
 *
 * Retires @shm (scif_shm_retire()) and drops the endpoint's reference:
 * the memory goes now, or once the peer stopped writing it.
 */
void scif_shm_put(struct scif_instance *si, struct scif_shm *shm)
{
	if (!shm)
		return;
	scif_shm_stop(shm);
	scif_shm_retire(si, shm);
	kref_put(&shm->ref, scif_shm_free);
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_put);

/**
 * scif_shm_unquarantine() - let go of the memory of a closed endpoint
 *			     whose peer stopped writing it
 * @si: the instance
 * @node: the peer's node
 * @ep_id: the closed endpoint
 * @gen: the connect the answer names: only the memory offered for it
 * @writer: the peer endpoint that says it stopped, 0 for a refusal (then
 *	    only memory nobody was known to write matches)
 *
 * Takes the memory out of the quarantine and drops its reference: it is
 * freed now, or with the endpoint if that still lives. Memory another
 * connect of @ep_id offered, or that another endpoint writes, stays.
 *
 * Return: whether such memory was waiting.
 */
bool scif_shm_unquarantine(struct scif_instance *si, u16 node, u64 ep_id,
			   u32 gen, u64 writer)
{
	u64 w;

	struct scif_shm *shm, *found = NULL;
	struct scif_node *n;

	down_read(&si->nodes_rwsem);
	n = xa_load(&si->nodes, node);
	if (n) {
		spin_lock(&n->shm_q_lock);
		list_for_each_entry(shm, &n->shm_q, qlink) {
			w = READ_ONCE(shm->writer);
			if (shm->ep_id == ep_id && shm->gen == gen &&
			    (!w || w == writer)) {
				list_del_init(&shm->qlink);
				n->shm_q_len--;
				found = shm;
				break;
			}
		}
		spin_unlock(&n->shm_q_lock);
	}
	up_read(&si->nodes_rwsem);
	if (!found)
		return false;
	scif_shm_set_peer_done(found);
	kref_put(&found->ref, scif_shm_free);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_unquarantine);

/**
 * scif_shm_node_lost() - empty a lost node's quarantine
 * @quarantine: &scif_node.shm_q of a node no longer in the table
 *
 * Nobody writes the memory any more; each entry's reference is dropped.
 */
void scif_shm_node_lost(struct list_head *quarantine)
{
	struct scif_shm *shm, *tmp;

	list_for_each_entry_safe(shm, tmp, quarantine, qlink) {
		list_del_init(&shm->qlink);
		kref_put(&shm->ref, scif_shm_free);
	}
}

/**
 * scif_shm_quarantined() - how many closed endpoints' memory waits for a node
 * @si: the instance
 * @node: the node
 *
 * Return: the count (0 for a node not online).
 */
unsigned int scif_shm_quarantined(struct scif_instance *si, u16 node)
{
	struct scif_node *n;
	unsigned int cnt = 0;

	down_read(&si->nodes_rwsem);
	n = xa_load(&si->nodes, node);
	if (n) {
		spin_lock(&n->shm_q_lock);
		cnt = n->shm_q_len;
		spin_unlock(&n->shm_q_lock);
	}
	up_read(&si->nodes_rwsem);
	return cnt;
}
EXPORT_SYMBOL_IF_KUNIT(scif_shm_quarantined);
