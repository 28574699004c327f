/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scif-fuzz: shared declarations of the structured /dev/scif fuzzer.
 *
 * One run = P worker processes, each with T fuzzing threads, L "light"
 * fuzzing threads (cheap requests only), an acceptor thread and a signal
 * thread. The threads of a process share a pool of
 * endpoints and of /dev/scif mappings. Counters live in one shared
 * anonymous mapping so that workers and their forked children add to the
 * same totals.
 */
#ifndef SCIF_FUZZ_H
#define SCIF_FUZZ_H

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/scif_ioctl.h>
#include "scif.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/*
 * The kernel's name for the format attribute, which userspace lacks;
 * __attribute is GCC's and clang's alternate spelling of __attribute__.
 */
#ifndef __printf
#define __printf(a, b)	__attribute((format(printf, a, b)))
#endif

#define FZ_PAGE		4096UL

/* Endpoints and /dev/scif mappings each process keeps around. */
#define FZ_SLOTS	16
#define FZ_MAPS		32
#define FZ_KNOWN	16

/*
 * Registered address space layout every process of every node keeps to:
 * writable windows only ever go below FZ_RO_BASE (the "RW grid" and the
 * kernel's own choice from a low hint); the "RO grid" at FZ_RO_BASE holds
 * only windows without SCIF_PROT_WRITE. A write into the RO grid that the
 * kernel reports as done is therefore a violated invariant, whoever did it.
 */
#define FZ_GRID_SLOTS	4
#define FZ_GRID_STEP	((int64_t)16 * FZ_PAGE)
#define FZ_RW_BASE	((int64_t)0x100000)
#define FZ_RO_BASE	((int64_t)1 << 40)
#define FZ_RO_END	(FZ_RO_BASE + FZ_GRID_SLOTS * FZ_GRID_STEP)

/* An offset in a registered address space: 64 bits on every ABI. */
typedef int64_t fz_off;

/* Memory each process registers. */
#define FZ_SCRATCH_PAGES	256
#define FZ_CANARY_BUFS		4
#define FZ_CANARY_PAGES		8
#define FZ_FILE_PAGES		8

/* Ports: every process listens on --port-base + proc * FZ_PORT_STRIDE. */
#define FZ_PORT_BASE	2000
#define FZ_PORT_STRIDE	4
#define FZ_BARRIER_PORT	3999
/* Acceptor threads per process, all on its well-known port. */
#define FZ_ACCEPTORS	2

#define FZ_NERR		256
#define FZ_NOPS		32

/* Totals over the whole node, in shared memory. */
struct fz_stats {
	long ops_left;		/* operations still to start, over the node */
	unsigned long calls;
	unsigned long ok;
	unsigned long positive;
	unsigned long err[FZ_NERR];
	unsigned long violations;
	unsigned long forks;
	unsigned long signals;
	unsigned long faults;
	unsigned long accepted;
	unsigned long connected;
	unsigned long registered;
	unsigned long mapped;
	unsigned long rma_ok;
	unsigned long slowest_ms;	/* longest single request */
	unsigned long slowest_op;
	unsigned long slow_calls;	/* requests that took over 5 s */
	unsigned long signals_stuck;	/* of signals: to a call past its patience */
	/* per operation: [0] successes, [e] failures with errno e (-v) */
	unsigned long op_err[FZ_NOPS][FZ_NERR];
	/* per operation: times picked, microseconds spent, the longest (-v) */
	unsigned long op_runs[FZ_NOPS];
	unsigned long op_us[FZ_NOPS];
	unsigned long op_max_us[FZ_NOPS];
	unsigned long op_cpu_us[FZ_NOPS];	/* of it, on a CPU */
};

extern struct fz_stats *fz_stats;

static inline void fz_add(unsigned long *ctr, unsigned long n)
{
	__atomic_add_fetch(ctr, n, __ATOMIC_RELAXED);
}

enum fz_kind {
	FZ_FREE,
	FZ_OPEN,
	FZ_BOUND,
	FZ_LISTENING,
	FZ_CONNECTED,
	FZ_ACCEPTED,
	FZ_DUP,
};

