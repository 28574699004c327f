// SPDX-License-Identifier: GPL-2.0
/*
 * scif-info: what this SCIF node knows, for a person or (--json) a script.
 *
 * Everything comes from what the driver publishes today:
 *   /dev/scif (scif_get_node_ids)       the local node id, the nodes online
 *   /sys/kernel/debug/scif* / nodes     per-node message counters (root)
 *                         / endpoints   every endpoint, its state and queues
 *                         / ports       the bound ports and their owners
 *   /sys/bus/scif* /devices/            one device per remote node online
 *   /sys/bus/ntb/devices/               the NTB devices, their PCI function,
 *                                       hardware driver and client driver
 *   /sys/module/M/parameters/           the module parameters
 * The state of an NTB link (mode, memory window, doorbells, heartbeat age)
 * and the registered RMA windows are not published by the driver yet; the
 * output says so instead of guessing. SCIF_INFO_ROOT, when set, is put in
 * front of every /sys path (for testing against a copy of those files).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scif.h"

#define MAX_COLS	16
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_NODES	256

static const char *const modules[] = { "scif", "scif_ntb", "swdma", "ntb_ivshmem" };

/* What the driver does not publish yet (listed in both outputs). */
static const char *const not_exposed[] = {
	"link mode", "memory window size", "doorbells", "heartbeat age",
	"registered windows",
};

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

static const char *root = "";

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("scif-info");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		perror("scif-info");
		exit(1);
	}
	return d;
}

/* strlcpy: @src, cut to fit @dst of @len bytes. */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

static void path_of(char *buf, size_t len, const char *fmt, const char *a,
		    const char *b)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), fmt, a, b);
	snprintf(buf, len, "%s%s", root, rel);
}

static int split(char *line, char **tok, int max)
{
	int n = 0;
	char *save, *t;

	for (t = strtok_r(line, " \t\n", &save); t && n < max;
	     t = strtok_r(NULL, " \t\n", &save))
		tok[n++] = t;
	return n;
}

static void table_read(struct table *t, const char *path)
{
	char line[1024], *tok[MAX_COLS];
	FILE *f;
	int n, i;

	memset(t, 0, sizeof(*t));
	t->self = -1;
	f = fopen(path, "r");
	if (!f)
		return;
	t->ok = 1;
	while (fgets(line, sizeof(line), f)) {
		n = split(line, tok, MAX_COLS);
		if (!n)
			continue;
		if (!t->ncols && n == 2 && !strcmp(tok[0], "self")) {
			t->self = strtol(tok[1], NULL, 10);
			continue;
		}
		if (!t->ncols) {
			for (i = 0; i < n; i++)
				t->cols[i] = xstrdup(tok[i]);
			t->ncols = n;
			continue;
		}
		t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
		for (i = 0; i < MAX_COLS; i++)
			t->rows[t->nrows][i] = xstrdup(i < n ? tok[i] : "");
		t->nrows++;
	}
	fclose(f);
}

static int is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory, sorted, without "." and "..". */
static char **list_dir(const char *dir, int *count)
{
	struct dirent *de;
	char **names = NULL;
	DIR *d = opendir(dir);
	int n = 0;

	*count = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	*count = n;
	return names;
}

/* The last component of the target of a symbolic link, or "". */
static void link_base(const char *path, char *out, size_t len)
{
	char target[PATH_MAX], *slash;
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	out[0] = 0;
	if (n <= 0)
		return;
	target[n] = 0;
	slash = strrchr(target, '/');
	copy(out, len, slash ? slash + 1 : target);
}

/* Every SCIF instance that has a debugfs directory (scif, scif-NAME). */
static struct instance *read_instances(int *count, int *debugfs_denied)
{
	struct instance *in = NULL;
	char dir[PATH_MAX], path[PATH_MAX], **names, **devs;
	int n, i, j, ndev, k = 0;

