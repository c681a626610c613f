// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <libkslot.h>

int main(void)
{
	char alice[8] = "alice", carol[8] = "carol", rec[8];
	uint64_t a, c;
	uint32_t t;
	int fd = kslot_open();

	if (fd < 0 || kslot_create(fd, KSLOT_KIND_MAP, 8, 1000, &t) ||
	    kslot_insert(fd, t, alice, 8, &a) || kslot_erase(fd, t, a) ||
	    kslot_insert(fd, t, carol, 8, &c))	/* carol reuses alice's slot */
		return 1;
	/* alice's handle is stale: -ENOENT, never carol's record; exit 0 */
	return kslot_get(fd, t, a, rec, 8) != -ENOENT;
}
