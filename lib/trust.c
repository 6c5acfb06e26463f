/*
 * trust.c - whose files astra-cc believes, and the umask of what it
 * creates in a cache (see trust.h).
 *
 * Apart from config.c because the cache's checks (cache/store.c, the
 * queue, the device ceilings) and the configuration's own check share the
 * rule, and apart from the cache because the configuration file is read
 * before any cache is opened.
 */
#include "autoconfig.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/trust.h"
#include "lib/util.h"

int astra_trust_parse_umask(const char *s, mode_t *out)
{
	unsigned long v = 0;
	size_t i;
	if (!s || !*s || strlen(s) > 4)
		return -1;
	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '7')
			return -1;
		v = v * 8 + (unsigned long)(s[i] - '0');
	}
	if (v > 0777)
		return -1;
	*out = (mode_t)v;
	return 0;
}

/* The configured group, resolved once per value of the setting. */
int astra_trust_group(gid_t *gid)
{
	static char *seen;
	static int result;
	static gid_t seen_gid;
	const char *name = astra_config_str(ASTRA_CFG_TRUSTED_GROUP);

	if (!*name)
		return 0;
	if (!seen || strcmp(seen, name)) {
		struct group gr, *res = NULL;
		char buf[16384];
		char *end;
		unsigned long n = strtoul(name, &end, 10);
		free(seen);
		seen = xstrdup(name);
		if (!*end && getgrgid_r((gid_t)n, &gr, buf, sizeof(buf), &res) == 0 && res) {
			seen_gid = (gid_t)n;
			result = 1;
		} else if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) == 0 && res) {
			seen_gid = res->gr_gid;
			result = 1;
		} else if (!*end) {
			/* A number with no group entry is still a gid. */
			seen_gid = (gid_t)n;
			result = 1;
		} else {
			warning("trusted_group `%s` is not a group on this machine: only your own files and root's "
				"are trusted", name);
			result = -1;
		}
	}
	if (result == 1)
		*gid = seen_gid;
	return result;
}

/* Is uid a member of gid (its primary group, or listed in the group)? */
static int member_of(uid_t uid, gid_t gid)
{
	static struct { uid_t uid; gid_t gid; int yes; } memo[16];
	static size_t nr_memo, next;
	struct passwd pw, *pres = NULL;
	struct group gr, *gres = NULL;
	char pbuf[16384], gbuf[65536];
	size_t i;
	int yes = 0;

	for (i = 0; i < nr_memo; i++)
		if (memo[i].uid == uid && memo[i].gid == gid)
			return memo[i].yes;
	if (getpwuid_r(uid, &pw, pbuf, sizeof(pbuf), &pres) == 0 && pres) {
		if (pres->pw_gid == gid)
			yes = 1;
		else if (getgrgid_r(gid, &gr, gbuf, sizeof(gbuf), &gres) == 0 && gres && gres->gr_mem)
			for (i = 0; !yes && gres->gr_mem[i]; i++)
				yes = !strcmp(gres->gr_mem[i], pres->pw_name);
	}
	memo[next].uid = uid;
	memo[next].gid = gid;
	memo[next].yes = yes;
	next = (next + 1) % ARRAY_SIZE(memo);
	if (nr_memo < ARRAY_SIZE(memo))
		nr_memo++;
	return yes;
}

/* The rule on who may still change the file: nobody but its owner and the trusted group. */
static int mode_ok(gid_t gid, mode_t mode, long long trusted_gid, struct astra_buf *why)
{
	if (mode & S_IWOTH) {
		if (why)
			astra_buf_addf(why, "it is writable by everyone (mode %04o)", (unsigned)(mode & 07777));
		return 0;
	}
	if ((mode & S_IWGRP) && (trusted_gid < 0 || (long long)gid != trusted_gid)) {
		if (why)
			astra_buf_addf(why, "it is writable by group %u (mode %04o), which is not trusted_group",
				       (unsigned)gid, (unsigned)(mode & 07777));
		return 0;
	}
	return 1;
}

int astra_trust_check(uid_t uid, gid_t gid, mode_t mode, long long trusted_gid, struct astra_buf *why)
{
	if (uid != geteuid() && uid != 0 && (trusted_gid < 0 || !member_of(uid, (gid_t)trusted_gid))) {
		if (why)
			astra_buf_addf(why, "it was written by uid %u, who is neither you nor root%s", (unsigned)uid,
				       trusted_gid < 0 ? " (no trusted_group is set)" : " nor a member of trusted_group");
		return 0;
	}
	return mode_ok(gid, mode, trusted_gid, why);
}

int astra_trust_content(uid_t uid, gid_t gid, mode_t mode, struct astra_buf *why)
{
	gid_t g;
	long long tg = astra_trust_group(&g) == 1 ? (long long)g : -1;
	/* The common case first: the user's own file, private. */
	if (uid == geteuid() && !(mode & (S_IWGRP | S_IWOTH)))
		return 1;
	return astra_trust_check(uid, gid, mode, tg, why);
}

int astra_trust_config(uid_t uid, gid_t gid, mode_t mode, long long trusted_gid, struct astra_buf *why)
{
	if (uid != geteuid() && uid != 0) {
		if (why)
			astra_buf_addf(why, "it is owned by uid %u, not by you or root", (unsigned)uid);
		return 0;
	}
	return mode_ok(gid, mode, trusted_gid, why);
}

int astra_trust_unowned(const char *name, struct astra_buf *why)
{
	/*
	 * An HTTP tier cannot say who wrote an object: it is trusted as far
	 * as the server the user configured is (whoever may write there
	 * changes what builds substitute).  To insist on more, the user sets
	 * require_signature: the store then checks the entry's signature
	 * (cache/sign.h) on every tier, this one included.
	 */
	(void)name;
	(void)why;
	return 1;
}

mode_t astra_trust_umask(void)
{
	mode_t m;
	if (astra_trust_parse_umask(astra_config_str(ASTRA_CFG_UMASK), &m) == 0)
		return m;
	m = umask(0);
	umask(m);
	return m | 022;
}

mode_t astra_trust_umask_enter(void)
{
	return umask(astra_trust_umask());
}

void astra_trust_umask_leave(mode_t old)
{
	umask(old);
}