	*debugfs_denied = 0;
	path_of(dir, sizeof(dir), "/sys/kernel/debug", "", "");
	names = list_dir(dir, &n);
	if (!names && (errno == EACCES || errno == EPERM))
		*debugfs_denied = 1;
	for (i = 0; i < n; i++) {
		if (strncmp(names[i], "scif", 4))
			continue;
		path_of(path, sizeof(path), "/sys/kernel/debug/%s/nodes", names[i], "");
		if (access(path, F_OK))
			continue;
		in = xrealloc(in, (k + 1) * sizeof(*in));
		memset(&in[k], 0, sizeof(*in));
		copy(in[k].name, sizeof(in[k].name), names[i]);
		path_of(in[k].debugfs, sizeof(in[k].debugfs), "/sys/kernel/debug/%s",
			names[i], "");
		table_read(&in[k].nodes, path);
		if (!in[k].nodes.ok && (errno == EACCES || errno == EPERM))
			*debugfs_denied = 1;
		path_of(path, sizeof(path), "/sys/kernel/debug/%s/endpoints", names[i], "");
		table_read(&in[k].endpoints, path);
		path_of(path, sizeof(path), "/sys/kernel/debug/%s/ports", names[i], "");
		table_read(&in[k].ports, path);
		path_of(path, sizeof(path), "/sys/bus/%s/devices", names[i], "");
		devs = list_dir(path, &ndev);
		in[k].devices = devs;
		in[k].ndevices = ndev;
		k++;
	}
	for (j = 0; j < n; j++)
		free(names[j]);
	free(names);
	*count = k;
	return in;
}

/* The NTB devices: what the kernel's NTB core shows of each. */
static struct link *read_links(int *count)
{
	char dir[PATH_MAX], path[PATH_MAX], real[PATH_MAX], **names, *slash;
	struct link *l = NULL;
	int n, i;

	path_of(dir, sizeof(dir), "/sys/bus/ntb/devices", "", "");
	names = list_dir(dir, &n);
	if (n)
		l = xrealloc(NULL, n * sizeof(*l));
	for (i = 0; i < n; i++) {
		memset(&l[i], 0, sizeof(l[i]));
		copy(l[i].name, sizeof(l[i].name), names[i]);
		path_of(path, sizeof(path), "/sys/bus/ntb/devices/%s/driver", names[i], "");
		link_base(path, l[i].client, sizeof(l[i].client));
		/* The parent of the NTB device is the PCI function. */
		path_of(path, sizeof(path), "/sys/bus/ntb/devices/%s", names[i], "");
		slash = realpath(path, real) ? strrchr(real, '/') : NULL;
		if (slash) {
			*slash = 0;
			slash = strrchr(real, '/');
			copy(l[i].pci, sizeof(l[i].pci), slash ? slash + 1 : real);
			strncat(real, "/driver", sizeof(real) - strlen(real) - 1);
			link_base(real, l[i].hw_driver, sizeof(l[i].hw_driver));
		}
		free(names[i]);
	}
	free(names);
	*count = n;
	return l;
}

static void read_param(const char *mod, const char *name, char *val, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	path_of(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, name);
	val[0] = 0;
	f = fopen(path, "r");
	if (!f) {
		snprintf(val, len, "?");
		return;
	}
	if (fgets(val, len, f))
		val[strcspn(val, "\n")] = 0;
	fclose(f);
}

/* ---- JSON. */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_value(const char *s)
{
	if (is_number(s))
		fputs(s, stdout);
	else
		json_str(s);
}

/* A table as an array of objects keyed by the header's column names. */
static void json_table(const struct table *t)
{
	int r, c;

	if (!t->ok) {
		fputs("null", stdout);
		return;
	}
	putchar('[');
	for (r = 0; r < t->nrows; r++) {
		printf("%s{", r ? ", " : "");
		for (c = 0; c < t->ncols; c++) {
			printf("%s", c ? ", " : "");
			json_str(t->cols[c]);
			fputs(": ", stdout);
			json_value(t->rows[r][c]);
		}
		putchar('}');
	}
	putchar(']');
}

