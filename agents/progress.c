/*
 * progress.c - warmup's progress display (see progress.h).
 *
 * Its own file because it is terminal handling: pipes between the
 * workers and the parent, and the escape sequences that rewrite lines in
 * place, which nothing else in astra-cc needs.  Only three sequences are
 * used, all of them VT100 and understood by every terminal people run
 * builds in: CR, "ESC [ n A" (cursor up n lines) and "ESC [ J" (erase to
 * the end of the screen).
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/progress.h"
#include "lib/buf.h"
#include "lib/util.h"

/* A step on the wire: "pid \t job \t t0 \t round \t n \t best \t phase \t kernel \n". */
#define EVENT_MAX 512

struct astra_progress {
	enum astra_progress_mode mode;
	size_t nr_jobs;

	/* In a worker. */
	int in_child;
	size_t job;
	char not_verified[32];   /* astra_progress_not_verified() */
	struct astra_progress_line cur;  /* the kernel this worker is on */
	int have_cur;

	/* In the parent (LIVE): pipes, the lines, what waits to be printed. */
	int ev[2], out[2], err[2];
	struct line_rec {
		pid_t pid;
		struct astra_progress_line l;
		int printed;             /* its final text is on the screen */
	} *lines;
	size_t nr_lines, alloc_lines;
	struct astra_buf evbuf, outbuf, errbuf;
	size_t drawn;                    /* lines of the live block on the screen */
	double last_draw;
};

enum astra_progress_mode astra_progress_choose(int requested)
{
	const char *term = getenv("TERM");
	if (requested == 0)
		return ASTRA_PROGRESS_OFF;
	/* A terminal that cannot move the cursor (Emacs' shell, TERM=dumb) gets lines. */
	if (!isatty(1) || !term || !*term || !strcmp(term, "dumb"))
		return ASTRA_PROGRESS_LINES;
	return ASTRA_PROGRESS_LIVE;
}

/* ------------------------------------------------------------ text */

void astra_progress_apply(struct astra_progress_line *l, const struct astra_loop_progress *lp, double now)
{
	if (!l->t0)
		l->t0 = now;
	snprintf(l->kernel, sizeof(l->kernel), "%s", lp->kernel ? lp->kernel : "?");
	snprintf(l->phase, sizeof(l->phase), "%s", lp->phase ? lp->phase : "?");
	l->best = lp->best_speedup;
	if (!strcmp(l->phase, "proposing")) {
		l->round = lp->round;
	} else if (!strcmp(l->phase, "verifying")) {
		l->round = lp->round;
		l->total = l->verified + lp->candidates;
	} else if (!strcmp(l->phase, "judged")) {
		l->verified += lp->candidates;
		l->total = l->verified;
	} else if (!strcmp(l->phase, "confirming")) {
		/* the best once more, alone: counted already */
	} else {
		/* The outcome: the verdict's name, with the number of rounds run. */
		if (lp->round > 0)
			l->round = lp->round - 1;
		l->done = 1;
		l->t_end = now;
		l->total = lp->candidates > l->total ? lp->candidates : l->total;
	}
}

static void add_clock(struct astra_buf *b, double s)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;
	if (t < 60)
		astra_buf_addf(b, "%ld s", t);
	else
		astra_buf_addf(b, "%ld:%02ld", t / 60, t % 60);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

