// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent process of an attachment: started by `edgeq attach` (scheme
 * eqds) and `edgeq agent start`, stopped by `edgeq detach` and `edgeq agent
 * stop`, and told to flush tunnels by `edgeq flush`.  Its pid, heartbeat
 * and commands live in the pinned eq_agent map; its log in
 * /run/edgeq/<pin dir name>.log.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "addr.h"
#include "cmd.h"

#define READY_WAIT_MS	5000
#define STOP_WAIT_MS	3000

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int open_agent_map(const char *dir)
{
	char path[512];

	if (eq_path(path, sizeof(path), dir, EQ_MAP_AGENT))
		return -1;
	return bpf_obj_get(path);
}

static int read_agent(int fd, struct eq_agent *ag)
{
	__u32 zero = 0;

	memset(ag, 0, sizeof(*ag));
	return bpf_map_lookup_elem(fd, &zero, ag) ? -errno : 0;
}

/* Our stderr is the journal's stream (systemd's JOURNAL_STREAM names its
 * device and inode): a service.  The agent then logs there too. */
bool eq_agent_logs_to_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && !fstat(STDERR_FILENO, &st) &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void eq_agent_log_path(const char *dir, char *buf, size_t len)
{
	const char *base = strrchr(dir, '/');

	snprintf(buf, len, "%s/%s.log", EQ_RUN_DIR, base ? base + 1 : dir);
}

void eq_agent_log_where(const char *dir, char *buf, size_t len)
{
	if (eq_agent_logs_to_journal())
		snprintf(buf, len, "the journal");
	else
		eq_agent_log_path(dir, buf, len);
}

/* Is pid an edgeqd that has not exited (a zombie has)?  Its process name
 * is its file's, and we start it as argv[0] "edgeqd" whatever the file is
 * called ($EDGEQD may name another: bench/xsk_fwd): either will do.  The
 * name alone missed those, and detach left them running. */
static bool is_edgeqd(pid_t pid)
{
	char path[64], buf[512], *base;
	bool named = false, alive = false;
	FILE *f;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';			/* argv[0] ends at its own NUL */
		base = strrchr(buf, '/');
		named = !strcmp(base ? base + 1 : buf, "edgeqd");
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f && fgets(buf, sizeof(buf), f)) {
		char *close_paren = strrchr(buf, ')');

		named = named || strstr(buf, "(edgeqd)");
		alive = close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z' &&
			close_paren[2] != 'X';
	}
	if (f)
		fclose(f);
	return named && alive;
}

bool eq_agent_state(const char *dir, const struct eq_config *cfg, struct eq_agent *ag,
		    __u64 *age_ns)
{
	int fd = open_agent_map(dir);
	uint64_t now = mono_ns();

	memset(ag, 0, sizeof(*ag));
	if (fd < 0)
		return false;
	read_agent(fd, ag);
	close(fd);
	*age_ns = ag->heartbeat_ns && now > ag->heartbeat_ns ? now - ag->heartbeat_ns : 0;
	return (ag->flags & EQ_AGENT_READY) && ag->heartbeat_ns && *age_ns < cfg->agent_dead_ns &&
	       is_edgeqd((pid_t)ag->pid);
}

/* The edgeqd next to this edgeq, or $EDGEQD, or the one in PATH. */
static void agent_binary(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n;

	if (getenv("EDGEQD") && *getenv("EDGEQD")) {
		snprintf(buf, len, "%s", getenv("EDGEQD"));
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');

		if (slash && (size_t)(slash - self) + sizeof("/edgeqd") <= len) {
			memcpy(buf, self, (size_t)(slash - self));
			strcpy(buf + (slash - self), "/edgeqd");
			if (!access(buf, X_OK))
				return;
		}
	}
	snprintf(buf, len, "edgeqd");
}

