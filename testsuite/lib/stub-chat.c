/*
 * stub-chat.c - a chat-completions server for hermetic tests of the LLM
 * client.  It listens on 127.0.0.1 on an ephemeral port (written to the
 * port file and stdout), answers one request per connection, and follows a
 * script: line N says how to answer request N, so a test can replay
 * recorded answers and make the server misbehave in every way the client
 * must survive.  It records each request (body and head) so that tests can
 * compare what astra-cc sent.
 *
 * Usage: stub-chat [-p PORTFILE] [-d DIR] [-t SECONDS] SCRIPT
 *        stub-chat --free-port      (print a port nothing listens on)
 *
 * Script lines ('#' starts a comment):
 *   answer FILE [length]   200: a chat completion whose content is FILE's text
 *                          (finish_reason "length" when asked)
 *   reply STATUS FILE      STATUS with FILE as the body, verbatim
 *   status STATUS [retry-after=N]   STATUS with a JSON error body
 *   malformed              200 with a body that is not JSON
 *   truncated FILE         like answer, but the connection closes halfway
 *                          through the announced Content-Length
 *   huge MIB               200, MIB MiB of body without a Content-Length
 *   hang                   never answer (until the client goes away)
 *   close                  close the connection without answering
 *   echo-auth STATUS       STATUS with an error that quotes the request's
 *                          Authorization header (as some servers do)
 * Requests beyond the script get a 500 and are counted in DIR/overflow.
 * The server exits after SECONDS (default 120) so it can never linger.
 * Requests are saved as DIR/request-N.json (body) and DIR/request-N.head.
 */
#include "autoconfig.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/util.h"

static const char *dir = ".";
static double deadline;

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int save(const char *name, const char *data, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	int ret = -1;
	if (f) {
		ret = fwrite(data, 1, len, f) == len ? 0 : -1;
		if (fclose(f))
			ret = -1;
	}
	free(path);
	return ret;
}