void astra_progress_describe(const struct astra_progress_line *l, double now, struct astra_buf *b)
{
	double elapsed = (l->done ? l->t_end : now) - l->t0;
	astra_buf_addf(b, "[%zu/%zu] %s: ", l->job + 1, l->nr_jobs, l->kernel);
	if (l->not_verified[0]) {
		/* Nothing is verified: say what is done instead, never "verifying". */
		if (l->done && !strcmp(l->phase, "failed"))
			astra_buf_addf(b, "done: the optimization failed; %zu candidate%s generated, ", l->total,
				       plural(l->total));
		else if (l->done && !strcmp(l->phase, "ended"))
			astra_buf_adds(b, "ended, ");
		else if (l->done && !l->total)
			astra_buf_addf(b, "done: no candidate to compile; not verified: %s, ", l->not_verified);
		else if (l->done)
			astra_buf_addf(b, "done: %zu candidate%s generated and compiled; not verified: %s, ", l->total,
				       plural(l->total), l->not_verified);
		else if (!strcmp(l->phase, "verifying"))
			astra_buf_addf(b, "compiling %zu candidate%s; not verified: %s, ", l->total, plural(l->total),
				       l->not_verified);
		else
			astra_buf_addf(b, "generating candidates; not verified: %s, ", l->not_verified);
		add_clock(b, elapsed);
		return;
	}
	if (l->done) {
		if (!strcmp(l->phase, "faster"))
			astra_buf_addf(b, "done: %.2fx, confirmed", l->best);
		else if (!strcmp(l->phase, "no-faster-variant"))
			astra_buf_adds(b, "done: no faster variant");
		else if (!strcmp(l->phase, "failed"))
			astra_buf_adds(b, "done: the optimization failed");
		else if (!strcmp(l->phase, "none"))
			astra_buf_adds(b, "done: not verified");
		else
			astra_buf_adds(b, "ended");
		astra_buf_addf(b, "; %d round%s, %zu/%zu candidate%s verified, ", l->round + 1,
			       plural((size_t)l->round + 1), l->verified, l->total, plural(l->total));
		add_clock(b, elapsed);
		return;
	}
	astra_buf_addf(b, "round %d, ", l->round + 1);
	if (!strcmp(l->phase, "proposing"))
		astra_buf_adds(b, "proposing candidates");
	else if (!strcmp(l->phase, "verifying"))
		astra_buf_addf(b, "verifying %zu candidate%s", l->total - l->verified, plural(l->total - l->verified));
	else if (!strcmp(l->phase, "judged"))
		astra_buf_adds(b, "judged");
	else if (!strcmp(l->phase, "confirming"))
		astra_buf_adds(b, "confirming the best");
	else
		astra_buf_adds(b, l->phase);
	astra_buf_addf(b, ": %zu/%zu verified, best %.2fx, ", l->verified, l->total, l->best);
	add_clock(b, elapsed);
}

/* ------------------------------------------------------------ setup */

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

struct astra_progress *astra_progress_start(enum astra_progress_mode mode, size_t nr_jobs)
{
	struct astra_progress *p = xcalloc(1, sizeof(*p));
	p->mode = mode;
	p->nr_jobs = nr_jobs;
	p->ev[0] = p->ev[1] = p->out[0] = p->out[1] = p->err[0] = p->err[1] = -1;
	astra_buf_init(&p->evbuf, 0);
	astra_buf_init(&p->outbuf, 0);
	astra_buf_init(&p->errbuf, 0);
	if (mode != ASTRA_PROGRESS_LIVE)
		return p;
	if (pipe(p->ev) < 0 || pipe(p->out) < 0 || (isatty(2) && pipe(p->err) < 0)) {
		/* No pipes, no live display: plain lines will do. */
		close_pair(p->ev);
		close_pair(p->out);
		close_pair(p->err);
		p->mode = ASTRA_PROGRESS_LINES;
		return p;
	}
	set_nonblock(p->ev[0]);
	set_nonblock(p->out[0]);
	if (p->err[0] >= 0)
		set_nonblock(p->err[0]);
	fflush(stdout);
	fflush(stderr);
	return p;
}

void astra_progress_not_verified(struct astra_progress *p, const char *why)
{
	snprintf(p->not_verified, sizeof(p->not_verified), "%s", why ? why : "");
}

