// SPDX-License-Identifier: GPL-2.0
/*
 * The bug class kslot exists to stop, on the RDMA verbs uAPI: destroy an
 * object, create another of its kind, then send the destroy command again
 * with the first object's handle.
 *
 *   rdma_stale stock|kslot [DEVICE [ROUNDS]]
 *
 * For a PD, an MR and a QP: create one, destroy it, create a second, and
 * write DEALLOC_PD, DEREG_MR or DESTROY_QP with the first handle straight
 * to the uverbs file (the legacy write commands, so the errno is the
 * kernel's).  The stock module allocates ids lowest-free (xa_alloc): the
 * second object gets the first one's id and the stale command destroys
 * it.  ib_uverbs_kslot.ko (generational ids) must answer ENOENT and
 * leave the second object working: an MR is registered on the second PD,
 * the second QP is queried, the second MR is destroyed by its own handle.
 *
 * Then ROUNDS (default 20,000) rounds of churn with 1,000 live PDs held
 * (make check runs 2,000 on the debug kernel, where a round costs a
 * hundred times what it costs on the stock kernel): each round
 * allocates a PD and registers an MR on it, sends DEALLOC_PD with the
 * previous round's (destroyed) PD handle, then destroys both.  On kslot
 * no handle issued in the run may come back and every stale command must
 * get ENOENT; no create may fail (-ENOSPC included).
 *
 * TAP on stdout.  With "stock" every case still reports what happened,
 * as "not ok" where the stale handle reached the second object (the bug
 * the baseline has): scripts/verdict.py expects the stock module to fail
 * these cases and the kslot module to pass them all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#define CHURN_ROUNDS	20000	/* the default */
#define CHURN_LIVE	1000

static int tests, failed;

static void report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n%sok %d %s\n", ok ? "" : "not ", ++tests, name);
	fflush(stdout);
	if (!ok)
		failed++;
}

/* A legacy write command: header, then the command; 0 or -errno. */
static int write_cmd(struct ibv_context *ctx, uint32_t command,
		     const void *cmd, size_t len, size_t out_len)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		char body[64];
	} buf;
	size_t total = sizeof(buf.hdr) + len;

	memset(&buf, 0, sizeof(buf));
	buf.hdr.command = command;
	buf.hdr.in_words = total / 4;
	buf.hdr.out_words = out_len / 4;
	memcpy(buf.body, cmd, len);
	if (write(ctx->cmd_fd, &buf, total) != (ssize_t)total)
		return -errno;
	return 0;
}

static int raw_dealloc_pd(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_dealloc_pd cmd = { .pd_handle = handle };

	return write_cmd(ctx, IB_USER_VERBS_CMD_DEALLOC_PD, &cmd, sizeof(cmd),
			 0);
}

static int raw_dereg_mr(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_dereg_mr cmd = { .mr_handle = handle };

	return write_cmd(ctx, IB_USER_VERBS_CMD_DEREG_MR, &cmd, sizeof(cmd), 0);
}

static int raw_destroy_qp(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_destroy_qp_resp resp;
	struct ib_uverbs_destroy_qp cmd = {
		.response = (uintptr_t)&resp,
		.qp_handle = handle,
	};

	return write_cmd(ctx, IB_USER_VERBS_CMD_DESTROY_QP, &cmd, sizeof(cmd),
			 sizeof(resp));
}

static const char *err_name(int err)
{
	static char buf[64];

	if (!err)
		return "success";
	snprintf(buf, sizeof(buf), "%s (%d)", strerror(-err), -err);
	return buf;
}

static char mrbuf[4096 * 4];

static void test_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd1, *pd2;
	struct ibv_mr *mr;
	uint32_t h1, h2;
	int err, ok;

	pd1 = ibv_alloc_pd(ctx);
	if (!pd1) {
		report(0, "pd_stale_dealloc", "ibv_alloc_pd: %s", strerror(errno));
		return;
	}
	h1 = pd1->handle;
	ibv_dealloc_pd(pd1);
	pd2 = ibv_alloc_pd(ctx);
	if (!pd2) {
		report(0, "pd_stale_dealloc", "ibv_alloc_pd: %s", strerror(errno));
		return;
	}
	h2 = pd2->handle;
	err = raw_dealloc_pd(ctx, h1);
	mr = ibv_reg_mr(pd2, mrbuf, sizeof(mrbuf), IBV_ACCESS_LOCAL_WRITE);
	ok = err == -ENOENT && mr;
	report(ok, "pd_stale_dealloc",
	       "first PD %u, second PD %u; DEALLOC_PD %u: %s; MR on the second PD: %s",
	       h1, h2, h1, err_name(err), mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	if (ok)
		ibv_dealloc_pd(pd2);
}

