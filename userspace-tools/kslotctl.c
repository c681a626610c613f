// SPDX-License-Identifier: GPL-2.0
/*
 * kslotctl: inspect and drive /dev/kslot.
 *
 * Tables live only as long as the open file, so a session is one process:
 * "kslotctl run FILE" (or "kslotctl -") reads commands, one per line, and
 * runs them on one open file.  See kslotctl --help and kslotctl(8).
 *
 * Exit status: 0 success, 1 a command failed (its errno is printed),
 * 2 usage error.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libkslot.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define EXIT_ERRNO	1
#define EXIT_USAGE	2
#define MAX_NAMES	64
#define MAX_RECORD	65536
#define DUMP_SLOTS	16

static int json;

struct name {
	char name[32];
	uint64_t value;		/* table id or handle */
	uint32_t record_size;	/* tables only */
	uint32_t kind;
	int is_table;
};

static struct name names[MAX_NAMES];
static int nnames;
/* The errno of the last failed device command, for "expect". */
static int last_errno;

static const char *const usage_text =
"usage: kslotctl [--json] COMMAND [ARGS]\n"
"\n"
"commands:\n"
"  info              ABI version, table kinds and limits\n"
"  stats             totals of every open file and named kernel map\n"
"                    (debugfs, root only)\n"
"  run FILE          run a script of session commands on one open file\n"
"  -                 the same, reading the script from stdin\n"
"\n"
"session commands (one per line; # starts a comment):\n"
"  create NAME map|dense RECORD_SIZE MAX_ENTRIES\n"
"  insert TABLE VALUE [as NAME]     VALUE is text, zero-padded\n"
"  batch-insert TABLE COUNT PREFIX  inserts PREFIX-0 .. PREFIX-(COUNT-1)\n"
"  get TABLE HANDLE\n"
"  update TABLE HANDLE VALUE\n"
"  erase TABLE HANDLE\n"
"  list TABLE\n"
"  stats [TABLE]\n"
"  dump TABLE [HANDLE]              slots, free list, packed array\n"
"  destroy TABLE\n"
"  export TABLE FILE                write the table out as an image\n"
"  import NAME FILE                 a new table NAME from an image: every\n"
"                                   handle of the exported table works in\n"
"                                   it, stale ones stay stale\n"
"  expect ERRNO COMMAND ...         succeed only if COMMAND fails so\n"
"  echo TEXT\n"
"HANDLE is a NAME given with 'as' or a number (0x... for hex), optionally\n"
"followed by ^N to flip bits of it (a forged handle).\n"
"\n"
"exit status: 0 success, 1 a command failed, 2 usage error\n";

static int usage(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		fprintf(stderr, "kslotctl: ");
		vfprintf(stderr, fmt, ap);
		fprintf(stderr, "\n");
		va_end(ap);
	}
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}

/* JSON output: one object per command, built field by field. */
static void jopen(const char *command)
{
	printf("{\"command\":\"%s\"", command);
}

static void jstr(const char *key, const char *val)
{
	printf(",\"%s\":\"%s\"", key, val);
}

static void jnum(const char *key, unsigned long long val)
{
	printf(",\"%s\":%llu", key, val);
}

static void jint(const char *key, long long val)
{
	printf(",\"%s\":%lld", key, val);
}

static void jclose(void)
{
	printf("}\n");
}

