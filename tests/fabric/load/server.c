// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqload serve (see server.h).
 *
 * Each connection is a small state machine, header -> request -> response
 * -> header..., driven by level-triggered epoll: it runs until the socket
 * would block, then waits for readability (header, request) or
 * writability (response).  The request payload is dropped with MSG_TRUNC,
 * which on TCP discards without copying: the server is not the bottleneck
 * of a fabric whose links are slower than memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include "load/log.h"
#include "load/msg.h"
#include "load/server.h"
#include "load/sock.h"
#include "load/stop.h"

#define MAX_EVENTS	256
#define RUN_BUDGET	64	/* I/O calls per connection per wake: fairness */
#define WARN_MAX	10	/* protocol complaints shown, then only counted */

enum cstate { C_HDR, C_REQ, C_RESP };

struct conn {
	int fd;
	enum cstate st;
	uint32_t events;		/* current epoll interest */
	unsigned int got;		/* header bytes so far */
	uint8_t hdr[EQL_MSG_HDR_LEN];
	struct eql_msg msg;
	uint64_t left;			/* request bytes to drop, response bytes to send */
	char peer[64];
};

struct server {
	int ep, lfd, spare;
	uint64_t connections, messages, bytes_in, bytes_out, bad, aborted, refused;
	unsigned int open, warned;
};

enum verdict { KEEP, CLOSE, CLOSE_BAD, CLOSE_ABORTED };

static void complain(struct server *s, const char *fmt, const char *peer, const char *why)
{
	if (s->warned < WARN_MAX)
		eql_warn(fmt, peer, why);
	if (++s->warned == WARN_MAX)
		eql_warn("serve: further such messages are only counted");
}

static int want(struct server *s, struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (c->events == events)
		return 0;
	c->events = events;
	return epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* The peer closed or reset the connection: a clean end between messages
 * or at the end of a stream's data, an aborted message otherwise. */
static enum verdict peer_gone(struct server *s, struct conn *c)
{
	if (c->st == C_HDR && c->got == 0)
		return CLOSE;			/* between messages: a clean end */
	if (c->st == C_REQ && c->msg.req_len == EQL_MSG_REQ_STREAM) {
		s->messages++;			/* bulk --duration ends this way */
		return CLOSE;
	}
	return CLOSE_ABORTED;
}

/* The request is read: answer it. */
static void start_response(struct conn *c)
{
	c->left = c->msg.resp_len;
	c->st = C_RESP;
}

/*
 * Runs the connection until the socket would block.  State changes happen
 * as soon as their condition holds, so the connection always stops in a
 * state that waits for I/O: C_HDR or C_REQ for input, C_RESP for room to
 * write.  Waiting in any other (say, a request read to its end but not
 * yet answered) would wait for input that never comes.
 */
static enum verdict conn_run(struct server *s, struct conn *c)
{
	enum eql_msg_err e;
	ssize_t n = 0;

	for (int budget = RUN_BUDGET; budget > 0; budget--) {
		switch (c->st) {
		case C_HDR:
			n = recv(c->fd, c->hdr + c->got, EQL_MSG_HDR_LEN - c->got, 0);
			if (n <= 0)
				goto io_end;
			c->got += (unsigned int)n;
			if (c->got < EQL_MSG_HDR_LEN)
				break;
			e = eql_msg_decode(c->hdr, &c->msg);
			if (e) {
				complain(s, "serve: closing the connection from %s: %s", c->peer,
					 eql_msg_strerror(e));
				return CLOSE_BAD;
			}
			c->got = 0;
			c->left = c->msg.req_len;
			c->st = C_REQ;
			if (c->left == 0)
				start_response(c);
			break;
		case C_REQ:
			n = recv(c->fd, eql_sink,
				 c->left < sizeof(eql_sink) ? (size_t)c->left : sizeof(eql_sink),
				 MSG_TRUNC);
			if (n <= 0)
				goto io_end;
			s->bytes_in += (uint64_t)n;
			if (c->msg.req_len == EQL_MSG_REQ_STREAM)
				break;
			c->left -= (uint64_t)n;
			if (c->left == 0)
				start_response(c);
			break;
		case C_RESP:
			n = send(c->fd, eql_zeros,
				 c->left < sizeof(eql_zeros) ? (size_t)c->left : sizeof(eql_zeros),
				 MSG_NOSIGNAL);
			if (n < 0)
				goto io_end;
			s->bytes_out += (uint64_t)n;
			c->left -= (uint64_t)n;
			if (c->left == 0) {
				s->messages++;
				c->st = C_HDR;
			}
			break;
		}
	}
	/* Budget spent with work left: level-triggered epoll calls again
	 * while what the state waits for is there. */
	return want(s, c, c->st == C_RESP ? EPOLLOUT : EPOLLIN) ? CLOSE_ABORTED : KEEP;
io_end:
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return want(s, c, c->st == C_RESP ? EPOLLOUT : EPOLLIN) ? CLOSE_ABORTED : KEEP;
	/* EOF, or a reset: flows clients close with a RST on purpose. */
	if (n == 0 || errno == ECONNRESET || errno == EPIPE)
		return peer_gone(s, c);
	complain(s, "serve: connection from %s: %s", c->peer, strerror(errno));
	return CLOSE_ABORTED;
}

static void conn_close(struct server *s, struct conn *c, enum verdict v)
{
	if (v == CLOSE_BAD)
		s->bad++;
	else if (v == CLOSE_ABORTED)
		s->aborted++;
	close(c->fd);		/* also leaves the epoll set */
	free(c);
	s->open--;
}

/*
 * Out of descriptors: the pending connection would make the listener
 * readable forever.  Free the spare descriptor kept for this, accept and
 * close the connection (the client sees a reset, not a hang), take the
 * spare again.
 */
static void shed(struct server *s)
{
	int fd;

	if (s->spare >= 0)
		close(s->spare);
	fd = accept(s->lfd, NULL, NULL);
	if (fd >= 0)
		close(fd);
	s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	s->refused++;
	if (s->refused == 1)
		eql_warn("serve: out of file descriptors; refusing connections (see ulimit -n)");
}

static void accept_all(struct server *s)
{
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int one = 1, fd = accept4(s->lfd, (struct sockaddr *)&ss, &len,
					  SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev;
		struct conn *c;

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS)
				shed(s);
			else if (errno == ECONNABORTED || errno == EPROTO)
				continue;	/* gone before we got to it */
			return;			/* EAGAIN: all taken */
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			s->refused++;
			continue;
		}
		/* Responses are small and awaited: never hold them back (Nagle). */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->fd = fd;
		c->st = C_HDR;
		c->events = EPOLLIN;
		eql_sockaddr_text((struct sockaddr *)&ss, c->peer, sizeof(c->peer));
		ev = (struct epoll_event){ .events = EPOLLIN, .data.ptr = c };
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			eql_warn_errno("serve: epoll_ctl");
			close(fd);
			free(c);
			continue;
		}
		s->connections++;
		s->open++;
	}
}

