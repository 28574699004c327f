// SPDX-License-Identifier: GPL-2.0
/*
 * scif-info: reading what the driver publishes. The debugfs tables of each
 * SCIF instance and the devices on its bus, the NTB devices with their PCI
 * function and drivers, the module parameters, and the look-ups of one
 * node in what was read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "info.h"

const char *const info_modules[] = { "scif", "scif_ntb", "swdma", "ntb_ivshmem" };

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
				t->cols[i] = info_xstrdup(tok[i]);
			t->ncols = n;
			continue;
		}
		t->rows = info_xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
		for (i = 0; i < MAX_COLS; i++)
			t->rows[t->nrows][i] = info_xstrdup(i < n ? tok[i] : "");
		t->nrows++;
	}
	fclose(f);
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
	info_copy(out, len, slash ? slash + 1 : target);
}

/* Every SCIF instance that has a debugfs directory (scif, scif-NAME). */
struct instance *info_read_instances(int *count, int *debugfs_denied)
{
	struct instance *in = NULL;
	char dir[PATH_MAX], path[PATH_MAX], **names, **devs;
	int n, i, j, ndev, k = 0;

	*debugfs_denied = 0;
	info_path_of(dir, sizeof(dir), "/sys/kernel/debug", "", "");
	names = info_list_dir(dir, &n);
	if (!names && (errno == EACCES || errno == EPERM))
		*debugfs_denied = 1;
	for (i = 0; i < n; i++) {
		if (strncmp(names[i], "scif", 4))
			continue;
		info_path_of(path, sizeof(path), "/sys/kernel/debug/%s/nodes", names[i], "");
		if (access(path, F_OK))
			continue;
		in = info_xrealloc(in, (k + 1) * sizeof(*in));
		memset(&in[k], 0, sizeof(*in));
		info_copy(in[k].name, sizeof(in[k].name), names[i]);
		info_path_of(in[k].debugfs, sizeof(in[k].debugfs), "/sys/kernel/debug/%s",
			     names[i], "");
		table_read(&in[k].nodes, path);
		if (!in[k].nodes.ok && (errno == EACCES || errno == EPERM))
			*debugfs_denied = 1;
		info_path_of(path, sizeof(path), "/sys/kernel/debug/%s/endpoints", names[i], "");
		table_read(&in[k].endpoints, path);
		info_path_of(path, sizeof(path), "/sys/kernel/debug/%s/ports", names[i], "");
		table_read(&in[k].ports, path);
		info_path_of(path, sizeof(path), "/sys/bus/%s/devices", names[i], "");
		devs = info_list_dir(path, &ndev);
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
struct link *info_read_links(int *count)
{
	char dir[PATH_MAX], path[PATH_MAX], real[PATH_MAX], **names, *slash;
	struct link *l = NULL;
	int n, i;

	info_path_of(dir, sizeof(dir), "/sys/bus/ntb/devices", "", "");
	names = info_list_dir(dir, &n);
	if (n)
		l = info_xrealloc(NULL, n * sizeof(*l));
	for (i = 0; i < n; i++) {
		memset(&l[i], 0, sizeof(l[i]));
		info_copy(l[i].name, sizeof(l[i].name), names[i]);
		info_path_of(path, sizeof(path), "/sys/bus/ntb/devices/%s/driver", names[i], "");
		link_base(path, l[i].client, sizeof(l[i].client));
		/* The parent of the NTB device is the PCI function. */
		info_path_of(path, sizeof(path), "/sys/bus/ntb/devices/%s", names[i], "");
		slash = realpath(path, real) ? strrchr(real, '/') : NULL;
		if (slash) {
			*slash = 0;
			slash = strrchr(real, '/');
			info_copy(l[i].pci, sizeof(l[i].pci), slash ? slash + 1 : real);
			strncat(real, "/driver", sizeof(real) - strlen(real) - 1);
			link_base(real, l[i].hw_driver, sizeof(l[i].hw_driver));
		}
		free(names[i]);
	}
	free(names);
	*count = n;
	return l;
}

void info_read_param(const char *mod, const char *name, char *val, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	info_path_of(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, name);
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

const char *const *info_table_row(const struct table *t, long node)
{
	char id[16];
	int r;

	snprintf(id, sizeof(id), "%ld", node);
	for (r = 0; r < t->nrows; r++)
		if (!strcmp(t->rows[r][0], id))
			return (const char *const *)t->rows[r];
	return NULL;
}

int info_has_device(const struct instance *in, unsigned int node, char *name,
		    size_t len)
{
	char want[NAME_MAX + 32];
	int i;

	snprintf(want, sizeof(want), "%s-node%u", in->name, node);
	for (i = 0; i < in->ndevices; i++) {
		if (!strcmp(in->devices[i], want)) {
			info_copy(name, len, want);
			return 1;
		}
	}
	return 0;
}