static const char *const *table_row(const struct table *t, long node)
{
	char id[16];
	int r;

	snprintf(id, sizeof(id), "%ld", node);
	for (r = 0; r < t->nrows; r++)
		if (!strcmp(t->rows[r][0], id))
			return (const char *const *)t->rows[r];
	return NULL;
}

static int has_device(const struct instance *in, unsigned int node, char *name,
		      size_t len)
{
	char want[NAME_MAX + 32];
	int i;

	snprintf(want, sizeof(want), "%s-node%u", in->name, node);
	for (i = 0; i < in->ndevices; i++) {
		if (!strcmp(in->devices[i], want)) {
			copy(name, len, want);
			return 1;
		}
	}
	return 0;
}

static void print_json(int have_ids, uint16_t self, const uint16_t *ids, int nids,
		       const char *err, struct instance *in, int nin, int denied,
		       struct link *l, int nl)
{
	char val[256], dir[PATH_MAX], dev[NAME_MAX + 32], **names;
	const char *const *row;
	int i, j, k, n, first;

	printf("{\n  \"self\": ");
	if (have_ids)
		printf("%u", self);
	else
		fputs("null", stdout);
	printf(",\n  \"error\": ");
	if (err)
		json_str(err);
	else
		fputs("null", stdout);
	printf(",\n  \"nodes_online\": [");
	for (i = 0; i < nids; i++)
		printf("%s%u", i ? ", " : "", ids[i]);
	printf("],\n  \"debugfs_readable\": %s,\n  \"instances\": [",
	       denied ? "false" : "true");
	for (i = 0; i < nin; i++) {
		printf("%s\n    {\"name\": ", i ? "," : "");
		json_str(in[i].name);
		printf(", \"debugfs\": ");
		json_str(in[i].debugfs);
		printf(",\n     \"self\": %ld,\n     \"nodes\": [", in[i].nodes.self);
		for (j = 0; j < nids; j++) {
			printf("%s\n       {\"node\": %u, \"role\": \"%s\", \"device\": ",
			       j ? "," : "", ids[j],
			       have_ids && ids[j] == self ? "self" : "peer");
			if (has_device(&in[i], ids[j], dev, sizeof(dev)))
				json_str(dev);
			else
				fputs("null", stdout);
			row = table_row(&in[i].nodes, ids[j]);
			for (k = 1; row && k < in[i].nodes.ncols; k++) {
				printf(", ");
				json_str(in[i].nodes.cols[k]);
				fputs(": ", stdout);
				json_value(row[k]);
			}
			putchar('}');
		}
		printf("],\n     \"node_counters\": ");
		json_table(&in[i].nodes);
		printf(",\n     \"endpoints\": ");
		json_table(&in[i].endpoints);
		printf(",\n     \"ports\": ");
		json_table(&in[i].ports);
		printf(",\n     \"windows\": null}");
	}
	printf("\n  ],\n  \"links\": [");
	for (i = 0; i < nl; i++) {
		printf("%s\n    {\"ntb\": ", i ? "," : "");
		json_str(l[i].name);
		printf(", \"pci_function\": ");
		json_str(l[i].pci);
		printf(", \"hw_driver\": ");
		json_str(l[i].hw_driver);
		printf(", \"client_driver\": ");
		json_str(l[i].client);
		printf(", \"mode\": null, \"window_size\": null");
		printf(", \"doorbells\": null, \"heartbeat_age_ms\": null}");
	}
	printf("\n  ],\n  \"parameters\": {");
	first = 1;
	for (i = 0; i < (int)ARRAY_SIZE(modules); i++) {
		path_of(dir, sizeof(dir), "/sys/module/%s/parameters", modules[i], "");
		names = list_dir(dir, &n);
		if (!names)
			continue;
		printf("%s\n    ", first ? "" : ",");
		first = 0;
		json_str(modules[i]);
		fputs(": {", stdout);
		for (j = 0; j < n; j++) {
			read_param(modules[i], names[j], val, sizeof(val));
			printf("%s", j ? ", " : "");
			json_str(names[j]);
			fputs(": ", stdout);
			json_value(val);
			free(names[j]);
		}
		putchar('}');
		free(names);
	}
	printf("\n  },\n  \"not_exposed\": [");
	for (i = 0; i < (int)ARRAY_SIZE(not_exposed); i++) {
		printf("%s", i ? ", " : "");
		json_str(not_exposed[i]);
	}
	printf("]\n}\n");
}