void astra_progress_child(struct astra_progress *p, size_t job)
{
	p->in_child = 1;
	p->job = job;
	p->have_cur = 0;
	if (p->mode != ASTRA_PROGRESS_LIVE)
		return;
	close(p->ev[0]);
	close(p->out[0]);
	p->ev[0] = p->out[0] = -1;
	dup2(p->out[1], 1);
	close(p->out[1]);
	p->out[1] = -1;
	if (p->err[0] >= 0) {
		close(p->err[0]);
		dup2(p->err[1], 2);
		close(p->err[1]);
		p->err[0] = p->err[1] = -1;
	}
	/* A line at a time, so that the parent can print it promptly. */
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* ------------------------------------------------------------ worker side */

void astra_progress_loop(void *data, const struct astra_loop_progress *lp)
{
	struct astra_progress *p = data;
	double now = astra_now();
	if (!p || p->mode == ASTRA_PROGRESS_OFF)
		return;
	if (p->mode == ASTRA_PROGRESS_LIVE) {
		char ev[EVENT_MAX];
		int n = snprintf(ev, sizeof(ev), "%ld\t%zu\t%.6f\t%d\t%zu\t%.6g\t%.23s\t%.120s\n", (long)getpid(),
				 p->job, now, lp->round, lp->candidates, lp->best_speedup, lp->phase ? lp->phase : "?",
				 lp->kernel ? lp->kernel : "?");
		/* One write of less than PIPE_BUF bytes: never mixed with another worker's. */
		if (n > 0 && write(p->ev[1], ev, (size_t)n) < 0)
			p->mode = ASTRA_PROGRESS_OFF;
		return;
	}
	/* LINES: this process prints its own steps. */
	if (!p->have_cur || p->cur.done || strcmp(p->cur.kernel, lp->kernel ? lp->kernel : "?")) {
		memset(&p->cur, 0, sizeof(p->cur));
		p->cur.job = p->job;
		p->cur.nr_jobs = p->nr_jobs;
		memcpy(p->cur.not_verified, p->not_verified, sizeof(p->cur.not_verified));
		p->have_cur = 1;
	}
	astra_progress_apply(&p->cur, lp, now);
	if (!strcmp(p->cur.phase, "proposing"))
		return;
	{
		struct astra_buf b = ASTRA_BUF_INIT;
		astra_progress_describe(&p->cur, now, &b);
		astra_buf_addch(&b, '\n');
		fputs(b.buf, stderr);
		fflush(stderr);
		astra_buf_release(&b);
	}
}

/* ------------------------------------------------------------ parent side */

static int term_cols(void)
{
	struct winsize ws;
	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
		return ws.ws_col;
	return 80;
}

static struct line_rec *find_line(struct astra_progress *p, pid_t pid, size_t job, const char *kernel)
{
	size_t i;
	struct line_rec *r;
	for (i = p->nr_lines; i-- > 0;)
		if (p->lines[i].pid == pid && p->lines[i].l.job == job && !p->lines[i].l.done &&
		    !strcmp(p->lines[i].l.kernel, kernel))
			return &p->lines[i];
	/* A new kernel of that worker: the one before it is over. */
	for (i = 0; i < p->nr_lines; i++)
		if (p->lines[i].pid == pid && !p->lines[i].l.done) {
			p->lines[i].l.done = 1;
			p->lines[i].l.t_end = astra_now();
		}
	ALLOC_GROW(p->lines, p->nr_lines + 1, p->alloc_lines);
	r = &p->lines[p->nr_lines++];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->l.job = job;
	r->l.nr_jobs = p->nr_jobs;
	memcpy(r->l.not_verified, p->not_verified, sizeof(r->l.not_verified));
	snprintf(r->l.kernel, sizeof(r->l.kernel), "%s", kernel);
	return r;
}

/* Parse and apply the complete steps in p->evbuf. */
static int take_events(struct astra_progress *p)
{
	char *s = p->evbuf.buf, *nl;
	int changed = 0;
	while ((nl = memchr(s, '\n', p->evbuf.len - (size_t)(s - p->evbuf.buf)))) {
		char *f[8], *q = s;
		int nf = 0;
		*nl = '\0';
		while (nf < 8) {
			f[nf++] = q;
			q = strchr(q, '\t');
			if (!q)
				break;
			*q++ = '\0';
		}
		if (nf == 8) {
			struct astra_loop_progress lp;
			struct line_rec *r;
			double t0 = strtod(f[2], NULL);
			lp.kernel = f[7];
			lp.round = atoi(f[3]);
			lp.candidates = (size_t)strtoul(f[4], NULL, 10);
			lp.best_speedup = strtod(f[5], NULL);
			lp.phase = f[6];
			r = find_line(p, (pid_t)strtol(f[0], NULL, 10), (size_t)strtoul(f[1], NULL, 10), f[7]);
			astra_progress_apply(&r->l, &lp, t0);
			changed = 1;
		}
		s = nl + 1;
	}
	{
		size_t rest = p->evbuf.len - (size_t)(s - p->evbuf.buf);
		memmove(p->evbuf.buf, s, rest);
		astra_buf_setlen(&p->evbuf, rest);
	}
	return changed;
}

/* Read what is there on fd into b; 1 when something came. */
static int slurp(int fd, struct astra_buf *b)
{
	char chunk[4096];
	int got = 0;
	ssize_t n;
	if (fd < 0)
		return 0;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		astra_buf_add(b, chunk, (size_t)n);
		got = 1;
	}
	return got;
}

/* Write the complete lines of b (all of it when all) to f; keep the rest. */
static void flush_lines(struct astra_buf *b, FILE *f, int all)
{
	size_t n = b->len;
	if (!all)
		while (n && b->buf[n - 1] != '\n')
			n--;
	if (!n)
		return;
	fwrite(b->buf, 1, n, f);
	memmove(b->buf, b->buf + n, b->len - n);
	astra_buf_setlen(b, b->len - n);
}

/*
 * Bring the screen up to date: erase the live block, print what is
 * permanent now (finished kernels, the workers' own output), draw the
 * block again.  final: nothing stays live.
 */
