# SPDX-License-Identifier: GPL-2.0
#
# kslot top-level Makefile: wraps Kbuild and drives the test VM.
# "make help" prints this comment.  Times are for 2 cores.
#
# Start here (fresh machine, as root; packages from scripts/deps.sh):
#   run              the demo in the VM (a few min once the debug kernel,
#                    5 to 10 min the first time, is cached)
#   check            every test: VMs (x86-64 and arm64), host checks,
#                    verdict (about 34 min on a fresh machine, 17 with
#                    the kernels cached) [IOMMUFD_STOCK=1 RDMA_STOCK=1]
# Build:
#   all, modules     the modules against KDIR (default: the running
#                    kernel's headers, else the cached test kernel)
#   kernel, rt-kernel  build (or reuse) the cached debug / PREEMPT_RT kernel
#   install          modules, kslotctl, libkslot, headers, man page, udev
#                    rule [DESTDIR= PREFIX=/usr/local MANDIR= UDEVDIR=]
#   dkms-src         the DKMS source tree, DESTDIR/usr/src/kslot-VERSION
#   docs             docs/*.rst, kernel-doc expanded, into build/docs/
#                    (HTML too when sphinx-build is installed)
#   clean            remove build products
# Test (parts of check, run alone):
#   check-quick      the debug VM alone: a developer's loop
#                    [RDMA_DEBUG=0: without rdma-core's suite]
#   check-rt         the PREEMPT_RT debug VM alone
#   check-stock      Debian's stock kernels alone [STOCK_KERNELS=...]
#   check-arm64      the arm64 lane alone: Debian's stock arm64 kernel
#                    (cross-built W=1, its selftests under
#                    qemu-system-aarch64) and the 32-bit refusal
#   lint             checkpatch, kernel-doc, sparse, coccicheck
#   examples         compile the README's two examples and the worked
#                    driver example (docs/example/)
#   iommufd          iommufd converted to kslot (clients/iommufd/)
#   rdma             ib_uverbs converted to kslot (clients/rdma/), for
#                    the debug kernel
# Reliability and benchmarks (not in check):
#   fuzz             ioctl fuzzer in the VM [FUZZ_CALLS= FUZZ_SEED= ...]
#   check-kcsan      every suite on a KCSAN kernel [KCSAN_STRICT=1]
#   kunit-intree     the KUnit suites in-tree, with kunit.py
#   bench            kslot against XArray, IDR, slotmap... (VM + native)
#   bench-native     the native half of bench alone (no VM)
#   rdma-bench       ib_uverbs stock / kslot on rxe, stock 6.12 VM
#   vm-run SCRIPT=path [FILES=dir]   your script in the VM, kslot loaded
# Steps, run by the targets above: deps deps-kernel kernel-build
#   rt-kernel-build test-modules selftests tools
#   host-checks eco-checks stock-fetch stock-vms rt-modules rt-vm bench-deps
#   bench-tools bench-selftest bench-module arm64-user arm64-lane
#   check-build
# More: README.md, docs/index.rst (docs/testing.rst for what check runs).

TOP := $(CURDIR)
BUILD := $(TOP)/build
KVER := $(shell uname -r)
# The running kernel's headers when installed, else the cached test kernel.
KDIR ?= $(if $(wildcard /lib/modules/$(KVER)/build/Makefile),/lib/modules/$(KVER)/build,$(shell $(TOP)/scripts/kernel.sh))

VM_OUT := $(BUILD)/vm
# The user-space programs for the test VMs (selftests, tools): the host's
# in build/, or cross-built with CROSS_COMPILE= for ARCH= into
# build/ARCH/ (the arm64 lane: see arm64-user).
UBUILD := $(if $(CROSS_COMPILE),$(BUILD)/$(ARCH),$(BUILD))
ifneq ($(CROSS_COMPILE),)
CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
endif
NPROC := $(shell nproc)
# The debug kernel has configs/kslot-rdma.config, and the debug VM runs
# a subset of rdma-core's suite (see the rdma target below); RDMA_DEBUG=0
# builds and runs the debug kernel without them (a kernel of its own).
RDMA_DEBUG ?= 1
ifneq ($(filter 1 y yes,$(RDMA_DEBUG)),)
KSLOT_FRAGMENT ?= $(TOP)/configs/kslot-test.config $(TOP)/configs/kslot-rdma.config
RDMA_DEBUG_DEPS := rdma
RDMA_DEBUG_ENV = $(RDMA_ENV)
else
KSLOT_FRAGMENT ?= $(TOP)/configs/kslot-test.config
endif
# Resolve the cached test kernel (building it if needed) inside a recipe.
TEST_KDIR = $$($(TOP)/scripts/kernel.sh $(KSLOT_FRAGMENT))

