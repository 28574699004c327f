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
#   make check-fabric    the long topology runs, not in CI: a star and a
#                        chain of 8 guests of 2-port NTBs (ntb_topology.t),
#                        then SCIF routed across them
#                        (tests/manual/scif-route-fabric.sh)
#   make soak            4 guests under a mixed SCIF load and a fault schedule
#                        (kills, link flaps, allocation failures), every
#                        byte checked (SOAK_MINUTES=N, default 60; debug
#                        kernel; Documentation/security.rst)
#   make demo            boot guests and show SCIF working (speed kernel)
#   make bench           every benchmark in one boot of two guests, the
#                        targets of scripts/bench/targets.csv judged over
#                        five pairs, build/bench/results.csv, PNG curves,
#                        the run appended to Documentation/bench-history.csv
#                        (BENCH_ARGS="--pairs N --windows N --budget S
#                        --iters N --no-history")
#   make bench-ntb       physical limits of the emulated NTB (a table)
#   make bench-rma       RMA between two nodes over the emulated NTB (tables)
#   make fuzz            scif-fuzz (10^6 calls per node, SCIF_FUZZ_CALLS=N to
#                        change) on two guests, then trinity on /dev/scif
#                        (Documentation/fuzzing.rst)
#   make bench-scif-ntb  SCIF send/recv over the emulated NTB, next to the NTB
#                        itself and TCP over virtio-net (tables)
#                        (demo and bench* boot the speed kernel, the test
#                        kernel without its debug options; SCIF_KERNEL=debug
#                        picks the debug one; check always uses debug)
#   make install [PREFIX=/usr/local] [DESTDIR=] [KDIR=]
#                        install-modules and install-user; KDIR defaults
#                        here to the running kernel's
#                        /lib/modules/$(uname -r)/build
#   make install-modules the modules, through the kernel's modules_install
#                        (INSTALL_MOD_PATH=$(DESTDIR)), under extra/
#   make install-user    libscif, scif.h, scif.pc, the tools, the manual
#                        pages, the udev rule and the modules-load.d and
#                        modprobe.d examples
#   make install-dkms    the module sources and dkms.conf into
#                        $(DESTDIR)/usr/src/scif-ntb-$(SCIF_VERSION)/
#   make deb             the Debian packages scif-ntb-dkms, libscif0,
#                        libscif-dev and scif-tools (dpkg-buildpackage -b
#                        in a copy of the tree) into build/deb/

KDIR ?=
W ?= 1

# Resolve the kernel build directory at recipe time, so that targets which do
# not need a kernel never trigger a kernel build.
kdir = kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/rig/build-kernel) || exit 1

.PHONY: all modules clean sparse checkpatch check check-fabric soak demo kernel bench bench-ntb bench-rma bench-scif-ntb apidoc fuzz
.PHONY: install install-modules install-user install-dkms deb

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

check-fabric: modules
	@SCIF_TOPOLOGIES="star:8 chain:8" bash tests/e2e/ntb_topology.t
	@$(MAKE) -s -C tools guest
	@bash tests/manual/scif-route-fabric.sh

# The guest programs (scif-soak) and the modules first.
soak: modules
	@$(MAKE) -s -C tools guest
	@scripts/rig/soak $(if $(SOAK_MINUTES),--minutes $(SOAK_MINUTES))

demo:
	@scripts/demo

fuzz:
	@tools/fuzz/run-fuzz

# The benchmark scripts build the kernel, the modules for it and the tools.
BENCH_ARGS ?=
bench:
	@scripts/bench/bench $(BENCH_ARGS)

bench-ntb:
	@scripts/bench/bench-ntb

bench-rma:
	@scripts/bench/bench-rma

bench-scif-ntb:
	@scripts/bench/bench-scif-ntb

# ---- installation, for real hosts and for packages.
SCIF_VERSION := 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
# udev reads rules from /lib/udev (PREFIX /usr/local is not searched).
UDEVDIR ?= /lib/udev
DOCDIR ?= $(PREFIX)/share/doc/scif-ntb

# The kernel to install for: KDIR, else the running one.
install_kdir = kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=/lib/modules/$$(uname -r)/build; \
	[ -d "$$kdir" ] || { echo "install: no kernel build directory $$kdir; set KDIR=" >&2; exit 1; }

install: install-modules install-user

install-modules:
	@$(install_kdir); \
	$(MAKE) -C "$$kdir" M=$(CURDIR) modules && \
	$(MAKE) -C "$$kdir" M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=extra/scif \
		modules_install

install-user:
	$(MAKE) -C tools install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -D -m 0644 packaging/60-scif.rules $(DESTDIR)$(UDEVDIR)/rules.d/60-scif.rules
	install -D -m 0644 packaging/scif-modules-load.conf \
		$(DESTDIR)$(DOCDIR)/examples/modules-load.d/scif.conf
	install -D -m 0644 packaging/scif-modprobe.conf \
		$(DESTDIR)$(DOCDIR)/examples/modprobe.d/scif.conf

# What dkms needs to build the modules: the Kbuild files and the sources.
DKMS_SRC := $(DESTDIR)/usr/src/scif-ntb-$(SCIF_VERSION)
install-dkms:
	install -d $(DKMS_SRC)
	tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude='modules.order' --exclude='Module.symvers' \
		Kbuild dkms.conf drivers include tests/kunit | tar -xf - -C $(DKMS_SRC)
	sed -i 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(SCIF_VERSION)"/' $(DKMS_SRC)/dkms.conf

deb:
	@packaging/build-deb

clean:
	@kdir="$(KDIR)"; [ -n "$$kdir" ] || kdir=$$(scripts/rig/build-kernel 2>/dev/null) && \
		$(MAKE) -C "$$kdir" M=$(CURDIR) clean >/dev/null 2>&1 || true
	rm -rf build
