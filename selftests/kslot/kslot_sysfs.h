/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading and writing small sysfs, procfs and cgroup files (module
 * parameters, memory.current, meminfo), for the limits selftests.
 */
#ifndef KSLOT_SYSFS_H
#define KSLOT_SYSFS_H

#include <errno.h>
#include <fcntl.h>
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

#endif /* KSLOT_SYSFS_H */