# The PREEMPT_RT debug kernel: the test fragment plus configs/kslot-rt.config,
# cached apart.  kslot is built against it from a copy of the sources.
RT_FRAGMENTS := $(TOP)/configs/kslot-test.config $(TOP)/configs/kslot-rt.config
RT_KDIR = $$($(TOP)/scripts/kernel.sh $(RT_FRAGMENTS))
RT_SRC := $(BUILD)/rt-src
RT_OUT := $(BUILD)/vm-rt
# The RT VM boots as Debian's kernels do, with init_on_alloc on (the
# pool's init_on_alloc case runs there; it skips on the other kernels).
RT_VM_ENV = KSLOT_VM_APPEND="init_on_alloc=1$${KSLOT_VM_APPEND:+ $$KSLOT_VM_APPEND}"

.PHONY: help all modules deps deps-kernel kernel-build rt-kernel-build kernel iommufd rdma rt-kernel rt-modules rt-vm check-rt check-quick check run vm-run test-modules selftests tools host-checks lint stock-fetch stock-vms check-stock fuzz check-kcsan clean

all: modules

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' $(TOP)/Makefile

modules:
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules

# deps-kernel installs what a kernel build needs, first: on a fresh
# machine the kernels then build while deps installs everything else.
deps: deps-kernel
	@$(TOP)/scripts/deps.sh

deps-kernel:
	@$(TOP)/scripts/deps.sh kernel

kernel-build: deps-kernel
	@$(TOP)/scripts/kernel.sh $(KSLOT_FRAGMENT) >/dev/null

rt-kernel-build: deps-kernel
	@$(TOP)/scripts/kernel.sh $(RT_FRAGMENTS) >/dev/null

kernel: kernel-build deps
rt-kernel: rt-kernel-build deps

# kslot.ko, the KUnit modules and the benchmark module for the RT kernel.
rt-modules: rt-kernel
	@$(TOP)/scripts/build-copy.sh $(RT_KDIR) $(RT_SRC)

# Every KUnit suite and selftest on the RT debug kernel (judged by check).
rt-vm: rt-modules selftests tools
	@mkdir -p $(RT_OUT)
	@$(RT_VM_ENV) KSLOT_KO_DIR=$(RT_SRC) KSLOT_TESTS_DIR=$(RT_SRC) \
		$(TOP)/scripts/vm.sh check $(RT_KDIR) $(RT_OUT)

check-rt: rt-vm
	@$(TOP)/scripts/verdict.py debug $(RT_OUT) $(RT_KDIR)/source

# The fast subset of make check: every KUnit suite and selftest on the
# preemptible debug kernel, without the RT and stock kernels and the host
# checks.  make check (CI) runs all of it.
check-quick: test-modules bench-module selftests tools iommufd $(RDMA_DEBUG_DEPS)
	@mkdir -p $(VM_OUT)
	@kdir=$(TEST_KDIR); \
	$(IOMMUFD_ENV) $(RDMA_DEBUG_ENV) $(TOP)/scripts/vm.sh check $$kdir $(VM_OUT) && \
	$(TOP)/scripts/verdict.py debug $(VM_OUT) $$kdir/source \
		iommufd-cache=$(IOMMUFD_CACHE)

