// SPDX-License-Identifier: GPL-2.0
/*
 * Print this x86-64 host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 200 ms.  Under TCG a guest's TSC is the
 * host's, and scripts/vm.sh passes the figure to the test kernels
 * (tsc_early_khz=): without ACPI they have no HPET or PM timer to
 * calibrate the TSC against, and the PIT alone fails on a busy host.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

/*
 * A TSC read and a clock read close together: the pair of 5 with the
 * shortest TSC interval around the clock read.
 */
static void sample(unsigned long long *tsc, unsigned long long *ns)
{
	unsigned long long best = ~0ULL;
	struct timespec ts;
	int i;

	for (i = 0; i < 5; i++) {
		unsigned long long a = __rdtsc(), b;

		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		b = __rdtsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		}
	}
}

int main(void)
{
	struct timespec d = { 0, 200 * 1000 * 1000 };
	unsigned long long t0, n0, t1, n1;

	sample(&t0, &n0);
	nanosleep(&d, NULL);
	sample(&t1, &n1);
	if (n1 <= n0 || t1 <= t0)
		return 1;
	printf("%llu\n", (t1 - t0) * 1000000ULL / (n1 - n0));
	return 0;
}