/* ---- text. */

static void print_table(const struct table *t, const char *indent)
{
	int w[MAX_COLS], r, c;

	for (c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->cols[c]);
		for (r = 0; r < t->nrows; r++)
			if ((int)strlen(t->rows[r][c]) > w[c])
				w[c] = strlen(t->rows[r][c]);
	}
	fputs(indent, stdout);
	for (c = 0; c + 1 < t->ncols; c++)
		printf("%-*s  ", w[c], t->cols[c]);
	printf("%s\n", t->cols[c]);
	for (r = 0; r < t->nrows; r++) {
		fputs(indent, stdout);
		for (c = 0; c + 1 < t->ncols; c++)
			printf("%-*s  ", w[c], t->rows[r][c]);
		printf("%s\n", t->rows[r][c]);
	}
}

/* The nodes online, with their bus device and the debugfs counters. */
static void print_nodes(const struct instance *in, int have_self, uint16_t self,
			const uint16_t *ids, int nids)
{
	char *cells[MAX_NODES][MAX_COLS], dev[NAME_MAX + 32], id[16];
	char *(*rows)[MAX_COLS] = cells;
	const char *const *row;
	struct table t = { .ok = 1, .rows = rows };
	int j, k;

	t.cols[0] = "node";
	t.cols[1] = "role";
	t.cols[2] = "device";
	t.ncols = 3;
	for (k = 1; k < in->nodes.ncols && t.ncols < MAX_COLS; k++)
		t.cols[t.ncols++] = in->nodes.cols[k];
	for (j = 0; j < nids; j++) {
		snprintf(id, sizeof(id), "%u", ids[j]);
		cells[j][0] = xstrdup(id);
		cells[j][1] = have_self && ids[j] == self ? "self" : "peer";
		if (!has_device(in, ids[j], dev, sizeof(dev)))
			copy(dev, sizeof(dev), ids[j] == self ? "-" : "none");
		cells[j][2] = xstrdup(dev);
		row = table_row(&in->nodes, ids[j]);
		for (k = 1; k < in->nodes.ncols && k + 2 < MAX_COLS; k++)
			cells[j][k + 2] = row ? (char *)row[k] : "?";
	}
	t.nrows = nids;
	print_table(&t, "    ");
	for (j = 0; j < nids; j++) {
		free(cells[j][0]);
		free(cells[j][2]);
	}
}

static void print_text(int have_ids, uint16_t self, const uint16_t *ids, int nids,
		       struct instance *in, int nin, int denied, struct link *l, int nl)
{
	char val[256], dir[PATH_MAX], **names;
	int i, j, n, any;

	for (i = 0; i < nin; i++) {
		printf("\ninstance %s (%s)\n", in[i].name, in[i].debugfs);
		if (!in[i].nodes.ok) {
			printf("  (not readable: debugfs is for root)\n");
			continue;
		}
		printf("  nodes:\n");
		print_nodes(&in[i], have_ids, self, ids, nids);
		printf("  endpoints:%s\n", in[i].endpoints.nrows ? "" : " none");
		if (in[i].endpoints.nrows)
			print_table(&in[i].endpoints, "    ");
		printf("  ports:%s\n", in[i].ports.nrows ? "" : " none bound");
		if (in[i].ports.nrows)
			print_table(&in[i].ports, "    ");
		printf("  windows: not published by the driver yet\n");
	}
	if (!nin)
		printf("\n%s\n", denied ? "(debugfs: not readable, it is for root)" :
		       "(no /sys/kernel/debug/scif*: debugfs not mounted, or scif not loaded)");