# Build the modules against the test kernel and stage the KUnit modules.
test-modules: kernel
	@rm -f $(TOP)/*_test.ko
	@kdir=$(TEST_KDIR); \
	$(MAKE) -j$(NPROC) -C $$kdir M=$(TOP) W=1 modules
	@mkdir -p $(BUILD)/tests
	@rm -f $(BUILD)/tests/*.ko
	@cp $(TOP)/*_test.ko $(BUILD)/tests/

# iommufd on kslot (clients/iommufd/): the converted module, iommufd's own
# selftests and ours, staged with the stock iommufd.ko for the check VM.
# The stock module's results are cached under a key of what they depend
# on (scripts/iommufd.sh), or recorded in the tree under that key
# (scripts/stock-results.sh); the check VM runs it only when they are
# not, or with IOMMUFD_STOCK=1.
IOMMUFD_VM := $(BUILD)/iommufd/vm
IOMMUFD_CACHE = $$(cat $(BUILD)/iommufd/stock-cache)
IOMMUFD_ENV = KSLOT_IOMMUFD_DIR=$(IOMMUFD_VM) \
	KSLOT_IOMMUFD_MODULES="$$(test -f $(IOMMUFD_CACHE)/results.log && \
		test -z "$(IOMMUFD_STOCK)" && echo kslot || echo stock kslot)"
iommufd: test-modules
	@kdir=$(TEST_KDIR); $(TOP)/scripts/iommufd.sh $$kdir $(BUILD)/iommufd
	@$(TOP)/scripts/stock-results.sh seed iommufd $(IOMMUFD_CACHE)

# RDMA verbs on kslot (clients/rdma/): ib_uverbs_kslot.ko against the
# test kernel, the kernel's own RDMA modules and the packed userland
# (scripts/rdma.sh), for the check VM.  make check runs rdma-core's
# whole suite on the stock 6.12 kernel (scripts/stock-check.sh); the
# debug kernel takes configs/kslot-rdma.config too (unless RDMA_DEBUG=0)
# and the debug VM runs RDMA_SUITE, a subset, on both modules (under
# KASAN and lockdep), and the stale-handle test with RDMA_CHURN rounds
# of churn (the stock 6.12 VM runs its default, 20,000).  The stock
# module's results are cached (or recorded) as iommufd's are;
# RDMA_STOCK=1 runs it again.  MAKEFLAGS= here where the other scripts
# source scripts/own-make.sh: rdma.sh's own text is part of its
# results' key.
RDMA_OUT := $(BUILD)/rdma/debug
RDMA_SUITE ?= tests.test_pd tests.test_mr tests.test_qp tests.test_device \
	tests.test_shared_pd tests.test_rdmacm
RDMA_CHURN ?= 2000
RDMA_CACHE = $$(cat $(RDMA_OUT)/stock-cache)
RDMA_ENV = KSLOT_RDMA_DIR=$(RDMA_OUT)/vm KSLOT_RDMA_SUITE="$(RDMA_SUITE)" \
	KSLOT_RDMA_CHURN=$(RDMA_CHURN) \
	KSLOT_RDMA_MODULES="$$(test -f $(RDMA_CACHE)/results.log && \
		test -z "$(RDMA_STOCK)" && echo kslot || echo stock kslot)"
rdma: test-modules
	@test -n "$(RDMA_DEBUG_DEPS)" || { echo "make rdma: the debug kernel" \
		"has no RDMA with RDMA_DEBUG=0 (make check runs the client on" \
		"the stock 6.12 kernel too)" >&2; exit 2; }
	@kdir=$(TEST_KDIR); MAKEFLAGS= $(TOP)/scripts/rdma.sh $$kdir $(TOP) $(RDMA_OUT)
	@$(TOP)/scripts/stock-results.sh seed rdma $(RDMA_CACHE)

# The kselftest client, against the kernel source's lib.mk and harness
# (extracted, no kernel built).
selftests: deps
	@ksrc=$$($(TOP)/scripts/kernel.sh --source); \
	mkdir -p $(UBUILD)/selftests; \
	$(MAKE) -s -C $(TOP)/selftests/kslot KSRC=$$ksrc OUTPUT=$(UBUILD)/selftests
	@cp $(TOP)/selftests/kslot/*.sh $(UBUILD)/selftests/

# libkslot and kslotctl; a static kslotctl goes into the VM.
tools: deps
	@$(MAKE) -s -C $(TOP)/userspace-tools STATIC=1 O=$(UBUILD)/userspace \
		CC="$(CC)" AR="$(AR)"
	@mkdir -p $(UBUILD)/bin
	@cp $(UBUILD)/userspace/kslotctl $(UBUILD)/bin/

# Host-side checks whose TAP counts in the summary: ABI layout and lint.
# CHECK_BUILT=1 (make check, which has built them): no prerequisites.
host-checks: $(if $(CHECK_BUILT),,kernel selftests tools)
	@mkdir -p $(VM_OUT)
	@rm -f $(VM_OUT)/host-abi.tap $(VM_OUT)/host-lint.tap $(VM_OUT)/host-skip.tap
	@$(TOP)/scripts/abi-check.sh $(BUILD)/abi > $(VM_OUT)/host-abi.tap || true
	@$(TOP)/scripts/lint.sh $(TEST_KDIR) --tap > $(VM_OUT)/host-lint.tap || true
	@$(TOP)/scripts/skip-check.sh > $(VM_OUT)/host-skip.tap

# Everything make check runs is built first, as many jobs at a time as
# there are cores (two here): the two debug kernels' builds keep the
# cores busy, and the small builds (user-space programs, the cross
# compilers' and the stock kernels' fetch, the clients) fill the gaps
# between them.
CHECK_BUILD := test-modules rt-modules selftests tools iommufd arm64-user \
	stock-fetch bench-module examples $(RDMA_DEBUG_DEPS)
.PHONY: check-build
check-build: $(CHECK_BUILD)

# Then two lanes at once, as a VM keeps about one of the 2 cores busy:
# the debug VM (KASAN, and the clients' suites) in one; in the other the
# host checks, which start once the debug VM has its initramfs (they
# rebuild in the tree), then the PREEMPT_RT debug VM.  Each stock
# kernel's build and VM (stock-check.sh --lane), one kernel at a time,
# and then the arm64 lane (arm64-lane) go to whichever lane is free first
# (each kernel claims its directory under stock-amd64.d/; the arm64 lane
# claims arm64.claim).  Each VM prints its progress, labelled
# (scripts/vm.sh); the summary shows each part's wall time and lane, and
# the whole run's.
check:
	@s=$$(date +%s); $(MAKE) -j$(NPROC) check-build && \
	mkdir -p $(VM_OUT) && echo $$(( $$(date +%s) - s )) > $(VM_OUT)/build.time
	@mkdir -p $(VM_OUT) $(RT_OUT)
	@rm -f $(VM_OUT)/host-checks.time $(VM_OUT)/check.time $(VM_OUT)/staged \
		$(VM_OUT)/host-compile.tap $(VM_OUT)/stock-dirs \
		$(VM_OUT)/host-compile-arm64.tap \
		$(VM_OUT)/host-refuse32.tap $(VM_OUT)/stock-dirs-arm64 \
		$(VM_OUT)/arm64-lane.time
	@rm -rf $(VM_OUT)/arm64.claim $(VM_OUT)/stock-amd64.d \
		$(VM_OUT)/stock.claim $(VM_OUT)/stock.time
	@kdir=$(TEST_KDIR); rtkdir=$(RT_KDIR); t0=$$(date +%s); \
	stock() { $(TOP)/scripts/stock-check.sh --lane $$1 $(VM_OUT) \
		$(STOCK_KERNELS); }; \
	arm64() { ! mkdir $(VM_OUT)/arm64.claim 2>/dev/null || \
		{ echo $$1 > $(VM_OUT)/arm64.claim/lane; \
		  $(MAKE) -s arm64-lane LANE_OUT=$(VM_OUT); }; }; \
	{ $(IOMMUFD_ENV) $(RDMA_DEBUG_ENV) KSLOT_VM_LABEL=debug KSLOT_VM_STAGED=$(VM_OUT)/staged \
		$(TOP)/scripts/vm.sh check $$kdir $(VM_OUT); rc=$$?; \
	  touch $(VM_OUT)/staged; stock debug; arm64 debug; exit $$rc; } & \
	lane=$$!; \
	while [ ! -e $(VM_OUT)/staged ] && kill -0 $$lane 2>/dev/null; do \
		sleep 1; done; \
	{ s=$$(date +%s); $(MAKE) -s host-checks eco-checks CHECK_BUILT=1; \
	  echo $$(( $$(date +%s) - s )) > $(VM_OUT)/host-checks.time; } \
		> $(VM_OUT)/host-checks.log 2>&1; \
	$(RT_VM_ENV) KSLOT_VM_LABEL=rt KSLOT_KO_DIR=$(RT_SRC) \
		KSLOT_TESTS_DIR=$(RT_SRC) \
		$(TOP)/scripts/vm.sh check $$rtkdir $(RT_OUT); \
	stock host; arm64 host; \
	wait $$lane; rc=$$?; cat $(VM_OUT)/host-checks.log; \
	echo $$(( $$(date +%s) - t0 )) > $(VM_OUT)/check.time; exit $$rc
	@kdir=$(TEST_KDIR); \
	$(TOP)/scripts/verdict.py check $(VM_OUT) $$kdir/source \
		iommufd-cache=$(IOMMUFD_CACHE) \
		debug=$(RT_OUT) $$(cat $(VM_OUT)/stock-dirs) \
		$$(cat $(VM_OUT)/stock-dirs-arm64 2>/dev/null)

run: test-modules tools
	@mkdir -p $(VM_OUT)
	@kdir=$(TEST_KDIR); \
	$(TOP)/scripts/vm.sh run $$kdir $(VM_OUT) && \
	$(TOP)/scripts/verdict.py run $(VM_OUT) $$kdir/source

vm-run: test-modules tools
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path [FILES=dir]"; exit 2; }
	@test -f "$(SCRIPT)" || { echo "vm-run: $(SCRIPT) not found"; exit 2; }
	@mkdir -p $(VM_OUT)
	@kdir=$(TEST_KDIR); \
	$(TOP)/scripts/vm.sh script $$kdir $(VM_OUT) $(abspath $(SCRIPT)) $(if $(FILES),$(abspath $(FILES))) && \
	$(TOP)/scripts/verdict.py script $(VM_OUT) $$kdir/source

lint: kernel
	@$(TOP)/scripts/lint.sh $(TEST_KDIR)

# The compile matrix and selftests on Debian's stock kernels (production
# configs, no KUnit); see scripts/stock-check.sh.  stock-fetch unpacks
# them (and the arm64 lane's) into the cache (scripts/stock-kernel.sh),
# so that make check fetches them while the kernels build (after
# deps-kernel, whose apt-get update, when it installs, fills the system
# lists the x86-64 kernels are resolved from).
STOCK_KERNELS ?= 6.12 6.12-rt 6.1
stock-fetch: deps-kernel
	@for k in $(STOCK_KERNELS); do \
		$(TOP)/scripts/stock-kernel.sh $$k > /dev/null || exit 1; done
	@for k in $(ARM64_KERNELS); do \
		$(TOP)/scripts/stock-kernel.sh --arch arm64 $$k > /dev/null || exit 1; done
	@$(TOP)/scripts/stock-kernel.sh --arch armhf --headers 6.12 > /dev/null

stock-vms: selftests tools
	@$(TOP)/scripts/stock-check.sh $(VM_OUT) $(STOCK_KERNELS)

check-stock: stock-vms
	@for d in $$(cat $(VM_OUT)/stock-dirs); do \
		$(TOP)/scripts/verdict.py stock $$d $(TOP) || exit 1; done

# ---- arm64: Debian's stock arm64 kernel, from this amd64 host ----
# The arm64 lane of make check: Debian's arm64 linux-image, headers and
# busybox-static fetched into the cache (no multiarch:
# scripts/stock-kernel.sh --arch arm64), kslot.ko and kslot_dev.ko built
# W=1 with aarch64-linux-gnu-gcc against those headers (any warning
# fails), the kernel booted under qemu-system-aarch64 (TCG) with the
# selftests and kslotctl cross-built static (the 32-bit client for
# armhf, through the kernel's COMPAT) (scripts/stock-check.sh --arch
# arm64), then the 32-bit refusal (scripts/refuse32-check.sh: a build
# against Debian's armhf headers stops at kslot's #error, and the
# in-tree Kconfig hides kslot on i386).  LANE_OUT gets the host TAP
# (host-compile-arm64.tap, host-refuse32.tap), stock-dirs-arm64 and
# the lane's wall time.
ARM64_CROSS := ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	CC32=arm-linux-gnueabihf-gcc
ARM64_KERNELS ?= 6.12
ARM64_OUT := $(BUILD)/vm-arm64
LANE_OUT ?= $(ARM64_OUT)

.PHONY: arm64-user arm64-lane check-arm64

arm64-user: deps
	@$(TOP)/scripts/cross-gcc.sh arm64 armhf -- \
		$(MAKE) -s selftests tools $(ARM64_CROSS)

arm64-lane:
	@mkdir -p $(LANE_OUT)
	@rm -f $(LANE_OUT)/arm64-lane.time
	@s=$$(date +%s); \
	$(TOP)/scripts/stock-check.sh --arch arm64 $(LANE_OUT) $(ARM64_KERNELS); \
	$(TOP)/scripts/refuse32-check.sh > $(LANE_OUT)/host-refuse32.tap; \
	echo $$(( $$(date +%s) - s )) > $(LANE_OUT)/arm64-lane.time

check-arm64: arm64-user
	@rm -rf $(ARM64_OUT)
	@$(MAKE) -s arm64-lane LANE_OUT=$(ARM64_OUT)
	@$(TOP)/scripts/verdict.py host $(ARM64_OUT) \
		$$($(TOP)/scripts/kernel.sh --source) \
		$$(cat $(ARM64_OUT)/stock-dirs-arm64)

# ---- reliability: the long fuzz run and the KCSAN kernel ----

# make fuzz [FUZZ_CALLS=n] [FUZZ_SEED=s] [FUZZ_TIME=seconds] [FUZZ_JOBS=n]
FUZZ_CALLS ?= 1000000
FUZZ_SEED ?= 1
FUZZ_TIME ?= 3000
FUZZ_JOBS ?= 2
FUZZ_DIR := $(BUILD)/fuzz
fuzz: test-modules tools selftests
	@mkdir -p $(FUZZ_DIR) $(VM_OUT)
	@cp $(BUILD)/selftests/kslot_fuzz $(FUZZ_DIR)/
	@{ echo "FUZZ_SEED=$(FUZZ_SEED) FUZZ_CALLS=$(FUZZ_CALLS)"; \
	   echo "FUZZ_TIME=$(FUZZ_TIME) FUZZ_JOBS=$(FUZZ_JOBS)"; \
	   cat $(TOP)/scripts/fuzz-guest.sh; } > $(FUZZ_DIR)/run.sh
	@kdir=$(TEST_KDIR); \
	KSLOT_VM_TIMEOUT=$$(( $(FUZZ_TIME) + 600 )) \
	$(TOP)/scripts/vm.sh script $$kdir $(VM_OUT) $(FUZZ_DIR)/run.sh $(FUZZ_DIR) && \
	$(TOP)/scripts/verdict.py script $(VM_OUT) $$kdir/source

# KCSAN excludes KASAN: a kernel of its own (the test fragment plus
# configs/kslot-kcsan.config, cached apart), the modules rebuilt against it,
# and every KUnit suite and selftest run on it.  "BUG: KCSAN:" reports fail
# the verdict.  KCSAN_STRICT=1 adds configs/kslot-kcsan-strict.config (the
# kernel memory model's rules: every racing plain access is reported), a
# third kernel.  The modules in the tree are KCSAN builds afterwards;
# "make check" rebuilds.
KCSAN_FRAGMENT := $(TOP)/configs/kslot-test.config $(TOP)/configs/kslot-kcsan.config \
	$(if $(filter 1 y yes,$(KCSAN_STRICT)),$(TOP)/configs/kslot-kcsan-strict.config)
KCSAN_OUT := $(BUILD)/vm-kcsan
check-kcsan: tools
	@KSLOT_FRAGMENT="$(KCSAN_FRAGMENT)" $(MAKE) -s test-modules bench-module selftests examples
	@mkdir -p $(KCSAN_OUT)
	@kdir=$$($(TOP)/scripts/kernel.sh $(KCSAN_FRAGMENT)); \
	$(TOP)/scripts/vm.sh check $$kdir $(KCSAN_OUT) && \
	$(TOP)/scripts/verdict.py kcsan $(KCSAN_OUT) $$kdir/source

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(TOP) clean; \
		$(MAKE) -C $(KDIR) M=$(TOP)/docs/example clean; fi
	rm -rf $(BUILD)

# ---- Install, DKMS, documentation, examples, in-tree mode -----------------
#
# make install puts the modules (kslot.ko, kslot_dev.ko, kslot_demo.ko)
# into DESTDIR/lib/modules/<kernel>/updates, and kslotctl, libkslot
# (static, shared, header, kslot.pc), the uapi header, kslotctl(8) and the
# udev rule under PREFIX.  make docs expands the kernel-doc directives of
# docs/*.rst into build/docs/ and, when sphinx-build is installed, renders
# HTML into build/docs/html/ (a warning fails it).  make kunit-intree runs
# the KUnit suites in lib/kslot/ of a copy of the kernel tree.

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' $(TOP)/dkms.conf)
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
UDEVDIR ?= /usr/lib/udev
INSTALL_MOD_DIR ?= updates
DKMS_SRC = $(DESTDIR)/usr/src/kslot-$(VERSION)

.PHONY: install dkms-src docs examples kunit-intree eco-checks

install: modules
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) $(if $(DESTDIR),DEPMOD=true) \
		modules_install
	$(MAKE) -C $(TOP)/userspace-tools O=$(BUILD)/userspace-install \
		DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) install
	install -D -m 0644 $(TOP)/man/kslotctl.8 $(DESTDIR)$(MANDIR)/man8/kslotctl.8
	install -D -m 0644 $(TOP)/udev/60-kslot.rules \
		$(DESTDIR)$(UDEVDIR)/rules.d/60-kslot.rules
ifeq ($(DESTDIR),)
	depmod -a $$(modinfo -F vermagic $(TOP)/kslot.ko | cut -d' ' -f1)
endif

dkms-src:
	@rm -rf $(DKMS_SRC)
	@mkdir -p $(DKMS_SRC)/module $(DKMS_SRC)/kunit \
		$(DKMS_SRC)/include/linux $(DKMS_SRC)/include/uapi/linux
	@cp $(TOP)/dkms.conf $(TOP)/Kbuild $(DKMS_SRC)/
	@cp $(TOP)/module/*.[ch] $(DKMS_SRC)/module/
	@cp $(TOP)/kunit/*.[ch] $(DKMS_SRC)/kunit/
	@cp $(TOP)/include/linux/*.h $(DKMS_SRC)/include/linux/
	@cp $(TOP)/include/uapi/linux/*.h $(DKMS_SRC)/include/uapi/linux/
	@echo "dkms-src: $(DKMS_SRC)"

docs: kernel
	@$(TOP)/scripts/api-doc.py $(TEST_KDIR)/source render $(BUILD)/docs

# The examples, compiled as their users would: the drivers (the README's
# docs/example/mydrv.c and the worked example docs/example/kslot_example.c)
# as out-of-tree modules against the test kernel and kslot's
# Module.symvers, the program (docs/example/stale.c) against libkslot.
# make check's API document check (scripts/api-doc.py) holds the README's
# blocks equal to these files; its debug VM loads and unloads the drivers
# (scripts/vm.sh stages them).
examples: test-modules tools
	@kdir=$(TEST_KDIR); \
	$(MAKE) -s -C $$kdir M=$(TOP)/docs/example \
		KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers W=1 modules
	@mkdir -p $(BUILD)/examples
	@$(CC) -O2 -Wall -Wextra -Werror -I$(TOP)/include/uapi \
		-I$(TOP)/userspace-tools $(TOP)/docs/example/stale.c \
		$(BUILD)/userspace/libkslot.a -o $(BUILD)/examples/stale

kunit-intree:
	@$(TOP)/scripts/intree.sh kunit

# Host TAP for make check: DKMS builds, make install into a scratch
# DESTDIR, modinfo, and the documentation (scripts/api-doc.py: the
# directives of every page of docs/ resolve, every export is documented,
# kernel-doc -Wall is clean, the cross-references resolve, the README's
# examples are docs/example/, make help lists every target).
eco-checks: $(if $(CHECK_BUILT),,test-modules)
	@mkdir -p $(VM_OUT)
	@rm -f $(VM_OUT)/host-dkms.tap $(VM_OUT)/host-install.tap \
		$(VM_OUT)/host-modinfo.tap $(VM_OUT)/host-apidoc.tap
	@# One kernel proves the DKMS build; the compile matrix covers the rest.
	@$(TOP)/scripts/dkms-check.sh $(firstword $(STOCK_KERNELS)) > $(VM_OUT)/host-dkms.tap
	@$(TOP)/scripts/install-check.sh 6.12 > $(VM_OUT)/host-install.tap
	@$(TOP)/scripts/modinfo-check.sh $(TOP) > $(VM_OUT)/host-modinfo.tap
	@$(TOP)/scripts/api-doc.py $(TEST_KDIR)/source tap $(BUILD)/docs-check \
		> $(VM_OUT)/host-apidoc.tap


# ---- Benchmarks (make bench) ----
# bench/kslot_bench.ko on Debian's stock 6.12 kernel in the VM, the ioctl
# benchmark in the guest, and the native userspace build against the
# kernel tree's XArray; see scripts/bench.sh.  Results: a table on stdout,
# build/bench/results.json and build/bench/results.png.  Not part of
# "make check", which loads the module once at a tiny size instead
# (bench/kslot_bench.sh, run in the VMs like a selftest).
# "make bench-native" runs only the native half (no VM; about 20
# minutes on 2 busy cores): build/bench/results.json then holds the
# native rows alone.
BENCH_OUT := $(BUILD)/bench

.PHONY: bench bench-native bench-deps bench-tools bench-selftest bench-module
.PHONY: rdma-bench

bench-deps: deps
	@$(TOP)/scripts/deps.sh bench

bench: bench-deps kernel bench-tools iommufd
	@$(TOP)/scripts/bench.sh $(BENCH_OUT)

bench-native: bench-deps kernel
	@$(TOP)/scripts/bench.sh --native $(BENCH_OUT)

# The RDMA verbs client's benchmark (clients/rdma/rdma_bench.c): a
# POST_SEND doorbell loop and a PD create/destroy loop at 1, 1,000 and
# 100,000 live objects, stock ib_uverbs against ib_uverbs_kslot in one
# boot of Debian's stock 6.12 kernel (scripts/rdma-bench.sh; a few
# minutes).  The table: build/rdma/bench/table.
rdma-bench: deps
	@$(TOP)/scripts/rdma-bench.sh $(BUILD)/rdma/bench

# kslot_bench.ko against the test kernel, for the check VM.
bench-module: test-modules
	@kdir=$(TEST_KDIR); \
	$(MAKE) -C $$kdir M=$(TOP)/bench \
		KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers W=1 modules

bench-tools: deps
	@mkdir -p $(UBUILD)/bin
	@$(CC) -O2 -Wall -static -I$(TOP)/include/uapi \
		-I$(TOP)/userspace-tools $(TOP)/bench/kslot_ioctl_bench.c \
		$(TOP)/userspace-tools/libkslot.c -o $(UBUILD)/bin/kslot_ioctl_bench

bench-selftest:
	@mkdir -p $(UBUILD)/selftests
	@cp $(TOP)/bench/kslot_bench.sh $(UBUILD)/selftests/

tools: bench-tools
selftests: bench-selftest
check-quick: examples
