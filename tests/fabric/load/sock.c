// SPDX-License-Identifier: GPL-2.0-only
/*
 * Socket plumbing (see sock.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/tcp.h>		/* struct tcp_info with tcpi_bytes_acked; glibc's lacks it */
#include <netinet/in.h>
#include <sys/resource.h>
#include "load/clock.h"
#include "load/log.h"
#include "load/sock.h"
#include "load/stop.h"

const uint8_t eql_zeros[EQL_ZEROS_LEN];
uint8_t eql_sink[EQL_ZEROS_LEN];

int eql_resolve(const char *addr, uint16_t port, struct eql_endpoint *ep)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_family = AF_UNSPEC };
	struct addrinfo *res;
	int rc;

	memset(ep, 0, sizeof(*ep));
	rc = getaddrinfo(addr, NULL, &hints, &res);
	if (rc) {
		eql_warn("'%s' is not an IPv4 or IPv6 address (eqload takes no host names)", addr);
		return -1;
	}
	memcpy(&ep->ss, res->ai_addr, res->ai_addrlen);
	ep->len = res->ai_addrlen;
	ep->family = res->ai_family;
	freeaddrinfo(res);
	if (ep->family == AF_INET)
		((struct sockaddr_in *)&ep->ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&ep->ss)->sin6_port = htons(port);
	eql_sockaddr_text((struct sockaddr *)&ep->ss, ep->text, sizeof(ep->text));
	return 0;
}

void eql_sockaddr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], a, sizeof(a));
			snprintf(buf, len, "%s:%u", a, ntohs(s6->sin6_port));
		} else {
			inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
			snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
		}
	} else {
		snprintf(buf, len, "(family %d)", sa->sa_family);
	}
}