static void test_mr(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_mr *mr1, *mr2;
	uint32_t h1, h2;
	int err, err2;

	mr1 = ibv_reg_mr(pd, mrbuf, sizeof(mrbuf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr1) {
		report(0, "mr_stale_dereg", "ibv_reg_mr: %s", strerror(errno));
		return;
	}
	h1 = mr1->handle;
	ibv_dereg_mr(mr1);
	mr2 = ibv_reg_mr(pd, mrbuf, sizeof(mrbuf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr2) {
		report(0, "mr_stale_dereg", "ibv_reg_mr: %s", strerror(errno));
		return;
	}
	h2 = mr2->handle;
	err = raw_dereg_mr(ctx, h1);
	/* The second MR is still there if its own handle destroys it. */
	err2 = raw_dereg_mr(ctx, h2);
	report(err == -ENOENT && !err2, "mr_stale_dereg",
	       "first MR %u, second MR %u; DEREG_MR %u: %s; DEREG_MR %u: %s",
	       h1, h2, h1, err_name(err), h2, err_name(err2));
	/* mr2 is gone from the kernel either way; libibverbs' copy leaks. */
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &attr);
}

static void test_qp(struct ibv_context *ctx, struct ibv_pd *pd,
		    struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_qp *qp1, *qp2;
	uint32_t h1, h2;
	int err, qerr, ok;

	qp1 = make_qp(pd, cq);
	if (!qp1) {
		report(0, "qp_stale_destroy", "ibv_create_qp: %s", strerror(errno));
		return;
	}
	h1 = qp1->handle;
	ibv_destroy_qp(qp1);
	qp2 = make_qp(pd, cq);
	if (!qp2) {
		report(0, "qp_stale_destroy", "ibv_create_qp: %s", strerror(errno));
		return;
	}
	h2 = qp2->handle;
	err = raw_destroy_qp(ctx, h1);
	qerr = ibv_query_qp(qp2, &attr, IBV_QP_STATE, &init);
	ok = err == -ENOENT && !qerr;
	report(ok, "qp_stale_destroy",
	       "first QP %u, second QP %u; DESTROY_QP %u: %s; query of the second QP: %s",
	       h1, h2, h1, err_name(err), qerr ? err_name(-qerr) : "success");
	if (ok)
		ibv_destroy_qp(qp2);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void test_churn(struct ibv_context *ctx, unsigned int nrounds)
{
	struct ibv_pd **live = calloc(CHURN_LIVE, sizeof(*live));
	uint32_t *seen = calloc(2 * (size_t)nrounds, sizeof(*seen));
	unsigned int nseen = 0, stale_hits = 0, dups = 0, rounds = 0, i;
	int create_err = 0, stale_err = 0;
	uint32_t prev = 0;
	int have_prev = 0;

	for (i = 0; i < CHURN_LIVE; i++) {
		live[i] = ibv_alloc_pd(ctx);
		if (!live[i]) {
			create_err = -errno;
			break;
		}
	}
	for (i = 0; !create_err && i < nrounds; i++) {
		struct ibv_pd *pd = ibv_alloc_pd(ctx);
		struct ibv_mr *mr;
		int err;

		if (!pd) {
			create_err = -errno;
			break;
		}
		mr = ibv_reg_mr(pd, mrbuf, sizeof(mrbuf), IBV_ACCESS_LOCAL_WRITE);
		if (!mr) {
			create_err = -errno;
			ibv_dealloc_pd(pd);
			break;
		}
		seen[nseen++] = pd->handle;
		seen[nseen++] = mr->handle;
		if (have_prev) {
			/*
			 * The previous round's PD is destroyed: its handle
			 * must reach nothing.  If it reaches this round's PD
			 * (stock), that PD is gone and is not used again.
			 */
			err = raw_dealloc_pd(ctx, prev);
			if (err != -ENOENT) {
				stale_hits++;
				if (!stale_err)
					stale_err = err ? err : 1;
			}
		}
		ibv_dereg_mr(mr);
		prev = pd->handle;
		have_prev = 1;
		if (ibv_dealloc_pd(pd) && !stale_hits) {
			create_err = -errno;
			break;
		}
		rounds++;
		/* Stock has no business going on past the first hits. */
		if (stale_hits >= 10)
			break;
	}
	qsort(seen, nseen, sizeof(*seen), cmp_u32);
	for (i = 1; i < nseen; i++)
		dups += seen[i] == seen[i - 1];
	report(!create_err && !stale_hits && !dups && rounds == nrounds,
	       "churn_no_reuse",
	       "%u live PDs, %u rounds, %u ids issued; ids issued twice: %u; stale DEALLOC_PD not ENOENT: %u (first: %s); create error: %s",
	       CHURN_LIVE, rounds, nseen, dups, stale_hits,
	       stale_err == 1 ? "success" : err_name(stale_err),
	       err_name(create_err));
	for (i = 0; i < CHURN_LIVE; i++)
		if (live[i])
			ibv_dealloc_pd(live[i]);
	free(live);
	free(seen);
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "kslot";
	const char *name = argc > 2 ? argv[2] : NULL;
	unsigned long nrounds = argc > 3 ? strtoul(argv[3], NULL, 10) :
				CHURN_ROUNDS;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int n, i;

	printf("TAP version 13\n1..4\n# module: %s\n", want);
	if (!nrounds || nrounds > 1000000) {
		printf("Bail out! ROUNDS: 1 to 1000000, not %s\n", argv[3]);
		return 1;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	if (!ctx) {
		printf("Bail out! no RDMA device%s%s\n", name ? " " : "",
		       name ? name : "");
		return 1;
	}
	test_pd(ctx);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq) {
		printf("Bail out! PD or CQ: %s\n", strerror(errno));
		return 1;
	}
	test_mr(ctx, pd);
	test_qp(ctx, pd, cq);
	test_churn(ctx, nrounds);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return failed ? 1 : 0;
}
