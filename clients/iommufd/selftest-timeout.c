// SPDX-License-Identifier: GPL-2.0
/*
 * iommufd's selftests run under TCG and KASAN in the check VM, tens of
 * times slower than the hardware kselftest_harness.h's default timeout of
 * 30 seconds per test was set for: basic_fail_nth.map_two_domains takes
 * about that long there, so it passed or timed out by the load of the
 * other lane, on the stock module and on the converted one alike, and the
 * comparison of the two flipped.  scripts/iommufd.sh links every selftest
 * with -Wl,--wrap=alarm and this file, so each harness timeout (the only
 * alarm() they set) is ten times as long; nothing of the selftest sources
 * is changed, and a test that hangs still ends at its timeout.
 */
#include <sys/syscall.h>
#include <unistd.h>

unsigned int __wrap_alarm(unsigned int seconds)
{
	return syscall(SYS_alarm, seconds * 10);
}
