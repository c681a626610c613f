# SPDX-License-Identifier: GPL-2.0
#
# kslot top-level Makefile: wraps Kbuild and drives the test VM.
#
#   make                 build the modules against KDIR
#   make check           every test, in a QEMU VM with a debug kernel
#   make run             the demo, in the VM
#   make vm-run SCRIPT=path [FILES=dir]
#                        run your own script in the VM with kslot loaded
#   make kernel          build (or reuse) the cached test kernel
#   make lint            checkpatch, kernel-doc and sparse
#   make fuzz            the ioctl fuzzer for FUZZ_CALLS calls, in the VM
#   make check-kcsan     KUnit and selftests on a KCSAN kernel
#   make clean

TOP := $(CURDIR)
BUILD := $(TOP)/build
KVER := $(shell uname -r)
# The running kernel's headers when installed, else the cached test kernel.
KDIR ?= $(if $(wildcard /lib/modules/$(KVER)/build/Makefile),/lib/modules/$(KVER)/build,$(shell $(TOP)/scripts/kernel.sh))

VM_OUT := $(BUILD)/vm
# Resolve the cached test kernel (building it if needed) inside a recipe.
TEST_KDIR = $$($(TOP)/scripts/kernel.sh $(KSLOT_FRAGMENT))

.PHONY: all modules deps kernel check run vm-run test-modules selftests tools host-checks lint stock-vms check-stock fuzz check-kcsan clean

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules

deps:
	@$(TOP)/scripts/deps.sh

kernel: deps
	@$(TOP)/scripts/kernel.sh >/dev/null

# Build the modules against the test kernel and stage the KUnit modules.
test-modules: kernel
	@kdir=$(TEST_KDIR); \
	$(MAKE) -C $$kdir M=$(TOP) W=1 modules
	@mkdir -p $(BUILD)/tests
	@rm -f $(BUILD)/tests/*.ko
	@cp $(TOP)/*_test.ko $(BUILD)/tests/

# The kselftest client, against the test kernel's tree (lib.mk, harness).
selftests: kernel
	@kdir=$(TEST_KDIR); \
	mkdir -p $(BUILD)/selftests; \
	$(MAKE) -s -C $(TOP)/selftests/kslot KSRC=$$kdir/source OUTPUT=$(BUILD)/selftests
	@cp $(TOP)/selftests/kslot/*.sh $(BUILD)/selftests/

# libkslot and kslotctl; a static kslotctl goes into the VM.
tools:
	@$(MAKE) -s -C $(TOP)/userspace-tools STATIC=1 O=$(BUILD)/userspace
	@mkdir -p $(BUILD)/bin
	@cp $(BUILD)/userspace/kslotctl $(BUILD)/bin/

# Host-side checks whose TAP counts in the summary: ABI layout and lint.
host-checks: kernel
	@mkdir -p $(VM_OUT)
	@rm -f $(VM_OUT)/host-abi.tap $(VM_OUT)/host-lint.tap
	@$(TOP)/scripts/abi-check.sh $(BUILD)/abi > $(VM_OUT)/host-abi.tap || true
	@$(TOP)/scripts/lint.sh $(TEST_KDIR) --tap > $(VM_OUT)/host-lint.tap || true

check: test-modules selftests tools host-checks stock-vms
	@mkdir -p $(VM_OUT)
	@kdir=$(TEST_KDIR); \
	$(TOP)/scripts/vm.sh check $$kdir $(VM_OUT) && \
	$(TOP)/scripts/verdict.py check $(VM_OUT) $$kdir/source \
		$$(cat $(VM_OUT)/stock-dirs)

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
# configs, no KUnit); see scripts/stock-check.sh.
STOCK_KERNELS ?= 6.12 6.1
stock-vms: selftests tools
	@$(TOP)/scripts/stock-check.sh $(VM_OUT) $(STOCK_KERNELS)

check-stock: stock-vms
	@for d in $$(cat $(VM_OUT)/stock-dirs); do \
		$(TOP)/scripts/verdict.py stock $$d $(TOP) || exit 1; done

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

# KCSAN excludes KASAN: a kernel of its own (configs/kslot-kcsan.config,
# cached apart), the modules rebuilt against it, and every KUnit suite and
# selftest run on it.  "BUG: KCSAN:" reports fail the verdict.  The
# modules in the tree are KCSAN builds afterwards; "make check" rebuilds.
KCSAN_FRAGMENT := $(TOP)/configs/kslot-kcsan.config
KCSAN_OUT := $(BUILD)/vm-kcsan
check-kcsan: tools
	@KSLOT_FRAGMENT=$(KCSAN_FRAGMENT) $(MAKE) -s test-modules selftests
	@mkdir -p $(KCSAN_OUT)
	@kdir=$$($(TOP)/scripts/kernel.sh $(KCSAN_FRAGMENT)); \
	$(TOP)/scripts/vm.sh check $$kdir $(KCSAN_OUT) && \
	$(TOP)/scripts/verdict.py check $(KCSAN_OUT) $$kdir/source

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(TOP) clean; fi
	rm -rf $(BUILD)