static void log_tail(const char *log, char *err, size_t len)
{
	char buf[4096];
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	off_t end;

	if (fd < 0)
		return;
	end = lseek(fd, 0, SEEK_END);
	lseek(fd, end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	char *last = strrchr(buf, '\n');

	snprintf(err, len, "%s", last ? last + 1 : buf);
}

int eq_agent_start(const char *ifname, const char *dir, char *err, size_t len)
{
	char bin[PATH_MAX], log[600];
	int fd = open_agent_map(dir), logfd = -1;
	bool journal = eq_agent_logs_to_journal();
	uint64_t t0 = mono_ns();
	struct eq_agent ag;
	pid_t pid;
	int status;

	if (fd < 0) {
		snprintf(err, len, "no eq_agent map under %s: attached without 'scheme eqds'?", dir);
		return -ENOENT;
	}
	agent_binary(bin, sizeof(bin));
	mkdir(EQ_RUN_DIR, 0755);
	eq_agent_log_path(dir, log, sizeof(log));
	if (!journal)
		logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (!journal && logfd < 0) {
		snprintf(err, len, "cannot open the agent's log %s: %s", log, strerror(errno));
		close(fd);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		close(logfd);
		close(fd);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		/* Its own session: no terminal signals, and it outlives us. */
		setsid();
		dup2(null, 0);
		if (!journal) {	/* a service's agent logs to the journal, as we do */
			dup2(logfd, 1);
			dup2(logfd, 2);
		}
		execl(bin, "edgeqd", "--iface", ifname, "--pin-dir", dir, (char *)NULL);
		if (!strchr(bin, '/'))
			execlp(bin, "edgeqd", "--iface", ifname, "--pin-dir", dir, (char *)NULL);
		fprintf(stderr, "edgeq: cannot run %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	if (logfd >= 0)
		close(logfd);
	for (int waited = 0; waited < READY_WAIT_MS; waited += 10) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			if (journal) {
				snprintf(err, len, "the agent exited at start; see the journal "
					 "(journalctl _PID=%d)", (int)pid);
				close(fd);
				return -ECHILD;
			}
			snprintf(err, len, "the agent exited at start; its log %s says: ", log);
			log_tail(log, err + strlen(err), len - strlen(err));
			close(fd);
			return -ECHILD;
		}
		if (!read_agent(fd, &ag) && (ag.flags & EQ_AGENT_READY) && ag.pid == (__u32)pid &&
		    ag.heartbeat_ns >= t0) {
			close(fd);
			return 0;
		}
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	snprintf(err, len, "the agent did not get ready within %d ms (log: %s)", READY_WAIT_MS, log);
	close(fd);
	return -ETIMEDOUT;
}

int eq_agent_stop(const char *dir)
{
	int fd = open_agent_map(dir);
	struct eq_agent ag;
	__u32 zero = 0;
	pid_t pid;
	int waited;

	if (fd < 0)
		return 0;
	read_agent(fd, &ag);
	pid = (pid_t)ag.pid;
	if (is_edgeqd(pid)) {
		kill(pid, SIGTERM);
		for (waited = 0; waited < STOP_WAIT_MS && is_edgeqd(pid); waited += 10) {
			waitpid(pid, NULL, WNOHANG);	/* ours if we started it just now */
			sleep_ms(10);
		}
		if (is_edgeqd(pid)) {
			eq_info("agent %d ignored SIGTERM for %d ms: killing it", (int)pid, STOP_WAIT_MS);
			kill(pid, SIGKILL);
			for (waited = 0; waited < STOP_WAIT_MS && is_edgeqd(pid); waited += 10)
				sleep_ms(10);
		}
	}
	/* A clean exit zeroes the heartbeat itself; a killed agent cannot. */
	read_agent(fd, &ag);
	ag.heartbeat_ns = 0;
	ag.pid = 0;
	ag.flags = 0;
	bpf_map_update_elem(fd, &zero, &ag, 0);
	close(fd);
	return is_edgeqd(pid) ? -EBUSY : 0;
}

/* Ask the agent to flush one peer slot (or all: EQ_NO_PEER) and wait
 * until it says it did.  The agent rewrites eq_agent every 10 ms from a
 * copy it read just before, which can undo our write: re-issue then. */
int eq_agent_flush(const char *dir, __u32 slot, char *err, size_t len)
{
	int fd = open_agent_map(dir);
	struct eq_agent ag;
	__u32 zero = 0, want;

	if (fd < 0 || read_agent(fd, &ag)) {
		snprintf(err, len, "no agent state under %s", dir);
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	want = ag.flush_seq + 1;
	for (int waited = 0; waited < 2000; waited += 5) {
		if (waited % 100 == 0 && ag.flush_seq != want) {
			ag.flush_seq = want;
			ag.flush_peer = slot;
			bpf_map_update_elem(fd, &zero, &ag, 0);
		}
		sleep_ms(5);
		read_agent(fd, &ag);
		if (ag.flush_done == want) {
			close(fd);
			return 0;
		}
	}
	close(fd);
	snprintf(err, len, "the agent did not confirm the flush within 2 s");
	return -ETIMEDOUT;
}