	printf("\nlinks (NTB devices):%s\n", nl ? "" : " none");
	if (nl) {
		printf("    %-14s %-14s %-16s %s\n", "ntb", "pci function",
		       "hw driver", "client driver");
		for (i = 0; i < nl; i++)
			printf("    %-14s %-14s %-16s %s\n", l[i].name,
			       l[i].pci[0] ? l[i].pci : "-",
			       l[i].hw_driver[0] ? l[i].hw_driver : "-",
			       l[i].client[0] ? l[i].client : "-");
	}
	printf("  mode, memory window, doorbells, heartbeat age: %s\n",
	       "not published by the driver yet");

	printf("\nmodule parameters:\n");
	any = 0;
	for (i = 0; i < (int)ARRAY_SIZE(modules); i++) {
		path_of(dir, sizeof(dir), "/sys/module/%s/parameters", modules[i], "");
		names = list_dir(dir, &n);
		for (j = 0; j < n; j++) {
			read_param(modules[i], names[j], val, sizeof(val));
			printf("    %s.%-*s %s\n", modules[i],
			       (int)(28 - strlen(modules[i])), names[j], val);
			free(names[j]);
			any = 1;
		}
		free(names);
	}
	if (!any)
		printf("    none (no SCIF module loaded)\n");
}

static void print_usage(FILE *f, int code)
{
	fprintf(f, "usage: scif-info [-n | --nodes] [-j | --json]\n"
		"  -n, --nodes  the local node and the nodes online only\n"
		"  -j, --json   everything as one JSON object\n");
	exit(code);
}

int main(int argc, char **argv)
{
	uint16_t nodes[MAX_NODES], self = 0;
	int n, i, nin = 0, nl = 0, denied = 0, json = 0, only_nodes = 0;
	int have_ids, have_self, nids = 0;
	struct instance *in;
	struct link *l;
	char err[256] = "";

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--nodes"))
			only_nodes = 1;
		else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			print_usage(stdout, 0);
		else
			print_usage(stderr, 2);
	}
	if (getenv("SCIF_INFO_ROOT"))
		root = getenv("SCIF_INFO_ROOT");

	n = scif_get_node_ids(nodes, MAX_NODES, &self);
	have_ids = n >= 0;
	have_self = have_ids;
	if (have_ids) {
		nids = n < MAX_NODES ? n : MAX_NODES;
	} else {
		snprintf(err, sizeof(err), "/dev/scif: %s", strerror(errno));
		fprintf(stderr, "scif-info: %s\n", err);
	}

	if (!json) {
		if (have_ids) {
			printf("self: %u\nnodes online: %d:", self, n);
			for (i = 0; i < nids; i++)
				printf(" %u", nodes[i]);
			printf("\n");
		}
		if (only_nodes)
			return have_ids ? 0 : 1;
	}
	if (only_nodes && json) {
		in = NULL;
		l = NULL;
	} else {
		in = read_instances(&nin, &denied);
		l = read_links(&nl);
	}
	/* Without /dev/scif, the nodes debugfs knows of stand in. */
	if (!have_ids && nin && in[0].nodes.ok && in[0].nodes.self >= 0) {
		self = in[0].nodes.self;
		for (i = 0; i < in[0].nodes.nrows && nids < MAX_NODES; i++)
			nodes[nids++] = strtoul(in[0].nodes.rows[i][0], NULL, 10);
		have_self = 1;
	}
	if (json)
		print_json(have_self, self, nodes, nids, have_ids ? NULL : err,
			   in, nin, denied, l, nl);
	else
		print_text(have_self, self, nodes, nids, in, nin, denied, l, nl);
	return have_ids ? 0 : 1;
}