int eql_serve(const struct eql_serve_cfg *cfg)
{
	struct server s = { .ep = -1, .lfd = -1, .spare = -1 };
	struct epoll_event evs[MAX_EVENTS], ev = { .events = EPOLLIN, .data.ptr = NULL };
	char desc[128], cc[EQL_CC_MAX + 1];
	int rc = 1;

	s.lfd = eql_listen(SOCK_STREAM, cfg->bind, cfg->port, desc, sizeof(desc));
	if (s.lfd < 0)
		return 1;
	/* Accepted sockets inherit the listener's congestion control. */
	if (eql_cc_set(s.lfd, cfg->cc))
		goto out;
	eql_cc_name(s.lfd, cc, sizeof(cc));
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	s.spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s.ep < 0 || epoll_ctl(s.ep, EPOLL_CTL_ADD, s.lfd, &ev)) {
		eql_warn_errno("serve: epoll");
		goto out;
	}
	fprintf(stderr, "eqload: serve: listening on %s, cc %s\n", desc, cc);

	while (!eql_stop_requested) {
		int n = epoll_wait(s.ep, evs, MAX_EVENTS, EQL_STOP_POLL_MS);

		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			enum verdict v;

			if (!c) {
				accept_all(&s);
				continue;
			}
			v = conn_run(&s, c);
			if (v != KEEP)
				conn_close(&s, c, v);
		}
	}
	rc = 0;
	fprintf(stderr, "# summary connections=%llu messages=%llu bytes_in=%llu bytes_out=%llu "
		"bad=%llu aborted=%llu refused=%llu open=%u\n",
		(unsigned long long)s.connections, (unsigned long long)s.messages,
		(unsigned long long)s.bytes_in, (unsigned long long)s.bytes_out,
		(unsigned long long)s.bad, (unsigned long long)s.aborted,
		(unsigned long long)s.refused, s.open);
out:
	if (s.ep >= 0)
		close(s.ep);
	if (s.spare >= 0)
		close(s.spare);
	close(s.lfd);
	return rc;
}