static const char *errno_name(int err)
{
	static const struct { int err; const char *name; } tab[] = {
		{ EINVAL, "EINVAL" }, { ENOENT, "ENOENT" },
		{ ENOSPC, "ENOSPC" }, { ENOMEM, "ENOMEM" },
		{ EFAULT, "EFAULT" }, { E2BIG, "E2BIG" },
		{ EMFILE, "EMFILE" }, { EDQUOT, "EDQUOT" },
		{ ENOTTY, "ENOTTY" }, { EACCES, "EACCES" },
		{ EPERM, "EPERM" }, { EBADMSG, "EBADMSG" },
		{ EPROTONOSUPPORT, "EPROTONOSUPPORT" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ERANGE, "ERANGE" },
		{ EIO, "EIO" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(tab); i++)
		if (tab[i].err == err)
			return tab[i].name;
	return "E?";
}

static int errno_from_name(const char *s)
{
	for (int e = 1; e < 256; e++)
		if (!strcmp(errno_name(e), s))
			return e;
	return 0;
}

/* Print a failure of @what with errno -ret; returns EXIT_ERRNO. */
static int fail(const char *what, int ret)
{
	if (json)
		printf("{\"command\":\"%s\",\"error\":\"%s\",\"errno\":%d}\n",
		       what, errno_name(-ret), -ret);
	else
		printf("%s: error %s (%s)\n", what, errno_name(-ret),
		       strerror(-ret));
	return EXIT_ERRNO;
}

static struct name *find_name(const char *s)
{
	for (int i = 0; i < nnames; i++)
		if (!strcmp(names[i].name, s))
			return &names[i];
	return NULL;
}

static struct name *set_name(const char *s)
{
	struct name *n = find_name(s);

	if (n)
		return n;
	if (nnames == MAX_NAMES || strlen(s) >= sizeof(n->name))
		return NULL;
	n = &names[nnames++];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", s);
	return n;
}

static struct name *table_arg(const char *s)
{
	struct name *n = find_name(s);

	return n && n->is_table ? n : NULL;
}

/* A handle: NAME, a number, or either ^ a number (to forge one). */
static int handle_arg(const char *arg, uint64_t *h)
{
	char s[64], *x, *end;
	uint64_t flip = 0;
	struct name *n;

	if (strlen(arg) >= sizeof(s))
		return -1;
	snprintf(s, sizeof(s), "%s", arg);
	x = strchr(s, '^');
	if (x) {
		*x++ = 0;
		errno = 0;
		flip = strtoull(x, &end, 0);
		if (errno || *end || end == x)
			return -1;
	}
	n = find_name(s);
	if (n && !n->is_table) {
		*h = n->value ^ flip;
		return 0;
	}
	errno = 0;
	*h = strtoull(s, &end, 0) ^ flip;
	return errno || *end || end == s ? -1 : 0;
}

static void print_value(const uint8_t *rec, uint32_t size)
{
	uint32_t len = 0, i;
	int text = 1;

	while (len < size && rec[len])
		len++;
	for (i = 0; i < len; i++)
		if (!isprint(rec[i]) || rec[i] == '"' || rec[i] == '\\')
			text = 0;
	for (i = len; i < size; i++)
		if (rec[i])
			text = 0;
	if (text) {
		printf("\"%.*s\"", (int)len, rec);
		return;
	}
	printf("\"0x");
	for (i = 0; i < size; i++)
		printf("%02x", rec[i]);
	printf("\"");
}

static void show_entry(const char *what, const char *table, uint64_t h,
		       const uint8_t *rec, uint32_t size)
{
	if (json) {
		printf("{\"command\":\"%s\",\"table\":\"%s\",\"handle\":\"0x%016llx\"",
		       what, table, (unsigned long long)h);
		if (rec) {
			printf(",\"value\":");
			print_value(rec, size);
		}
		printf("}\n");
		return;
	}
	printf("%-6s %s handle 0x%016llx", what, table, (unsigned long long)h);
	if (rec) {
		printf(" value ");
		print_value(rec, size);
	}
	printf("\n");
}

static int record_from_text(uint8_t *rec, uint32_t size, const char *text)
{
	size_t len = strlen(text);

	if (len > size)
		return -1;
	memset(rec, 0, size);
	memcpy(rec, text, len);
	return 0;
}

static int cmd_info(int fd)
{
	struct kslot_info in;
	int ret = kslot_info(fd, &in);

	if (ret)
		return fail("info", ret);
	if (json) {
		jopen("info");
		jnum("abi_version", in.abi_version);
		printf(",\"kinds\":[%s%s%s]",
		       in.kinds & (1 << KSLOT_KIND_MAP) ? "\"map\"" : "",
		       (in.kinds & 6) == 6 ? "," : "",
		       in.kinds & (1 << KSLOT_KIND_DENSE) ? "\"dense\"" : "");
		jnum("max_tables", in.max_tables);
		jnum("max_record_size", in.max_record_size);
		jnum("max_entries", in.max_entries);
		jnum("max_batch", in.max_batch);
		jnum("max_bytes", in.max_bytes);
		jnum("dense_max_bytes", in.dense_max_bytes);
		jnum("max_user_bytes", in.max_user_bytes);
		jclose();
		return 0;
	}
	printf("kslot ABI version %u\n", in.abi_version);
	printf("table kinds:      %s%s\n",
	       in.kinds & (1 << KSLOT_KIND_MAP) ? "map " : "",
	       in.kinds & (1 << KSLOT_KIND_DENSE) ? "dense" : "");
	printf("max tables/file:  %u\n", in.max_tables);
	printf("max bytes/file:   %llu\n", (unsigned long long)in.max_bytes);
	if (in.max_user_bytes == ~0ULL)
		printf("max bytes/user:   unlimited (CAP_SYS_RESOURCE)\n");
	else
		printf("max bytes/user:   %llu\n",
		       (unsigned long long)in.max_user_bytes);
	printf("max record size:  %u\n", in.max_record_size);
	printf("max entries:      %u\n", in.max_entries);
	printf("max batch:        %u\n", in.max_batch);
	printf("dense table records: at most %llu bytes\n",
	       (unsigned long long)in.dense_max_bytes);
	return 0;
}

/* kslot/dev-tables: one "key=value ..." line per table of every file. */
static void print_tables(FILE *f, int first)
{
	char line[512];
	int n = 0;

	if (json)
		printf("%s\"dev-tables\":[", first ? "" : ",");
	else
		printf("dev-tables (every table of every open file):\n");
	while (fgets(line, sizeof(line), f)) {
		char *save, *kv;

		line[strcspn(line, "\n")] = 0;
		if (!json) {
			printf("  %s\n", line);
			continue;
		}
		printf("%s{", n++ ? "," : "");
		int k = 0;

		for (kv = strtok_r(line, " ", &save); kv;
		     kv = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(kv, '=');

			if (!eq)
				continue;
			*eq = 0;
			if (isdigit((unsigned char)eq[1]) || eq[1] == '-')
				printf("%s\"%s\":%s", k++ ? "," : "", kv, eq + 1);
			else
				printf("%s\"%s\":\"%s\"", k++ ? "," : "", kv,
				       eq + 1);
		}
		printf("}");
	}
	if (json)
		printf("]");
}

/* Totals from debugfs: kslot/dev-stats and every kslot/map-* file. */
static int cmd_global_stats(void)
{
	const char *dir = "/sys/kernel/debug/kslot";
	struct dirent *de;
	int first = 1;
	DIR *d = opendir(dir);

	if (!d)
		return fail("stats", errno == ENOENT ? -ENOENT : -errno);
	if (json)
		printf("{\"command\":\"stats\",\"files\":{");
	while ((de = readdir(d))) {
		char path[512], line[256];
		FILE *f;

		if (strncmp(de->d_name, "dev-", 4) && strncmp(de->d_name, "map-", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!strcmp(de->d_name, "dev-tables")) {
			print_tables(f, first);
			first = 0;
			fclose(f);
			continue;
		}
		if (json)
			printf("%s\"%s\":{", first ? "" : ",", de->d_name);
		else
			printf("%s:\n", de->d_name);
		int firstkv = 1;

		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (!colon)
				continue;
			*colon = 0;
			if (json)
				printf("%s\"%s\":%lld", firstkv ? "" : ",",
				       line, atoll(colon + 1));
			else
				printf("  %-12s%s", line, colon + 1);
			firstkv = 0;
		}
		if (json)
			printf("}");
		first = 0;
		fclose(f);
	}
	closedir(d);
	if (json)
		printf("}}\n");
	return 0;
}

static int cmd_stats(int fd, struct name *t)
{
	struct kslot_stats st;
	int ret = kslot_stats(fd, t ? t->value : 0, &st);

	if (ret)
		return fail("stats", ret);
	if (json) {
		jopen("stats");
		jstr("table", t ? t->name : "");
		jnum("tables", st.tables);
		jnum("entries", st.entries);
		jnum("capacity", st.capacity);
		jnum("max_entries", st.max_entries);
		jnum("bytes", st.bytes);
		jnum("retired", st.retired);
		jnum("rejected", st.rejected);
		jclose();
		return 0;
	}
	printf("stats  %s: %llu live entries in %u table(s), %llu slots,",
	       t ? t->name : "(this file)", (unsigned long long)st.entries,
	       st.tables, (unsigned long long)st.capacity);
	printf(" %llu bytes charged, %llu retired,",
	       (unsigned long long)st.bytes, (unsigned long long)st.retired);
	printf(" %llu stale/forged handles rejected\n",
	       (unsigned long long)st.rejected);
	return 0;
}

static int cmd_list(int fd, struct name *t)
{
	uint64_t cursor = 0, handles[64];
	uint8_t *recs = malloc((size_t)64 * t->record_size);
	uint32_t count, i, total = 0;
	int ret = 0;

	if (!recs)
		return fail("list", -ENOMEM);
	if (json)
		printf("{\"command\":\"list\",\"table\":\"%s\",\"entries\":[",
		       t->name);
	else
		printf("list   %s:\n", t->name);
	while (cursor != KSLOT_CURSOR_END) {
		ret = kslot_iterate(fd, t->value, &cursor, handles, recs,
				    t->record_size, 64, &count);
		if (ret)
			break;
		for (i = 0; i < count; i++, total++) {
			if (json) {
				printf("%s{\"handle\":\"0x%016llx\",\"value\":",
				       total ? "," : "",
				       (unsigned long long)handles[i]);
				print_value(recs + (size_t)i * t->record_size,
					    t->record_size);
				printf("}");
			} else {
				printf("  0x%016llx  ",
				       (unsigned long long)handles[i]);
				print_value(recs + (size_t)i * t->record_size,
					    t->record_size);
				printf("\n");
			}
		}
	}
	free(recs);
	if (json)
		printf("]}\n");
	if (ret)
		return fail("list", ret);
	if (!json)
		printf("  (%u entries)\n", total);
	return 0;
}

static const char *state_name(uint32_t s)
{
	switch (s) {
	case KSLOT_SLOT_LIVE:
		return "live";
	case KSLOT_SLOT_RETIRED:
		return "retired";
	default:
		return "free";
	}
}

static int cmd_dump(int fd, struct name *t, uint64_t h, int have_h)
{
	struct kslot_dump_slot slots[DUMP_SLOTS];
	uint32_t reverse[DUMP_SLOTS], i, next, shown;
	struct kslot_dump d = {
		.table_id = t->value,
		.max = DUMP_SLOTS,
		.slots_ptr = (uintptr_t)slots,
		.reverse_ptr = (uintptr_t)reverse,
		.user_handle = have_h ? h : 0,
	};
	int ret = kslot_dump(fd, &d);

	if (ret)
		return fail("dump", ret);
	if (json) {
		jopen("dump");
		jstr("table", t->name);
		jstr("kind", kslot_kind_name(t->kind));
		jnum("slots_allocated", d.nr_slots);
		jnum("live", d.live);
		jint("free_head", d.free_head == KSLOT_DUMP_NONE ? -1 :
			(long long)d.free_head);
		printf(",\"slots\":[");
		for (i = 0; i < d.count; i++) {
			printf("%s{\"index\":%u", i ? "," : "", slots[i].index);
			jnum("gen", slots[i].gen);
			jstr("state", state_name(slots[i].state));
			jint("link", slots[i].link == KSLOT_DUMP_NONE ? -1 :
				(long long)slots[i].link);
			printf("}");
		}
		printf("],\"reverse\":[");
		for (i = 0; i < d.reverse_count; i++)
			printf("%s%u", i ? "," : "", reverse[i]);
		printf("]");
		if (have_h)
			printf(",\"handle\":{\"slot\":%d,\"gen\":%llu}",
			       d.decoded_index == KSLOT_DUMP_NONE ? -1 :
			       (int)d.decoded_index,
			       (unsigned long long)d.decoded_gen);
		printf("}\n");
		return 0;
	}
	/* Show the slots in use so far and two never-used ones. */
	shown = 0;
	for (i = 0; i < d.count; i++)
		if (slots[i].gen)
			shown = i + 1;
	shown = shown + 2 < d.count ? shown + 2 : d.count;
	printf("dump   %s (%s table, record %u bytes): %u live,", t->name,
	       kslot_kind_name(t->kind), t->record_size, d.live);
	printf(" %u slots allocated, first %u shown\n", d.nr_slots, shown);
	printf("  slot  generation  state    link (free: next free slot%s)\n",
	       t->kind == KSLOT_KIND_DENSE ? "; live: packed position" : "");
	for (i = 0; i < shown; i++) {
		printf("  %4u  %10llu  %-7s", slots[i].index,
		       (unsigned long long)slots[i].gen,
		       state_name(slots[i].state));
		if (slots[i].link != KSLOT_DUMP_NONE)
			printf("  -> %u", slots[i].link);
		printf("\n");
	}
	printf("  free list: ");
	next = d.free_head;
	for (i = 0; next != KSLOT_DUMP_NONE && i < 8; i++) {
		printf("%u -> ", next);
		next = next < d.count ? slots[next].link : KSLOT_DUMP_NONE;
	}
	printf("%s\n", next == KSLOT_DUMP_NONE ? "end" : "...");
	if (d.reverse_count) {
		printf("  packed array (position -> slot):");
		for (i = 0; i < d.reverse_count; i++)
			printf(" [%u]=%u", i, reverse[i]);
		printf("\n");
	}
	if (have_h) {
		printf("  handle 0x%016llx: ", (unsigned long long)h);
		if (d.decoded_index == KSLOT_DUMP_NONE) {
			printf("not a handle of this table (forged or foreign)\n");
		} else {
			printf("slot %u generation %llu", d.decoded_index,
			       (unsigned long long)d.decoded_gen);
			for (i = 0; i < d.count; i++)
				if (slots[i].index == d.decoded_index)
					break;
			if (i == d.count)
				printf("\n");
			else if (slots[i].gen == d.decoded_gen)
				printf(": live\n");
			else
				printf(": STALE, the slot is at generation %llu (%s)\n",
				       (unsigned long long)slots[i].gen,
				       state_name(slots[i].state));
		}
	}
	return 0;
}

static int cmd_export(int fd, struct name *t, const char *path)
{
	const struct kslot_image *img;
	void *image;
	size_t size;
	FILE *out;
	int ret;

	ret = kslot_export(fd, t->value, &image, &size);
	if (ret)
		return last_errno = -ret, fail("export", ret);
	img = image;
	out = fopen(path, "w");
	if (!out || fwrite(image, 1, size, out) != size) {
		ret = -errno;
		if (out)
			fclose(out);
		free(image);
		return fail("export: write", ret ? ret : -EIO);
	}
	if (fclose(out)) {
		free(image);
		return fail("export: write", -errno);
	}
	if (json) {
		jopen("export");
		jstr("table", t->name);
		jstr("file", path);
		jnum("bytes", size);
		jnum("slots", img->nr_slots);
		jnum("live", img->live);
		jclose();
	} else {
		printf("export %s: %zu bytes to %s, %u slots, %u live\n",
		       t->name, size, path, img->nr_slots, img->live);
	}
	free(image);
	return 0;
}

static int cmd_import(int fd, const char *name, const char *path)
{
	const struct kslot_image *img;
	uint8_t *image = NULL;
	size_t size = 0, cap = 0, got;
	struct name *n;
	uint32_t id;
	FILE *in;
	int ret;

	in = fopen(path, "r");
	if (!in)
		return fail("import: read", -errno);
	do {
		if (size == cap) {
			uint8_t *p = realloc(image, cap = cap ? cap * 2 : 4096);

			if (!p) {
				free(image);
				fclose(in);
				return fail("import", -ENOMEM);
			}
			image = p;
		}
		got = fread(image + size, 1, cap - size, in);
		size += got;
	} while (got);
	fclose(in);
	ret = kslot_import(fd, image, size, &id);
	if (ret) {
		free(image);
		return last_errno = -ret, fail("import", ret);
	}
	img = (const struct kslot_image *)image;
	n = set_name(name);
	if (!n) {
		free(image);
		return usage("too many names");
	}
	n->is_table = 1;
	n->value = id;
	n->kind = img->kind;
	n->record_size = img->record_size;
	if (json) {
		jopen("import");
		jstr("table", n->name);
		jnum("id", id);
		jstr("kind", kslot_kind_name(img->kind));
		jnum("record_size", img->record_size);
		jnum("live", img->live);
		jclose();
	} else {
		printf("import %s: %s table id %u from %s, %u-byte records, %u live\n",
		       n->name, kslot_kind_name(img->kind), id, path,
		       img->record_size, img->live);
	}
	free(image);
	return 0;
}

static int split(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;

	while (*p && argc < max) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			break;
		if (*p == '"') {
			argv[argc++] = ++p;
			while (*p && *p != '"')
				p++;
		} else {
			argv[argc++] = p;
			while (*p && !isspace((unsigned char)*p))
				p++;
		}
		if (*p)
			*p++ = 0;
	}
	return argc;
}