int eql_listen(int type, const char *bind_addr, uint16_t port, char *desc, size_t desclen)
{
	const char *what = type == SOCK_STREAM ? "TCP" : "UDP";
	struct eql_endpoint ep;
	int fd, one = 1, zero = 0;

	if (bind_addr) {
		if (eql_resolve(bind_addr, port, &ep))
			return -1;
		fd = socket(ep.family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		snprintf(desc, desclen, "%s %s", what, ep.text);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ep.ss;

		memset(&ep, 0, sizeof(ep));
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = in6addr_any;
		ep.len = sizeof(*s6);
		ep.family = AF_INET6;
		fd = socket(AF_INET6, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd >= 0 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) == 0) {
			snprintf(desc, desclen, "%s port %u, IPv4 and IPv6", what, port);
		} else {
			/* IPv6 disabled (ipv6.disable=1 or no module): IPv4 only. */
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ep.ss;

			if (fd >= 0)
				close(fd);
			memset(&ep, 0, sizeof(ep));
			s4->sin_family = AF_INET;
			s4->sin_port = htons(port);
			s4->sin_addr.s_addr = htonl(INADDR_ANY);
			ep.len = sizeof(*s4);
			ep.family = AF_INET;
			fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			snprintf(desc, desclen, "%s port %u, IPv4 only (no IPv6 here)", what, port);
		}
	}
	if (fd < 0) {
		eql_warn_errno("%s socket", what);
		return -1;
	}
	/* A server restarted between experiments must not wait for the
	 * TIME_WAIT connections of the previous one. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ep.ss, ep.len)) {
		eql_warn_errno("bind %s%s", desc,
			       errno == EADDRINUSE ? " (another server on this port? try --port)" : "");
		close(fd);
		return -1;
	}
	if (type == SOCK_STREAM && listen(fd, 4096)) {
		eql_warn_errno("listen %s", desc);
		close(fd);
		return -1;
	}
	return fd;
}

/* The first line of a /proc file, without the newline; "" if unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static void cc_failed(const char *cc, int errnum)
{
	char avail[512], allowed[512];

	read_line("/proc/sys/net/ipv4/tcp_available_congestion_control", avail, sizeof(avail));
	read_line("/proc/sys/net/ipv4/tcp_allowed_congestion_control", allowed, sizeof(allowed));
	if (errnum == ENOENT)
		eql_warn("--cc %s: the kernel has no congestion control '%s' (available: %s); "
			 "if it is a module, load it: modprobe tcp_%s", cc, cc, avail, cc);
	else if (errnum == EPERM)
		eql_warn("--cc %s: not allowed for this user (allowed: %s; root may use any of: %s)",
			 cc, allowed, avail);
	else
		eql_warn("--cc %s: setsockopt TCP_CONGESTION: %s (available: %s)",
			 cc, strerror(errnum), avail);
}

int eql_cc_set(int fd, const char *cc)
{
	if (!cc)
		return 0;
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc))) {
		cc_failed(cc, errno);
		return -1;
	}
	return 0;
}

void eql_cc_name(int fd, char *name, size_t len)
{
	char buf[EQL_CC_MAX + 1] = "";
	socklen_t blen = EQL_CC_MAX;

	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, buf, &blen) || !buf[0])
		snprintf(buf, sizeof(buf), "unknown");
	buf[EQL_CC_MAX] = 0;
	snprintf(name, len, "%s", buf);
}

int eql_cc_check(int family, const char *cc, char *name, size_t len)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		eql_warn_errno("TCP socket");
		return -1;
	}
	if (eql_cc_set(fd, cc)) {
		close(fd);
		return -1;
	}
	eql_cc_name(fd, name, len);
	close(fd);
	return 0;
}

int eql_tcp_stats(int fd, struct eql_tcp_stats *st)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return -1;
	st->bytes_acked = ti.tcpi_bytes_acked;
	st->total_retrans = ti.tcpi_total_retrans;
	return 0;
}

int eql_tcp_socket(const struct eql_endpoint *ep, const char *cc, bool nodelay, bool abort_close)
{
	int fd = socket(ep->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;

	if (fd < 0) {
		eql_warn_errno("TCP socket for %s", ep->text);
		return -1;
	}
	if (eql_cc_set(fd, cc))
		goto fail;
	if (nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		eql_warn_errno("TCP_NODELAY");
		goto fail;
	}
	if (abort_close) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))) {
			eql_warn_errno("SO_LINGER");
			goto fail;
		}
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int eql_tcp_connect(int fd, const struct eql_endpoint *ep)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (connect(fd, (const struct sockaddr *)&ep->ss, ep->len) == 0)
		return 0;
	if (errno != EINPROGRESS) {
		eql_warn_errno("connect %s", ep->text);
		return -1;
	}
	if (eql_wait_fd(fd, POLLOUT, 0) < 0) {
		eql_warn("connect %s: interrupted", ep->text);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
		errno = err ? err : errno;
		eql_warn_errno("connect %s", ep->text);
		return -1;
	}
	return 0;
}

int eql_wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		uint64_t now = eql_now_ns(), wait = EQL_STOP_POLL_NS;
		struct timespec ts;

		if (eql_stop_requested)
			return -1;
		if (deadline) {
			if (now >= deadline)
				return 0;
			if (deadline - now < wait)
				wait = deadline - now;
		}
		ts = eql_timespec(wait);
		/* Errors and hangups count as ready: the next I/O call reports them. */
		if (ppoll(&p, 1, &ts, NULL) > 0)
			return 1;
	}
}

int eql_send_all(int fd, struct iovec *iov, int iovcnt)
{
	while (iovcnt) {
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
		ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -1;
			if (eql_wait_fd(fd, POLLOUT, 0) < 0) {
				errno = EINTR;
				return -1;
			}
			continue;
		}
		while (iovcnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

int eql_recv_drop(int fd, uint64_t n)
{
	while (n) {
		size_t want = n < sizeof(eql_sink) ? (size_t)n : sizeof(eql_sink);
		/* MSG_TRUNC on TCP drops the bytes without copying them. */
		ssize_t got = recv(fd, eql_sink, want, MSG_TRUNC);

		if (got == 0)
			return -2;
		if (got < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -1;
			if (eql_wait_fd(fd, POLLIN, 0) < 0) {
				errno = EINTR;
				return -1;
			}
			continue;
		}
		n -= (uint64_t)got;
	}
	return 0;
}

void eql_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}
