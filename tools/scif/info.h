/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scif-info: what its files share. The tables, instances and links read
 * from sysfs and debugfs, the helpers every file calls, the readers and
 * the two ways of printing what they found.
 */
#ifndef SCIF_INFO_H
#define SCIF_INFO_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_COLS	16
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_NODES	256

/* A table as the debugfs files print it: a header line, then rows. */
struct table {
	int ok;			/* the file could be read */
	int ncols;
	char *cols[MAX_COLS];
	int nrows;
	char *(*rows)[MAX_COLS];
	long self;		/* a leading "self N" line, else -1 */
};

struct instance {
	char name[NAME_MAX + 1];
	char debugfs[PATH_MAX];
	struct table nodes, endpoints, ports;
	char **devices;		/* the devices on the bus of the same name */
	int ndevices;
};

struct link {
	char name[NAME_MAX + 1];
	char pci[NAME_MAX + 1];
	char hw_driver[NAME_MAX + 1];
	char client[NAME_MAX + 1];
};

/* ---- info-util.c */

/* Prefix of every /sys path: "" or $SCIF_INFO_ROOT, set by main(). */
extern const char *info_root;

/* realloc() and strdup() that end the program when memory runs out. */
void *info_xrealloc(void *p, size_t n);
char *info_xstrdup(const char *s);
/* Copies @src into @dst of @len bytes, cut short if it does not fit. */
void info_copy(char *dst, size_t len, const char *src);
/* Formats @fmt with @a and @b into @buf, behind info_root. */
void info_path_of(char *buf, size_t len, const char *fmt, const char *a,
		  const char *b);
/*
 * The names in @dir, sorted, without those starting with a dot; NULL when
 * there are none or @dir cannot be opened (then errno says why).
 */
char **info_list_dir(const char *dir, int *count);

/* ---- info-read.c */

/* The modules whose parameters both outputs list. */
extern const char *const info_modules[4];

/* The SCIF instances under debugfs, with their tables and bus devices. */
struct instance *info_read_instances(int *count, int *debugfs_denied);
/* The NTB devices with their PCI function and both drivers. */
struct link *info_read_links(int *count);
/* One module parameter's value into @val, or "?" when it cannot be read. */
void info_read_param(const char *mod, const char *name, char *val, size_t len);
/* The row of @t whose first column is @node, or NULL. */
const char *const *info_table_row(const struct table *t, long node);
/* Whether @in has a bus device for @node; if so its name goes in @name. */
int info_has_device(const struct instance *in, unsigned int node, char *name,
		    size_t len);

/* ---- info-json.c */

/* Everything as one JSON object on stdout (--json). */
void info_print_json(int have_ids, uint16_t self, const uint16_t *ids, int nids,
		     const char *err, struct instance *in, int nin, int denied,
		     struct link *l, int nl);

/* ---- info-text.c */

/* The instances, links and parameters as text for a person. */
void info_print_text(int have_ids, uint16_t self, const uint16_t *ids, int nids,
		     struct instance *in, int nin, int denied, struct link *l, int nl);

#endif /* SCIF_INFO_H */