static uint8_t recbuf[MAX_RECORD];

static int run_cmd(int fd, int argc, char **argv)
{
	const char *c = argv[0];
	struct name *t = argc > 1 ? table_arg(argv[1]) : NULL;
	uint64_t h;
	int ret;

	last_errno = 0;
	if (!strcmp(c, "echo")) {
		for (int i = 1; i < argc; i++)
			printf("%s%s", argv[i], i + 1 < argc ? " " : "");
		printf("\n");
		return 0;
	}
	if (!strcmp(c, "info"))
		return cmd_info(fd);
	if (!strcmp(c, "stats")) {
		if (argc > 1 && !t)
			return usage("stats: no table %s", argv[1]);
		return cmd_stats(fd, t);
	}
	if (!strcmp(c, "create")) {
		uint32_t kind, id;
		struct name *n;

		if (argc != 5)
			return usage("create NAME map|dense RECORD_SIZE MAX");
		kind = !strcmp(argv[2], "map") ? KSLOT_KIND_MAP :
		       !strcmp(argv[2], "dense") ? KSLOT_KIND_DENSE : 0;
		if (!kind)
			return usage("create: kind must be map or dense");
		ret = kslot_create(fd, kind, strtoul(argv[3], NULL, 0),
				   strtoul(argv[4], NULL, 0), &id);
		if (ret)
			return last_errno = -ret, fail("create", ret);
		n = set_name(argv[1]);
		if (!n)
			return usage("too many names");
		n->is_table = 1;
		n->value = id;
		n->kind = kind;
		n->record_size = strtoul(argv[3], NULL, 0);
		if (json) {
			jopen("create");
			jstr("table", n->name);
			jnum("id", id);
			jstr("kind", argv[2]);
			jnum("record_size", n->record_size);
			jclose();
		} else {
			printf("create %s: %s table id %u, %u-byte records, at most %s entries\n",
			       n->name, argv[2], id,
			       n->record_size, argv[4]);
		}
		return 0;
	}
	if (!strcmp(c, "import")) {
		if (argc != 3)
			return usage("import NAME FILE");
		return cmd_import(fd, argv[1], argv[2]);
	}
	if (!t)
		return usage("%s: unknown command or table", c);
	if (t->record_size > MAX_RECORD)
		return usage("record size too large");
	if (!strcmp(c, "insert")) {
		if ((argc != 3 && argc != 5) ||
		    (argc == 5 && strcmp(argv[3], "as")))
			return usage("insert TABLE VALUE [as NAME]");
		if (record_from_text(recbuf, t->record_size, argv[2]))
			return usage("insert: value longer than the record");
		ret = kslot_insert(fd, t->value, recbuf, t->record_size, &h);
		if (ret)
			return last_errno = -ret, fail("insert", ret);
		if (argc == 5) {
			struct name *n = set_name(argv[4]);

			if (!n)
				return usage("too many names");
			n->value = h;
		}
		show_entry("insert", t->name, h, recbuf, t->record_size);
		return 0;
	}
	if (!strcmp(c, "batch-insert")) {
		uint32_t n, done, i;
		uint64_t *hs;
		uint8_t *recs;

		if (argc != 4)
			return usage("batch-insert TABLE COUNT PREFIX");
		n = strtoul(argv[2], NULL, 0);
		hs = calloc(n ? n : 1, sizeof(*hs));
		recs = calloc(n ? n : 1, t->record_size);
		if (!hs || !recs)
			return fail("batch-insert", -ENOMEM);
		for (i = 0; i < n; i++)
			snprintf((char *)recs + (size_t)i * t->record_size,
				 t->record_size, "%s-%u", argv[3], i);
		ret = kslot_insert_batch(fd, t->value, recs, t->record_size,
					 n, hs, &done);
		if (json) {
			jopen("batch-insert");
			jstr("table", t->name);
			jnum("count", n);
			jnum("done", done);
			jclose();
		} else {
			printf("batch  %s: inserted %u of %u records in one call\n",
			       t->name, done, n);
		}
		free(hs);
		free(recs);
		if (ret)
			return last_errno = -ret, fail("batch-insert", ret);
		return 0;
	}
	if (!strcmp(c, "list"))
		return cmd_list(fd, t);
	if (!strcmp(c, "destroy")) {
		ret = kslot_destroy(fd, t->value);
		if (ret)
			return last_errno = -ret, fail("destroy", ret);
		t->is_table = 0;
		t->name[0] = 0;
		if (json)
			printf("{\"command\":\"destroy\",\"table\":\"%s\"}\n",
			       argv[1]);
		else
			printf("destroy %s\n", argv[1]);
		return 0;
	}
	if (!strcmp(c, "export")) {
		if (argc != 3)
			return usage("export TABLE FILE");
		return cmd_export(fd, t, argv[2]);
	}
	if (!strcmp(c, "dump") && argc == 2)
		return cmd_dump(fd, t, 0, 0);
	if (argc < 3 || handle_arg(argv[2], &h))
		return usage("%s TABLE HANDLE ...", c);
	if (!strcmp(c, "dump"))
		return cmd_dump(fd, t, h, 1);
	if (!strcmp(c, "get")) {
		ret = kslot_get(fd, t->value, h, recbuf, t->record_size);
		if (ret)
			return last_errno = -ret, fail("get", ret);
		show_entry("get", t->name, h, recbuf, t->record_size);
		return 0;
	}
	if (!strcmp(c, "update")) {
		if (argc != 4 || record_from_text(recbuf, t->record_size,
						  argv[3]))
			return usage("update TABLE HANDLE VALUE");
		ret = kslot_update(fd, t->value, h, recbuf, t->record_size);
		if (ret)
			return last_errno = -ret, fail("update", ret);
		show_entry("update", t->name, h, recbuf, t->record_size);
		return 0;
	}
	if (!strcmp(c, "erase")) {
		ret = kslot_erase(fd, t->value, h);
		if (ret)
			return last_errno = -ret, fail("erase", ret);
		show_entry("erase", t->name, h, NULL, 0);
		return 0;
	}
	return usage("unknown command %s", c);
}

