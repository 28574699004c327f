// SPDX-License-Identifier: GPL-2.0
/*
 * scif-info without --json: each instance's nodes, endpoints and ports as
 * aligned tables, then the NTB devices and the module parameters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

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
		cells[j][0] = info_xstrdup(id);
		cells[j][1] = have_self && ids[j] == self ? "self" : "peer";
		if (!info_has_device(in, ids[j], dev, sizeof(dev)))
			info_copy(dev, sizeof(dev), ids[j] == self ? "-" : "none");
		cells[j][2] = info_xstrdup(dev);
		row = info_table_row(&in->nodes, ids[j]);
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

void info_print_text(int have_ids, uint16_t self, const uint16_t *ids, int nids,
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
	for (i = 0; i < (int)ARRAY_SIZE(info_modules); i++) {
		info_path_of(dir, sizeof(dir), "/sys/module/%s/parameters", info_modules[i], "");
		names = info_list_dir(dir, &n);
		for (j = 0; j < n; j++) {
			info_read_param(info_modules[i], names[j], val, sizeof(val));
			printf("    %s.%-*s %s\n", info_modules[i],
			       (int)(28 - strlen(info_modules[i])), names[j], val);
			free(names[j]);
			any = 1;
		}
		free(names);
	}
	if (!any)
		printf("    none (no SCIF module loaded)\n");
}