struct fz_slot {
	int fd;
	int kind;
	int port;
};

struct fz_map {
	char *addr;
	size_t len;
	fz_off off;
	int prot;
	bool whole;	/* never partly unmapped: safe to write into */
	bool used;
};

struct fz_opts {
	uint64_t seed;
	unsigned long calls;
	int threads;
	int light;		/* light threads per worker */
	int procs;
	int peer;		/* node id, -1: none, -2: find it */
	int user;		/* uid for odd workers, -1: stay */
	int timeout;		/* seconds, 0: none */
	int verbose;
	int port_base;		/* first listening port */
	int no_barrier;		/* with a peer: do not meet it */
};

struct fz_proc {
	int idx;
	const struct fz_opts *o;
	uint16_t self;
	int peer;		/* node id or -1 */
	pthread_mutex_t lock;	/* slots, maps, known */
	struct fz_slot slots[FZ_SLOTS];
	struct fz_map maps[FZ_MAPS];
	fz_off known[FZ_KNOWN];	/* offsets the kernel chose for us */
	char *scratch;
	char *canary;
	char *canary_ref;	/* what canary must hold */
	char *file_ref;		/* what the file must hold */
	char *guard;		/* a page followed by a PROT_NONE page */
	char *file_shared;	/* read-only MAP_SHARED view of the file */
	char *file_private;	/* read-only MAP_PRIVATE view of the file */
	int file_fd;
	int lfd;		/* the listener on the well-known port */
	char file_name[64];
	int stop;		/* __atomic_load_n/__atomic_store_n only */
	/*
	 * Held by the signal thread around pthread_kill() and by a fuzzing
	 * thread when it sets its ->done: a thread that is done may be joined
	 * and its descriptor freed at once, so it must not be signalled.
	 */
	pthread_mutex_t kill_lock;
	struct fz_thread *threads;
};

struct fz_thread {
	struct fz_proc *p;
	int idx;
	uint64_t rng;
	pthread_t tid;
	long call_start;	/* monotonic ms of the call in progress, or 0 */
	long call_patience;	/* ms the signal thread lets it block */
	bool child;		/* running in a forked child: no locks */
	bool light;		/* draws cheap requests only */
	bool arg_good;		/* the last fz_arg_ptr() was the real argument */
	bool done;		/* under p->kill_lock */
	int in_touch;		/* __atomic_*_n: the SIGSEGV handler reads it */
	sigjmp_buf touch_jb;
};

/* Random numbers: one xorshift state per thread, seeded from --seed. */
uint64_t fz_rand(struct fz_thread *t);
uint64_t fz_below(struct fz_thread *t, uint64_t n);
bool fz_chance(struct fz_thread *t, unsigned int num, unsigned int den);
uint64_t fz_mix(uint64_t x);

long fz_now_ms(void);
long fz_now_us(void);
void fz_max(unsigned long *ctr, unsigned long v);
void fz_record(struct fz_thread *t, long ret, int err);
__printf(2, 3)
void fz_violation(struct fz_proc *p, const char *fmt, ...);

void fz_lock(struct fz_thread *t);
void fz_unlock(struct fz_thread *t);

/* Canary and file patterns, and their checks. */
uint8_t fz_canary_byte(struct fz_proc *p, size_t i);
uint8_t fz_file_byte(struct fz_proc *p, size_t i);
void fz_check_memory(struct fz_proc *p);

bool fz_in_ro_grid(fz_off off, uint64_t len);
int fz_seed_windows(struct fz_thread *t, int fd);

extern __thread int fz_cur_op;
const char *fz_op_name(int op);
/* Every request from 1 to SCIF_IOCTL_NR_MAX is in the raw op's table. */
bool fz_raw_requests_complete(void);

/* One random operation; returns after exactly one counted call. */
void fz_op(struct fz_thread *t);
void fz_child_ops(struct fz_thread *t);

#endif /* SCIF_FUZZ_H */
