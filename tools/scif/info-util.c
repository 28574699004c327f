// SPDX-License-Identifier: GPL-2.0
/*
 * scif-info: helpers the other files call. Memory that cannot run out,
 * bounded string copies, paths under $SCIF_INFO_ROOT and sorted
 * directory listings.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"

const char *info_root = "";

void *info_xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("scif-info");
		exit(1);
	}
	return p;
}

char *info_xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		perror("scif-info");
		exit(1);
	}
	return d;
}

/* strlcpy: @src, cut to fit @dst of @len bytes. */
void info_copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

void info_path_of(char *buf, size_t len, const char *fmt, const char *a,
		  const char *b)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), fmt, a, b);
	snprintf(buf, len, "%s%s", info_root, rel);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory, sorted, without "." and "..". */
char **info_list_dir(const char *dir, int *count)
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
		names = info_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = info_xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	*count = n;
	return names;
}
