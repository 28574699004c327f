/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the KUnit suites for streams through shared memory
 * (scif_shm_kunit.c, scif_shm_trust_kunit.c): connects left pending, with
 * the memory they offered still out at the listener's node.
 */
#ifndef SCIF_SHM_KUNIT_UTIL_H
#define SCIF_SHM_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/scif.h>

#include "core/scif_core.h"
#include "core/scif_endpt.h"
#include "core/scif_shm.h"
#include "scif_kunit_util.h"

/* Two nodes over the simulated link, and one connection between them. */
static inline int shm_init(struct kunit *test)
{
	struct scif_kt_nodes *n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, n);
	test->priv = n;
	scif_kt_nodes_up(test, n, "kunit_shm_a", "kunit_shm_b", 4096);
	scif_kt_nodes_connect(test, n);
	return 0;
}

static inline void shm_exit(struct kunit *test)
{
	scif_kt_nodes_down(test->priv);
}

static inline struct scif_shm *shm_of(scif_epd_t epd)
{
	return ((struct scif_endpt *)epd)->shm;
}

/*
 * A connect from node a left pending on a listener of node b that never
 * accepts; the listener is returned in *@lp.
 */
static inline scif_epd_t shm_pending_connect(struct kunit *test,
					     scif_epd_t *lp)
{
	struct scif_kt_nodes *n = test->priv;
	scif_epd_t l = scif_instance_open(n->b), c = scif_instance_open(n->a);
	struct scif_port_id dst = { .node = 1 };
	int port;

	KUNIT_ASSERT_NOT_NULL(test, l);
	KUNIT_ASSERT_NOT_NULL(test, c);
	*lp = l;
	port = scif_bind(l, 0);
	KUNIT_ASSERT_GE(test, port, SCIF_PORT_RSVD);
	KUNIT_ASSERT_EQ(test, scif_listen(l, 4), 0);
	dst.port = port;
	KUNIT_ASSERT_EQ(test, scif_epd_connect_nb(c, &dst), -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, scif_kt_wait_for(((struct scif_endpt *)l)->nreq));
	return c;
}

/* Bind a new endpoint of @si and listen on it; its port in *@port. */
static inline scif_epd_t shm_listener(struct kunit *test,
				      struct scif_instance *si, int *port)
{
	scif_epd_t l = scif_instance_open(si);

	KUNIT_ASSERT_NOT_NULL(test, l);
	*port = scif_bind(l, 0);
	KUNIT_ASSERT_GE(test, *port, SCIF_PORT_RSVD);
	KUNIT_ASSERT_EQ(test, scif_listen(l, 4), 0);
	return l;
}

/*
 * What a connect that timed out leaves behind (30 s, too long to wait
 * for here): the endpoint is bound again, and its request, with the
 * memory it offered, is still out at the listener's node.
 */
static inline void shm_connect_gave_up(scif_epd_t epd)
{
	struct scif_endpt *ep = epd;

	spin_lock(&ep->lock);
	ep->state = SCIF_EP_BOUND;
	ep->conn_async = false;
	ep->conn_report = false;
	spin_unlock(&ep->lock);
}

#endif /* SCIF_SHM_KUNIT_UTIL_H */
