# SPDX-License-Identifier: GPL-2.0
#
# SCIF over NTB: out-of-tree build and the project's entry points.
#
#   make                 build every module against KDIR (default: the
#                        project's test kernel, built and cached on demand)
#   make KDIR=/lib/modules/$(uname -r)/build
#                        build for a real host
#   make sparse          sparse (C=2) over every source; fails on a warning
#   make checkpatch      checkpatch.pl --strict over every C source
#   make apidoc          the in-kernel API as reST (build/doc/scif-api.rst)
#   make check           everything CI runs; ends with "N passed, N failed"
#   make demo            boot guests and show SCIF working
#   make bench-ntb       physical limits of the emulated NTB (a table)
#   make bench-rma       RMA between two nodes over the emulated NTB (tables)
#   make bench-scif-ntb  SCIF send/recv over the emulated NTB, next to the NTB
#                        itself and TCP over virtio-net (tables)

KDIR ?=
W ?= 1

# Resolve the kernel build directory at recipe time, so that targets which do
# not need a kernel never trigger a kernel build.
kdir = kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/rig/build-kernel) || exit 1

.PHONY: all modules clean sparse checkpatch check demo kernel bench-ntb bench-rma bench-scif-ntb apidoc

all: modules

modules:
	@$(kdir); $(MAKE) -C "$$kdir" M=$(CURDIR) W=$(W) modules

kernel:
	@scripts/rig/build-kernel

sparse:
	@mkdir -p build; $(kdir); $(MAKE) -C "$$kdir" M=$(CURDIR) W=$(W) C=2 CHECK=sparse \
		modules 2>&1 | tee build/sparse.log; \
	! grep -E '(warning|error):' build/sparse.log

checkpatch:
	@scripts/checks/checkpatch

# The in-kernel API as reST, extracted from the kernel-doc comments.
apidoc:
	@mkdir -p build/doc
	@ksrc=$$(bash -c '. scripts/rig/common.sh; scif_ksrc'); \
	{ $$ksrc/scripts/kernel-doc -rst include/linux/scif.h && \
	  $$ksrc/scripts/kernel-doc -rst -export drivers/scif/*.c drivers/scif/*/*.c; } \
		>build/doc/scif-api.rst 2>/dev/null && \
	echo "build/doc/scif-api.rst"

check:
	@scripts/checks/check

demo:
	@scripts/demo

bench-ntb:
	@scripts/bench/bench-ntb

bench-rma:
	@scripts/bench/bench-rma

bench-scif-ntb: modules
	@$(MAKE) -C tools
	@scripts/bench/bench-scif-ntb

clean:
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/rig/build-kernel 2>/dev/null) && \
		$(MAKE) -C "$$kdir" M=$(CURDIR) clean >/dev/null 2>&1 || true
	rm -rf build
