// SPDX-License-Identifier: GPL-2.0
/*
 * scif-info: what this SCIF node knows. Prints the local node id and the
 * online nodes, then whatever the driver publishes in debugfs
 * (/sys/kernel/debug/scif/, root only): endpoints, ports, counters.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scif.h"

#define DEBUGFS_DIR "/sys/kernel/debug/scif"

static void dump_file(const char *dir, const char *name)
{
	char path[512], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return;
	printf("\n== %s\n", name);
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	fclose(f);
}

static void dump_debugfs(void)
{
	struct dirent **names;
	int n, i;

	n = scandir(DEBUGFS_DIR, &names, NULL, alphasort);
	if (n < 0) {
		printf("(no %s: %s)\n", DEBUGFS_DIR, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			dump_file(DEBUGFS_DIR, names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	uint16_t nodes[256], self;
	int n, i;

	n = scif_get_node_ids(nodes, 256, &self);
	if (n < 0) {
		fprintf(stderr, "scif-info: %s\n", strerror(errno));
		return 1;
	}
	printf("self: %u\nnodes online: %d:", self, n);
	for (i = 0; i < n && i < 256; i++)
		printf(" %u", nodes[i]);
	printf("\n");
	if (argc > 1 && !strcmp(argv[1], "-n"))
		return 0;
	dump_debugfs();
	return 0;
}