static void redraw(struct astra_progress *p, int final)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	double now = astra_now();
	int cols = term_cols();
	size_t i, drawn = 0;

	if (p->drawn)
		astra_buf_addf(&b, "\r\033[%zuA\033[J", p->drawn);
	/* Finished kernels first: their workers print after the loop ends. */
	for (i = 0; i < p->nr_lines; i++) {
		struct line_rec *r = &p->lines[i];
		if (final && !r->l.done) {
			r->l.done = 1;
			r->l.t_end = now;
			snprintf(r->l.phase, sizeof(r->l.phase), "ended");
		}
		if (r->l.done && !r->printed) {
			astra_progress_describe(&r->l, now, &b);
			astra_buf_addch(&b, '\n');
			r->printed = 1;
		}
	}
	fwrite(b.buf, 1, b.len, stdout);
	astra_buf_reset(&b);
	flush_lines(&p->outbuf, stdout, final);
	fflush(stdout);
	if (p->errbuf.len) {
		flush_lines(&p->errbuf, stderr, final);
		fflush(stderr);
	}
	for (i = 0; i < p->nr_lines; i++) {
		struct line_rec *r = &p->lines[i];
		size_t start = b.len;
		if (r->l.done)
			continue;
		astra_progress_describe(&r->l, now, &b);
		/* Never wider than the terminal: a wrapped line would break "cursor up". */
		if (b.len - start > (size_t)cols - 1)
			astra_buf_setlen(&b, start + (size_t)cols - 1);
		astra_buf_addch(&b, '\n');
		drawn++;
	}
	fwrite(b.buf, 1, b.len, stdout);
	fflush(stdout);
	astra_buf_release(&b);
	p->drawn = drawn;
	p->last_draw = now;
}

static int pump(struct astra_progress *p, int timeout_ms)
{
	struct pollfd fds[3];
	int nfds = 0, changed = 0;
	fds[nfds].fd = p->ev[0];
	fds[nfds++].events = POLLIN;
	fds[nfds].fd = p->out[0];
	fds[nfds++].events = POLLIN;
	if (p->err[0] >= 0) {
		fds[nfds].fd = p->err[0];
		fds[nfds++].events = POLLIN;
	}
	if (poll(fds, (nfds_t)nfds, timeout_ms) < 0 && errno != EINTR)
		return 0;
	if (slurp(p->ev[0], &p->evbuf))
		changed |= take_events(p);
	if (slurp(p->out[0], &p->outbuf) && memchr(p->outbuf.buf, '\n', p->outbuf.len))
		changed = 1;
	if (slurp(p->err[0], &p->errbuf) && memchr(p->errbuf.buf, '\n', p->errbuf.len))
		changed = 1;
	return changed;
}

pid_t astra_progress_wait(struct astra_progress *p, int *status)
{
	if (p->mode != ASTRA_PROGRESS_LIVE)
		return wait(status);
	for (;;) {
		pid_t pid = waitpid(-1, status, WNOHANG);
		int changed;
		if (pid < 0)
			return pid;
		if (pid > 0) {
			size_t i;
			/* Its last words first, then its kernels are over. */
			pump(p, 0);
			for (i = 0; i < p->nr_lines; i++)
				if (p->lines[i].pid == pid && !p->lines[i].l.done) {
					p->lines[i].l.done = 1;
					p->lines[i].l.t_end = astra_now();
					snprintf(p->lines[i].l.phase, sizeof(p->lines[i].l.phase), "ended");
				}
			redraw(p, 0);
			return pid;
		}
		changed = pump(p, 100);
		if (changed || astra_now() - p->last_draw >= 1.0)
			redraw(p, 0);
	}
}

void astra_progress_end(struct astra_progress *p)
{
	if (!p)
		return;
	if (p->mode == ASTRA_PROGRESS_LIVE && !p->in_child) {
		/* Every worker is gone: no writer is left once the parent lets go. */
		if (p->ev[1] >= 0)
			close(p->ev[1]);
		if (p->out[1] >= 0)
			close(p->out[1]);
		if (p->err[1] >= 0)
			close(p->err[1]);
		p->ev[1] = p->out[1] = p->err[1] = -1;
		pump(p, 0);
		redraw(p, 1);
		close_pair(p->ev);
		close_pair(p->out);
		close_pair(p->err);
	}
	free(p->lines);
	astra_buf_release(&p->evbuf);
	astra_buf_release(&p->outbuf);
	astra_buf_release(&p->errbuf);
	free(p);
}
