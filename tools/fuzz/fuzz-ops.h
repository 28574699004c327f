/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scif-fuzz: what the files of the operations share, and the files that
 * run the fuzzer (fuzz-run.h) do not need. fuzz-args.c issues the calls,
 * keeps the pool of endpoints and picks the arguments; fuzz-ep-ops.c
 * holds the operations on endpoints and messages, fuzz-rma-ops.c those on
 * windows, RMAs, fences and mappings, fuzz-stream-ops.c those on the
 * mapped stream; fuzz-ops.c draws one of them by weight (the ops[]
 * table).
 */
#ifndef SCIF_FUZZ_OPS_H
#define SCIF_FUZZ_OPS_H

#include "fuzz.h"

/* An address no user mapping can have, and one inside the kernel. */
#define FZ_KERNEL_ADDR	0xffff888000000000ULL
#define FZ_NONCANON	0x0000800000001000ULL

/*
 * How long the signal thread lets a call block before it interrupts it, in
 * ms. A blocking request that waits for the other side (a SCIF_RECV or
 * SCIF_SEND with SCIF_SEND_BLOCK, a SCIF_ACCEPT_SYNC, a fence wait) is
 * interrupted after FZ_PATIENCE_MS: what the interruption exercises is the
 * same at 20 ms as at 500 ms, and a thread that waits is not fuzzing. Under
 * TCG a connect takes tens of milliseconds, up to a few hundred when the
 * node is busy, so most connects get FZ_CONNECT_PATIENCE_MS and some
 * a few milliseconds (interrupted while the connect is in flight).
 */
#define FZ_PATIENCE_MS		20
#define FZ_CONNECT_PATIENCE_MS	500
/* mmap (MAP_POPULATE) and waiting for a forked child take their time */
#define FZ_SLOW_PATIENCE_MS	1000

/* Issuing a call and counting its outcome (fuzz-args.c). */
long fz_call_begin(struct fz_thread *t, long patience);
void fz_call_end(struct fz_thread *t);
long fz_sys_ioctl_wait(struct fz_thread *t, int fd, unsigned long cmd,
		       unsigned long arg, long patience);
long fz_sys_ioctl(struct fz_thread *t, int fd, unsigned long cmd,
		  unsigned long arg);
void fz_record_ret(struct fz_thread *t, long ret);

/* The process's pool of endpoints (fuzz-args.c). */
int fz_pick_slot(struct fz_thread *t, int want);
int fz_pick_fd(struct fz_thread *t, bool connected);
void fz_add_slot(struct fz_thread *t, int fd, int kind, int port);
void fz_set_kind(struct fz_thread *t, int fd, int kind, int port);

/* Arguments, mostly valid, sometimes hostile (fuzz-args.c). */
uint64_t fz_pick_len(struct fz_thread *t);
fz_off fz_grid_off(struct fz_thread *t, bool ro);
fz_off fz_edge_off(struct fz_thread *t);
fz_off fz_pick_off(struct fz_thread *t, bool allow_ro);
unsigned long fz_rma_flags(struct fz_thread *t);
uint64_t fz_pick_addr(struct fz_thread *t, uint64_t len, bool write);
void *fz_arg_ptr(struct fz_thread *t, void *good, size_t size);
void fz_pick_target(struct fz_thread *t, struct scif_port_id *dst);

/* Operations on endpoints and messages (fuzz-ep-ops.c). */
void fz_op_open(struct fz_thread *t);
void fz_op_close(struct fz_thread *t);
void fz_op_dup(struct fz_thread *t);
void fz_op_nonblock(struct fz_thread *t);
void fz_op_bind(struct fz_thread *t);
void fz_op_listen(struct fz_thread *t);
void fz_op_connect(struct fz_thread *t);
void fz_op_accept(struct fz_thread *t);
void fz_op_acceptreg(struct fz_thread *t);
void fz_op_send(struct fz_thread *t);
void fz_op_recv(struct fz_thread *t);
void fz_op_node_ids(struct fz_thread *t);
void fz_op_poll(struct fz_thread *t);

/* The mapped stream (fuzz-stream-ops.c). */
void fz_op_stream_map(struct fz_thread *t);

/* Operations on windows, RMAs, fences and mappings (fuzz-rma-ops.c). */
void fz_op_reg(struct fz_thread *t);
void fz_op_unreg(struct fz_thread *t);
void fz_op_rma(struct fz_thread *t);
void fz_op_fence(struct fz_thread *t);
void fz_op_mmap(struct fz_thread *t);
void fz_op_munmap(struct fz_thread *t);
void fz_op_mprotect(struct fz_thread *t);
void fz_op_touch(struct fz_thread *t);

#endif /* SCIF_FUZZ_OPS_H */
