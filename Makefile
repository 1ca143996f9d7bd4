# SPDX-License-Identifier: GPL-2.0-only
#
# edgeq build: BPF objects -> libbpf skeletons -> the `edgeq` command and the
# tests.  `make deps` installs the Debian packages that are missing; every
# target that needs them depends on it (a no-op once they are present).

CLANG	?= clang
BPFTOOL	?= bpftool
CC	?= gcc
OUT	:= build
ARCH	:= $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
# Evaluated when used, i.e. after `make deps` has installed the compiler.
MULTIARCH = $(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

# Debian 12 packages: build, run, test.  Keep in step with README.md.
DEPS_BUILD := clang llvm libbpf-dev bpftool libxdp-dev xdp-tools libcmocka-dev \
	      libelf-dev zlib1g-dev pkg-config gcc make libjansson-dev libclang-rt-dev libssl-dev
DEPS_RUN   := iproute2 ethtool
DEPS_TEST  := iputils-ping socat tshark tcpdump iperf3 procps util-linux jq gnuplot-nox prometheus \
	      systemd tmux
DEPS_VM    := qemu-system-x86 linux-image-amd64 busybox-static cpio kmod
DEPS	   := $(DEPS_BUILD) $(DEPS_RUN) $(DEPS_TEST) $(DEPS_VM)

# -mcpu=v3: v4 objects do not load on a 6.1 kernel (Debian 12).
BPF_CFLAGS = -O2 -g -Wall -Werror -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -MMD -MP \
	      -Iinclude -I/usr/include/$(MULTIARCH)
CFLAGS	?= -O2 -g
# -fno-strict-aliasing: the checksum helpers of include/edgeq/csum.h read
# headers as 16-bit words, as the kernel (built the same way) does.
# -MMD -MP: each object's header dependencies, read back below.
CFLAGS	+= -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 -fno-strict-aliasing \
	   -Iinclude -D_GNU_SOURCE -MMD -MP
# What each library may include, which shows (and keeps) the layering:
# the core sees only itself, a scheme the core and itself, the agent the
# core, EQDS (until the scheme interface stands between them: issue 13)
# and the common code; the edgeq command the common code and the
# skeletons.  Tests, benchmarks and the fabric see everything.
INCS	 = -Iuser/common -Iuser/core -Iuser/eqds -Iuser/smartt -Iuser/sird -Iuser/agent \
	   -Itests/fabric -I$(OUT)/skel
$(OUT)/user/core/%.o:   INCS = -Iuser/core
$(OUT)/user/eqds/%.o:   INCS = -Iuser/core -Iuser/eqds
$(OUT)/user/smartt/%.o: INCS = -Iuser/core -Iuser/smartt
$(OUT)/user/sird/%.o:   INCS = -Iuser/core -Iuser/sird
$(OUT)/user/common/%.o: INCS = -Iuser/common
$(OUT)/user/agent/%.o:  INCS = -Iuser/common -Iuser/core -Iuser/eqds -Iuser/smartt -Iuser/sird -Iuser/agent
$(OUT)/loaders/%.o:     INCS = -Iuser/common -Iloaders -I$(OUT)/skel
PKG_LIBS = $(shell pkg-config --libs libxdp libbpf 2>/dev/null || echo -lxdp -lbpf -lelf -lz)

BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(OUT)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS	   := $(patsubst bpf/%.bpf.c,$(OUT)/skel/%.skel.h,$(BPF_SRCS))
LIB_SRCS   := $(wildcard user/common/*.c)
LIB_OBJS   := $(patsubst %.c,$(OUT)/%.o,$(LIB_SRCS))
LIB	   := $(OUT)/libedgeq.a
# The agent's control loops and their primitives: pure C (no I/O), so the
# unit tests (and, later, a simulator) link the very code the agent runs.
CORE_SRCS  := $(wildcard user/core/*.c user/eqds/*.c user/smartt/*.c user/sird/*.c)
CORE_LIB   := $(OUT)/libeqcore.a
AGENT_SRCS := $(wildcard user/agent/*.c)
AGENT_LIB  := $(OUT)/libagent.a
EDGEQ_SRCS := $(wildcard loaders/*.c)
EDGEQ_OBJS := $(patsubst %.c,$(OUT)/%.o,$(EDGEQ_SRCS))
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(OUT)/tests/unit/%,$(UNIT_SRCS))
BPFT_SRCS  := $(wildcard tests/bpf/test_*.c)
BPFT_BINS  := $(patsubst tests/bpf/%.c,$(OUT)/tests/bpf/%,$(BPFT_SRCS))
# The test fabric (tests/fabric/): the software switch and the workload tool.
# Everything but main() goes into a library so that unit tests link it.
FAB_BPF	   := $(OUT)/fabric/xsk_redirect.bpf.o
FAB_SKEL   := $(OUT)/skel/xsk_redirect.skel.h
FSW_SRCS   := $(filter-out %/main.c %.bpf.c,$(wildcard tests/fabric/switch/*.c))
FSW_LIB	   := $(OUT)/libfabric.a
LOAD_SRCS  := $(filter-out %/main.c,$(wildcard tests/fabric/load/*.c))
LOAD_LIB   := $(OUT)/libeqload.a
FABRIC_BINS := $(OUT)/fabric/eqswitch $(OUT)/fabric/eqload
# Tools of the netns tests (tests/netns/*.c).
NETNS_BINS := $(patsubst tests/netns/%.c,$(OUT)/tests/netns/%,$(wildcard tests/netns/*.c))
# libFuzzer harnesses (tests/fuzz/): each links its own build of the code
# it fuzzes, instrumented by clang for coverage, AddressSanitizer and UBSan.
FUZZ_SRCS  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS  := $(patsubst tests/fuzz/%.c,$(OUT)/tests/fuzz/%,$(FUZZ_SRCS))
FUZZ_CFLAGS = -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	      -fno-strict-aliasing -std=gnu11 -D_GNU_SOURCE -Iinclude -Iuser/core -Iuser/eqds \
	      -Iuser/common -Iuser/agent
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(OUT)/bench/%,$(BENCH_SRCS))

.SECONDARY:
.DELETE_ON_ERROR:
.PHONY: all deps test test-unit test-fuzz test-bpf test-netns test-fabric vmtest bench demo \
	demo-tunnel experiments clean install uninstall

all: $(OUT)/edgeq $(OUT)/edgeqd $(UNIT_BINS) $(BPFT_BINS) $(BENCH_BINS) $(FABRIC_BINS) $(FUZZ_BINS) \
     $(NETNS_BINS) $(LOSS_BPF)

deps: $(OUT)/.deps
$(OUT)/.deps: Makefile
	@mkdir -p $(OUT)
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
		| grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing $$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "deps: run as root to install packages" >&2; exit 1; fi; \
		export DEBIAN_FRONTEND=noninteractive; \
		echo 'wireshark-common wireshark-common/install-setuid boolean false' | debconf-set-selections; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
			|| { echo "deps: apt-get install failed" >&2; exit 1; }; \
	fi
	@touch $@

$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c bpf/*.h include/edgeq/*.h | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/skel/%.skel.h: $(OUT)/bpf/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*) > $@.tmp && mv $@.tmp $@

# Headers come from the generated dependencies (-MMD); the skeletons must
# exist before the first compile, which is what finds them.
$(OUT)/%.o: %.c | $(SKELS) $(FAB_SKEL) $(OUT)/.deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(INCS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(AR) rcs $@ $^

$(OUT)/edgeq: $(EDGEQ_OBJS) $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -ljansson

$(CORE_LIB): $(patsubst %.c,$(OUT)/%.o,$(CORE_SRCS))
	$(AR) rcs $@ $^

$(AGENT_LIB): $(patsubst %.c,$(OUT)/%.o,$(filter-out %/main.c,$(AGENT_SRCS)))
	$(AR) rcs $@ $^

$(OUT)/edgeqd: $(OUT)/user/agent/main.o $(AGENT_LIB) $(CORE_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(OUT)/tests/unit/%: $(OUT)/tests/unit/%.o $(AGENT_LIB) $(CORE_LIB) $(LIB) $(FSW_LIB) $(LOAD_LIB)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(PKG_LIBS) -lm $(UNIT_LIBS)

# OpenSSL's SipHash is the oracle the MAC the BPF programs share is checked against.
$(OUT)/tests/unit/test_siphash: UNIT_LIBS = -lcrypto

$(FAB_BPF): tests/fabric/switch/xsk_redirect.bpf.c | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# Random loss for tests on kernels without netem (tests/scenarios/soak.sh).
LOSS_BPF := $(OUT)/tests/lib/loss.bpf.o
$(LOSS_BPF): tests/lib/loss.bpf.c | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(FAB_SKEL): $(FAB_BPF)
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name xsk_redirect > $@.tmp && mv $@.tmp $@

$(FSW_LIB): $(patsubst %.c,$(OUT)/%.o,$(FSW_SRCS))
	$(AR) rcs $@ $^

$(LOAD_LIB): $(patsubst %.c,$(OUT)/%.o,$(LOAD_SRCS))
	$(AR) rcs $@ $^

$(OUT)/fabric/eqswitch: $(OUT)/tests/fabric/switch/main.o $(FSW_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(OUT)/fabric/eqload: $(OUT)/tests/fabric/load/main.o $(LOAD_LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lm

# They build on eqload's library (addresses, arguments, random numbers).
$(OUT)/tests/netns/%: tests/netns/%.c $(LOAD_LIB) | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(INCS) -Itests/fabric/load -o $@ $< $(LOAD_LIB) -lm

$(OUT)/tests/bpf/%: $(OUT)/tests/bpf/%.o $(OUT)/tests/bpf/pkt.o $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(PKG_LIBS)

# The agent's scheme maps against the kernel, and the tools' BTF reading.
$(OUT)/tests/bpf/test_scheme_map.o: INCS += -Iloaders
$(OUT)/tests/bpf/test_scheme_map: $(OUT)/tests/bpf/test_scheme_map.o $(OUT)/loaders/btf_fields.o \
				  $(AGENT_LIB) $(CORE_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(PKG_LIBS)

# The fuzzer binds an AF_XDP socket through the agent's code.
$(OUT)/tests/bpf/test_fuzz.o: INCS += -Iuser/agent -Iuser/core
$(OUT)/tests/bpf/test_fuzz: $(OUT)/tests/bpf/test_fuzz.o $(OUT)/tests/bpf/pkt.o $(AGENT_LIB) \
			    $(CORE_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(PKG_LIBS)

# TC's and XDP's tags against the agent's frame code.
$(OUT)/tests/bpf/test_auth.o: INCS += -Iuser/agent -Iuser/core
$(OUT)/tests/bpf/test_auth: $(OUT)/tests/bpf/test_auth.o $(OUT)/tests/bpf/pkt.o $(AGENT_LIB) \
			    $(CORE_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(PKG_LIBS)

$(OUT)/tests/bpf/pkt.o: tests/bpf/pkt.c | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(INCS) -c $< -o $@

$(OUT)/bench/%.o: bench/%.c | $(SKELS) $(OUT)/.deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(INCS) -Itests/bpf -c $< -o $@

$(OUT)/bench/%: $(OUT)/bench/%.o $(OUT)/tests/bpf/pkt.o $(AGENT_LIB) $(CORE_LIB) $(LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS)

# The frame layer and EQDS, each with its harness, in one clang run (no
# objects of their own: they are small, and a harness needs them built
# its way).
$(OUT)/tests/fuzz/fuzz_frame: tests/fuzz/fuzz_frame.c user/agent/frame.c $(wildcard user/agent/*.h \
			      user/core/*.h include/edgeq/*.h) | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_frame.c user/agent/frame.c
$(OUT)/tests/fuzz/fuzz_eqds: tests/fuzz/fuzz_eqds.c $(wildcard user/core/*.c user/eqds/*.c \
			     user/core/*.h user/eqds/*.h include/edgeq/*.h) | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_eqds.c $(wildcard user/core/*.c user/eqds/*.c)
$(OUT)/tests/fuzz/fuzz_smartt: tests/fuzz/fuzz_smartt.c $(wildcard user/core/*.[ch] user/smartt/*.[ch] \
			       include/edgeq/*.h) | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -Iuser/smartt -o $@ tests/fuzz/fuzz_smartt.c \
		$(wildcard user/core/*.c user/smartt/*.c)
$(OUT)/tests/fuzz/fuzz_sird: tests/fuzz/fuzz_sird.c $(wildcard user/core/*.[ch] user/sird/*.[ch] \
			     include/edgeq/*.h) | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -Iuser/sird -o $@ tests/fuzz/fuzz_sird.c \
		$(wildcard user/core/*.c user/sird/*.c)

# The next control loops' rules (user/smartt, user/sird).
$(OUT)/tests/fuzz/fuzz_rules: tests/fuzz/fuzz_rules.c $(wildcard user/smartt/*.[ch] user/sird/*.[ch] \
			      user/core/*.[ch]) | $(OUT)/.deps
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -Iuser/smartt -Iuser/sird -o $@ tests/fuzz/fuzz_rules.c \
		$(wildcard user/core/*.c user/smartt/*.c user/sird/*.c)

# Each layer prints TAP; tests/run.sh adds them up into one summary line.
test: all
	@tests/run.sh all

test-unit: $(UNIT_BINS)
	@tests/run.sh unit

test-fuzz: $(FUZZ_BINS)
	@tests/run.sh fuzz

test-bpf: $(BPFT_BINS)
	@tests/run.sh bpf

test-netns: $(OUT)/edgeq $(OUT)/edgeqd
	@tests/run.sh netns

# The fabric's own accuracy: rate, queueing delay, marks, trims, order.
test-fabric: $(FABRIC_BINS)
	@tests/run.sh fabric

# Every scenario of tests/scenarios/, results into docs/results/.
experiments: all
	@tests/scenarios/run.sh $(SCENARIOS)

# The BPF, netns and VM-only suites in a VM on Debian's stock kernel.
vmtest: all
	@tests/run.sh vm

bench: all
	@bench/run.sh

# README's first command: an incast on the test fabric, plain TCP against
# edgeq, table and plots.
demo: all
	@tests/demo.sh

demo-tunnel: $(OUT)/edgeq
	@tests/demo_tunnel.sh

# Installed layout (PREFIX, DESTDIR as usual).  The unit reads
# $(SYSCONFDIR)/edgeq/IFACE.conf, /etc/edgeq whatever the prefix: a
# service's config is the system's.  The BPF objects are inside the
# binaries (skeletons): nothing to load from files.
PREFIX	   ?= /usr/local
SBINDIR	   ?= $(PREFIX)/sbin
DATADIR	   ?= $(PREFIX)/share
DOCDIR	   ?= $(DATADIR)/doc/edgeq
SYSCONFDIR ?= /etc
UNITDIR	   ?= $(PREFIX)/lib/systemd/system
INSTALLED  := $(SBINDIR)/edgeq $(SBINDIR)/edgeqd $(UNITDIR)/edgeq@.service \
	      $(DATADIR)/bash-completion/completions/edgeq $(DATADIR)/edgeq/wireshark/edgeq.lua

install: $(OUT)/edgeq $(OUT)/edgeqd
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)/docs \
		$(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/edgeq/wireshark \
		$(DESTDIR)$(SYSCONFDIR)/edgeq
	install -m 0755 $(OUT)/edgeq $(OUT)/edgeqd $(DESTDIR)$(SBINDIR)/
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	    -e 's|@DOCDIR@|$(DOCDIR)|g' tools/systemd/edgeq@.service.in \
	    > $(DESTDIR)$(UNITDIR)/edgeq@.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/edgeq@.service
	install -m 0644 tools/completion/edgeq.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/edgeq
	install -m 0644 tools/wireshark/edgeq.lua $(DESTDIR)$(DATADIR)/edgeq/wireshark/
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR)/edgeq
	-rmdir $(DESTDIR)$(SYSCONFDIR)/edgeq 2>/dev/null

clean:
	rm -rf $(OUT)

# The header dependencies -MMD wrote (none before the first build).
-include $(shell find $(OUT) -name '*.d' 2>/dev/null)
