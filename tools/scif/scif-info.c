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
 *
 * This file holds the options and main(); info-read.c reads what the
 * driver publishes, info-json.c and info-text.c print it, info-util.c has
 * the helpers they share and info.h their declarations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scif.h"
#include "info.h"

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
		info_root = getenv("SCIF_INFO_ROOT");

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
		in = info_read_instances(&nin, &denied);
		l = info_read_links(&nl);
	}
	/* Without /dev/scif, the nodes debugfs knows of stand in. */
	if (!have_ids && nin && in[0].nodes.ok && in[0].nodes.self >= 0) {
		self = in[0].nodes.self;
		for (i = 0; i < in[0].nodes.nrows && nids < MAX_NODES; i++)
			nodes[nids++] = strtoul(in[0].nodes.rows[i][0], NULL, 10);
		have_self = 1;
	}
	if (json)
		info_print_json(have_self, self, nodes, nids, have_ids ? NULL : err,
				in, nin, denied, l, nl);
	else
		info_print_text(have_self, self, nodes, nids, in, nin, denied, l, nl);
	return have_ids ? 0 : 1;
}
