// SPDX-License-Identifier: GPL-2.0
/*
 * scif-info --json: the node, its instances, links and module parameters
 * as one JSON object, with null where the driver publishes nothing yet.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

/* What the driver does not publish yet (listed in both outputs). */
static const char *const not_exposed[] = {
	"link mode", "memory window size", "doorbells", "heartbeat age",
	"registered windows",
};

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

void info_print_json(int have_ids, uint16_t self, const uint16_t *ids, int nids,
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
			if (info_has_device(&in[i], ids[j], dev, sizeof(dev)))
				json_str(dev);
			else
				fputs("null", stdout);
			row = info_table_row(&in[i].nodes, ids[j]);
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
	for (i = 0; i < (int)ARRAY_SIZE(info_modules); i++) {
		info_path_of(dir, sizeof(dir), "/sys/module/%s/parameters", info_modules[i], "");
		names = info_list_dir(dir, &n);
		if (!names)
			continue;
		printf("%s\n    ", first ? "" : ",");
		first = 0;
		json_str(info_modules[i]);
		fputs(": {", stdout);
		for (j = 0; j < n; j++) {
			info_read_param(info_modules[i], names[j], val, sizeof(val));
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
