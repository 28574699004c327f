/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scif-fuzz: what the files that run the fuzzer share, and the operations
 * do not need. scif-fuzz.c parses the options, forks the workers and
 * watches them; fuzz-worker.c is a worker process with its threads and
 * signal handlers; fuzz-memory.c makes the memory and the read-only file a
 * worker registers; fuzz-nodes.c finds the node ids and meets the peer.
 */
#ifndef SCIF_FUZZ_RUN_H
#define SCIF_FUZZ_RUN_H

#include "fuzz.h"

/* Catch SIGUSR1, SIGALRM, SIGSEGV and SIGBUS; ignore SIGPIPE. */
void fz_install_handlers(void);

/* Run worker number @idx to the end of the budget; never returns. */
void fz_worker(const struct fz_opts *o, int idx, uint16_t self, int peer);

/* Print to stderr where each thread of worker @pid is waiting. */
void fz_dump_tasks(pid_t pid);

/* Map a worker's scratch, canary and guard pages; create and map its file. */
void fz_setup_memory(struct fz_proc *p);

/*
 * SCIF_GET_NODEIDS: up to @len node ids into @nodes and this node's into
 * *@self; returns how many nodes there are, or -1 with errno set.
 */
int fz_node_ids(uint16_t *nodes, int len, uint16_t *self);

/* Wait up to @secs for node @peer to get here too; 0 once both have. */
int fz_barrier(uint16_t self, int peer, int secs);

#endif /* SCIF_FUZZ_RUN_H */
