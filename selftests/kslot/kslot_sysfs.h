/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading and writing small sysfs, procfs, debugfs and cgroup files
 * (module parameters, memory.current, meminfo, a table's charge), for
 * the limits and fail-nth selftests.
 */
#ifndef KSLOT_SYSFS_H
#define KSLOT_SYSFS_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Write @val to @path: 0 or -errno. */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	int ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* Read @path into @buf (NUL-terminated, at most @size - 1 bytes). */
static inline int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

#define DEV_TABLES	"/sys/kernel/debug/kslot/dev-tables"

/*
 * Table @t of this process's file, from the debugfs listing: what it is
 * charged (bytes) and what it takes now (measured).  0, or -1 if absent.
 */
static inline int table_charge(uint32_t t, uint64_t *bytes,
			       uint64_t *measured)
{
	char key[64], line[512], *p, *q;
	FILE *f = fopen(DEV_TABLES, "r");
	int ret = -1;

	if (!f)
		return -1;
	snprintf(key, sizeof(key), "pid=%d table=%u ", getpid(), t);
	while (ret && fgets(line, sizeof(line), f)) {
		if (!strstr(line, key))
			continue;
		p = strstr(line, " bytes=");
		q = strstr(line, " measured=");
		if (p && q) {
			*bytes = strtoull(p + 7, NULL, 10);
			*measured = strtoull(q + 10, NULL, 10);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

#endif /* KSLOT_SYSFS_H */
