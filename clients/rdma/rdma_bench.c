// SPDX-License-Identifier: GPL-2.0
/*
 * The uverbs command path on rxe, with many live objects in the process.
 *
 *   rdma_bench [DEVICE [LIVE,LIVE,... [SECONDS [REPEATS]]]]
 *
 * Defaults: rxe0, 1,1000,100000 live objects, 1 s per measurement, best of
 * 3.  For each count of live objects (PDs held open by this process, the
 * benchmark's own CQ, PD and QP included), two loops:
 *
 *   post_send       the doorbell librxe rings in ibv_post_send(): a
 *                   POST_SEND write command with no work request on a UD
 *                   QP in RTS.  The kernel looks the QP handle up in the
 *                   file's object table (uobj_get_obj_read()), rxe
 *                   schedules its send task, which finds nothing to send.
 *   create_destroy  ibv_alloc_pd() then ibv_dealloc_pd(): a placeholder
 *                   allocated, published, looked up for the destroy and
 *                   removed.
 *
 * One line per measurement, best of REPEATS:
 *   bench LOOP live=N ops_per_s=X
 * and a line "bench done".  The guest runs it on each module in turn
 * (clients/rdma/run.sh); scripts/rdma-bench.sh divides.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} buf;
	struct ib_uverbs_post_send_resp resp;

	memset(&buf, 0, sizeof(buf));
	buf.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	buf.hdr.in_words = sizeof(buf) / 4;
	buf.hdr.out_words = sizeof(resp) / 4;
	buf.cmd.response = (uintptr_t)&resp;
	buf.cmd.qp_handle = qp->handle;
	buf.cmd.wr_count = 0;
	buf.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(qp->context->cmd_fd, &buf, sizeof(buf)) != sizeof(buf))
		return -errno;
	return 0;
}

static struct ibv_qp *ud_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qkey = 0x11111111,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return NULL;
	attr.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE))
		return NULL;
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return NULL;
	return qp;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "rxe0";
	char *lives = strdup(argc > 2 ? argv[2] : "1,1000,100000");
	double secs = argc > 3 ? atof(argv[3]) : 1.0;
	int repeats = argc > 4 ? atoi(argv[4]) : 3;
	struct ibv_pd **held = NULL;
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	unsigned int nheld = 0;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char *tok, *save;
	int n, i;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		printf("bench error: no device %s\n", name);
		return 1;
	}
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	pd = ibv_alloc_pd(ctx);
	qp = cq && pd ? ud_qp(pd, cq) : NULL;
	if (!qp) {
		printf("bench error: CQ, PD or QP: %s\n", strerror(errno));
		return 1;
	}
	if (doorbell(qp)) {
		printf("bench error: POST_SEND: %s\n", strerror(errno));
		return 1;
	}
	for (tok = strtok_r(lives, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int live = strtoul(tok, NULL, 0);
		double best_ps = 0, best_cd = 0;
		int r;

		/* The benchmark's CQ, PD and QP count among the live objects. */
		held = realloc(held, (live > 3 ? live : 3) * sizeof(*held));
		while (nheld + 3 < live) {
			held[nheld] = ibv_alloc_pd(ctx);
			if (!held[nheld]) {
				printf("bench error: PD %u: %s\n", nheld,
				       strerror(errno));
				return 1;
			}
			nheld++;
		}
		for (r = 0; r < repeats; r++) {
			double t0 = now(), t;
			unsigned long ops = 0;

			do {
				for (i = 0; i < 256; i++)
					if (doorbell(qp)) {
						printf("bench error: POST_SEND: %s\n",
						       strerror(errno));
						return 1;
					}
				ops += 256;
				t = now() - t0;
			} while (t < secs);
			if (ops / t > best_ps)
				best_ps = ops / t;
			t0 = now();
			ops = 0;
			do {
				for (i = 0; i < 64; i++) {
					struct ibv_pd *p = ibv_alloc_pd(ctx);

					if (!p || ibv_dealloc_pd(p)) {
						printf("bench error: PD: %s\n",
						       strerror(errno));
						return 1;
					}
				}
				ops += 64;
				t = now() - t0;
			} while (t < secs);
			if (ops / t > best_cd)
				best_cd = ops / t;
		}
		printf("bench post_send live=%u ops_per_s=%.0f\n", live, best_ps);
		printf("bench create_destroy live=%u ops_per_s=%.0f\n", live,
		       best_cd);
		fflush(stdout);
	}
	printf("bench done\n");
	return 0;
}