static int run_script(FILE *in)
{
	char line[4096], *argv[16];
	int fd = kslot_open(), lineno = 0;

	if (fd < 0)
		return fail("open " KSLOT_DEVICE, fd);
	while (fgets(line, sizeof(line), in)) {
		int argc, ret;

		lineno++;
		line[strcspn(line, "\n")] = 0;
		argc = split(line, argv, 16);
		if (!argc)
			continue;
		if (!strcmp(argv[0], "expect")) {
			int want = argc > 2 ? errno_from_name(argv[1]) : 0;

			if (!want) {
				ret = usage("expect ERRNO COMMAND ...");
			} else {
				int saved = json;

				ret = run_cmd(fd, argc - 2, argv + 2);
				json = saved;
				if (ret == EXIT_ERRNO && last_errno == want) {
					if (!json)
						printf("  -> rejected with %s, as expected\n",
						       argv[1]);
					ret = 0;
				} else if (!ret) {
					printf("expected %s, but it succeeded\n", argv[1]);
					ret = EXIT_ERRNO;
				}
			}
		} else {
			ret = run_cmd(fd, argc, argv);
		}
		if (ret) {
			fprintf(stderr, "kslotctl: line %d failed\n", lineno);
			close(fd);
			return ret;
		}
		fflush(stdout);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return 0;
		} else {
			return usage("unknown option %s", argv[i]);
		}
	}
	if (i == argc)
		return usage(NULL);
	if (!strcmp(argv[i], "info") && i + 1 == argc) {
		int fd = kslot_open(), ret;

		if (fd < 0)
			return fail("open " KSLOT_DEVICE, fd);
		ret = cmd_info(fd);
		close(fd);
		return ret;
	}
	if (!strcmp(argv[i], "stats") && i + 1 == argc)
		return cmd_global_stats();
	if (!strcmp(argv[i], "-") && i + 1 == argc)
		return run_script(stdin);
	if (!strcmp(argv[i], "run") && i + 2 == argc) {
		FILE *f = fopen(argv[i + 1], "r");
		int ret;

		if (!f)
			return usage("cannot open %s: %s", argv[i + 1],
				     strerror(errno));
		ret = run_script(f);
		fclose(f);
		return ret;
	}
	return usage("unknown command %s", argv[i]);
}
