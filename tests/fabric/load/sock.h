/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Socket plumbing shared by the modes: numeric addresses, listening
 * sockets, congestion control, TCP_INFO, and blocking-style I/O on
 * nonblocking sockets that still notices SIGINT/SIGTERM.  Functions that
 * return -1 have already said why on stderr, unless noted.
 */
#ifndef EDGEQ_LOAD_SOCK_H
#define EDGEQ_LOAD_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define EQL_PORT_TCP	5201
#define EQL_PORT_UDP	5202
#define EQL_CC_MAX	16	/* TCP_CA_NAME_MAX */

struct eql_endpoint {
	struct sockaddr_storage ss;
	socklen_t len;
	int family;			/* AF_INET or AF_INET6 */
	char text[64];			/* "10.0.0.2:5201", "[fd00::2]:5201" */
};

/* A literal IPv4 or IPv6 address (no name lookup) and a port. */
int eql_resolve(const char *addr, uint16_t port, struct eql_endpoint *ep);
/* "addr:port" of a socket address, IPv4-mapped IPv6 shown as IPv4. */
void eql_sockaddr_text(const struct sockaddr *sa, char *buf, size_t len);

/*
 * A nonblocking socket bound to bind (an address) and port, listening if
 * type is SOCK_STREAM.  bind NULL: every IPv4 and IPv6 address, through one IPv6
 * socket with IPV6_V6ONLY off, or IPv4 only where IPv6 is disabled.
 * desc gets what it is bound to, for messages.
 */
int eql_listen(int type, const char *bind, uint16_t port, char *desc, size_t desclen);

/*
 * Congestion control.  eql_cc_check() tries cc (NULL: the default of this
 * network namespace) on a throwaway socket and puts the name sockets will
 * get in name, so that a bad --cc fails before anything starts; its
 * message lists the ones the kernel has.  eql_cc_set() is the same on a
 * real socket.
 */
int eql_cc_check(int family, const char *cc, char *name, size_t len);
int eql_cc_set(int fd, const char *cc);
/* The congestion control of socket fd ("unknown" if it cannot be read). */
void eql_cc_name(int fd, char *name, size_t len);

struct eql_tcp_stats {
	uint64_t bytes_acked;		/* tcpi_bytes_acked: by the peer, SYN excluded */
	uint32_t total_retrans;		/* tcpi_total_retrans */
};

/* TCP_INFO of fd; -1 with errno, nothing printed. */
int eql_tcp_stats(int fd, struct eql_tcp_stats *st);

/*
 * A nonblocking TCP socket for ep, with cc (NULL: default), TCP_NODELAY if
 * nodelay, and, if abort_close, SO_LINGER 0: its close() sends a RST and
 * leaves no TIME_WAIT (see flows.c).  Not connected yet.
 */
int eql_tcp_socket(const struct eql_endpoint *ep, const char *cc, bool nodelay, bool abort_close);
/* Connects a socket from eql_tcp_socket(), waiting.  0 or -1 (said). */
int eql_tcp_connect(int fd, const struct eql_endpoint *ep);

/*
 * Waits until fd has events (POLLIN/POLLOUT), or deadline (CLOCK_MONOTONIC
 * ns, 0: none) passes, or a stop is requested.  1: ready, 0: deadline,
 * -1: stop requested.
 */
int eql_wait_fd(int fd, short events, uint64_t deadline);

/*
 * On a nonblocking socket: writes all of iov (consumed as it goes); reads
 * and drops n bytes.  0 on success; -1 with errno on an error or EINTR on
 * a stop request; eql_recv_drop() returns -2 if the peer closes first.
 * Nothing is printed.
 */
int eql_send_all(int fd, struct iovec *iov, int iovcnt);
int eql_recv_drop(int fd, uint64_t n);

/* Lifts the open-files limit to its hard maximum: a server or a flows
 * client holds one descriptor per connection. */
void eql_raise_nofile(void);

/* Zeros to send from: payload content does not matter. */
#define EQL_ZEROS_LEN	(256 * 1024)
extern const uint8_t eql_zeros[EQL_ZEROS_LEN];
/* A buffer for data that is read only to be dropped. */
extern uint8_t eql_sink[EQL_ZEROS_LEN];

#endif