static int read_file(const char *path, struct astra_buf *b)
{
	if (astra_buf_read_file(b, path, 0) < 0) {
		fprintf(stderr, "stub-chat: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Wait until fd is readable or the deadline passes; 1 readable, 0 not. */
static int wait_readable(int fd, double limit)
{
	struct pollfd p = { fd, POLLIN, 0 };
	double left = limit - astra_now();
	if (left <= 0)
		return 0;
	return poll(&p, 1, (int)(left * 1000) + 1) > 0;
}

/* Read one request: head into head, body into body.  0 or -1. */
static int read_request(int fd, struct astra_buf *head, struct astra_buf *body)
{
	struct astra_buf in = ASTRA_BUF_INIT;
	char tmp[65536];
	const char *end = NULL, *cl;
	size_t want = 0, hlen = 0;
	double limit = astra_now() + 10;

	for (;;) {
		ssize_t r;
		if (!end && (end = memmem(in.buf, in.len, "\r\n\r\n", 4)) != NULL) {
			hlen = (size_t)(end - in.buf) + 4;
			astra_buf_add(head, in.buf, hlen);
			for (cl = head->buf; cl && *cl; cl = strchr(cl, '\n')) {
				if (*cl == '\n')
					cl++;
				if (!strncasecmp(cl, "content-length:", 15))
					want = strtoul(cl + 15, NULL, 10);
			}
		}
		if (end && in.len - hlen >= want)
			break;
		if (!wait_readable(fd, limit))
			goto fail;
		r = read(fd, tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto fail;
		astra_buf_add(&in, tmp, (size_t)r);
	}
	astra_buf_add(body, in.buf + hlen, want);
	astra_buf_release(&in);
	return 0;
fail:
	astra_buf_release(&in);
	return -1;
}

static const char *reason_phrase(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return "Status";
	}
}

static void send_response(int fd, int status, const char *extra_headers, const char *body, size_t len)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_buf_addf(&b, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
		       "Connection: close\r\n%s\r\n", status, reason_phrase(status), len,
		       extra_headers ? extra_headers : "");
	astra_buf_add(&b, body, len);
	write_all(fd, b.buf, b.len);
	astra_buf_release(&b);
}

/* A chat completion with content, as OpenAI's servers shape it. */
static void completion(struct astra_buf *out, const char *content, size_t request_len, const char *finish)
{
	astra_buf_adds(out, "{\"id\":\"chatcmpl-stub\",\"object\":\"chat.completion\",\"created\":0,"
			    "\"model\":\"stub-model\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
			    "\"content\":\"");
	astra_buf_add_json_escaped(out, content);
	astra_buf_addf(out, "\"},\"finish_reason\":\"%s\"}],\"usage\":{\"prompt_tokens\":%zu,"
			    "\"completion_tokens\":%zu,\"total_tokens\":%zu}}\n",
		       finish, request_len / 4, strlen(content) / 4, request_len / 4 + strlen(content) / 4);
}

static void header_value(const char *head, const char *name, struct astra_buf *out)
{
	const char *p;
	size_t n = strlen(name);
	for (p = head; p && *p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncasecmp(p, name, n) && p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			astra_buf_add(out, p, strcspn(p, "\r\n"));
			return;
		}
	}
}

/* Answer one request according to the script line (NULL: beyond the script). */
static void serve(int fd, const char *line, int no)
{
	struct astra_buf head = ASTRA_BUF_INIT, body = ASTRA_BUF_INIT, out = ASTRA_BUF_INIT;
	char verb[32] = "", arg1[4096] = "", arg2[256] = "";
	char *name;

	if (read_request(fd, &head, &body) < 0) {
		fprintf(stderr, "stub-chat: request %d: could not read it\n", no);
		goto done;
	}
	name = xasprintf("request-%d.json", no);
	save(name, body.buf, body.len);
	free(name);
	name = xasprintf("request-%d.head", no);
	save(name, head.buf, head.len);
	free(name);

	if (!line) {
		static int overflow;
		char n[32];
		snprintf(n, sizeof(n), "%d\n", ++overflow);
		save("overflow", n, strlen(n));
		send_response(fd, 500, NULL, "{\"error\":{\"message\":\"stub: script exhausted\"}}", 46);
		goto done;
	}
	if (sscanf(line, "%31s %4095s %255s", verb, arg1, arg2) < 1)
		goto done;

	if (!strcmp(verb, "answer") || !strcmp(verb, "truncated")) {
		struct astra_buf text = ASTRA_BUF_INIT;
		if (read_file(arg1, &text) < 0) {
			send_response(fd, 500, NULL, "{}", 2);
			goto done;
		}
		completion(&out, text.buf, body.len, !strcmp(arg2, "length") ? "length" : "stop");
		astra_buf_release(&text);
		if (!strcmp(verb, "answer")) {
			send_response(fd, 200, NULL, out.buf, out.len);
		} else {
			struct astra_buf b = ASTRA_BUF_INIT;
			astra_buf_addf(&b, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
				       "Content-Length: %zu\r\nConnection: close\r\n\r\n", out.len);
			astra_buf_add(&b, out.buf, out.len / 2);
			write_all(fd, b.buf, b.len);
			astra_buf_release(&b);
		}
	} else if (!strcmp(verb, "reply")) {
		if (read_file(arg2, &out) == 0)
			send_response(fd, atoi(arg1), NULL, out.buf, out.len);
	} else if (!strcmp(verb, "status")) {
		int status = atoi(arg1);
		char *hdr = NULL;
		if (!strncmp(arg2, "retry-after=", 12))
			hdr = xasprintf("Retry-After: %s\r\n", arg2 + 12);
		astra_buf_addf(&out, "{\"error\":{\"message\":\"stub: status %d\",\"type\":\"stub\"}}", status);
		send_response(fd, status, hdr, out.buf, out.len);
		free(hdr);
	} else if (!strcmp(verb, "malformed")) {
		static const char bad[] = "{\"choices\": [ {\"message\": {\"content\": \"unterminated";
		send_response(fd, 200, NULL, bad, sizeof(bad) - 1);
	} else if (!strcmp(verb, "huge")) {
		static char chunk[65536];
		size_t i, n = (size_t)atoi(arg1) * 16;
		const char *h = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
				"{\"choices\":[{\"message\":{\"content\":\"";
		memset(chunk, 'x', sizeof(chunk));
		if (write_all(fd, h, strlen(h)) == 0)
			for (i = 0; i < n; i++)
				if (write_all(fd, chunk, sizeof(chunk)) < 0)
					break; /* the client stopped reading: that is the point */
	} else if (!strcmp(verb, "hang")) {
		char tmp[256];
		/* Until the client gives up (EOF) or the server's life ends. */
		while (wait_readable(fd, deadline) && read(fd, tmp, sizeof(tmp)) > 0)
			;
	} else if (!strcmp(verb, "close")) {
		/* nothing: the connection closes below */
	} else if (!strcmp(verb, "echo-auth")) {
		struct astra_buf auth = ASTRA_BUF_INIT, msg = ASTRA_BUF_INIT;
		header_value(head.buf, "Authorization", &auth);
		astra_buf_addf(&msg, "Incorrect API key provided: %s", auth.buf);
		astra_buf_adds(&out, "{\"error\":{\"message\":\"");
		astra_buf_add_json_escaped(&out, msg.buf);
		astra_buf_adds(&out, "\",\"type\":\"invalid_request_error\"}}");
		send_response(fd, atoi(arg1), NULL, out.buf, out.len);
		astra_buf_release(&auth);
		astra_buf_release(&msg);
	} else {
		fprintf(stderr, "stub-chat: unknown script verb `%s`\n", verb);
		send_response(fd, 500, NULL, "{}", 2);
	}
done:
	astra_buf_release(&head);
	astra_buf_release(&body);
	astra_buf_release(&out);
}

static int listen_socket(int *port)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

int main(int argc, char **argv)
{
	const char *port_file = NULL, *script_path = NULL;
	struct astra_buf script = ASTRA_BUF_INIT;
	char **lines = NULL;
	size_t nr_lines = 0, alloc = 0, next = 0;
	double life = 120;
	int i, fd, port, no = 0;
	char *p;

	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--free-port")) {
			fd = listen_socket(&port);
			if (fd < 0)
				return 1;
			close(fd);
			printf("%d\n", port);
			return 0;
		} else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			port_file = argv[++i];
		} else if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			life = atof(argv[++i]);
		} else {
			script_path = argv[i];
		}
	}
	if (!script_path) {
		fprintf(stderr, "usage: stub-chat [-p PORTFILE] [-d DIR] [-t SECONDS] SCRIPT | --free-port\n");
		return 2;
	}
	if (read_file(script_path, &script) < 0)
		return 2;
	for (p = script.buf; p && *p; ) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != '#') {
			ALLOC_GROW(lines, nr_lines + 1, alloc);
			lines[nr_lines++] = p;
		}
		p = nl ? nl + 1 : NULL;
	}

	fd = listen_socket(&port);
	if (fd < 0) {
		fprintf(stderr, "stub-chat: cannot listen on 127.0.0.1: %s\n", strerror(errno));
		return 1;
	}
	deadline = astra_now() + life;
	if (port_file) {
		char *tmp = xasprintf("%s.tmp", port_file);
		FILE *f = fopen(tmp, "w");
		if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) || rename(tmp, port_file)) {
			fprintf(stderr, "stub-chat: cannot write %s\n", port_file);
			return 1;
		}
		free(tmp);
	}
	printf("%d\n", port);
	fflush(stdout);

	while (wait_readable(fd, deadline)) {
		int c = accept(fd, NULL, NULL);
		if (c < 0)
			continue;
		no++;
		serve(c, next < nr_lines ? lines[next] : NULL, no);
		next++;
		close(c);
	}
	close(fd);
	free(lines);
	astra_buf_release(&script);
	return 0;
}
