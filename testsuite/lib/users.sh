# users.sh - a second user, for the cases about a cache that other people
# can write (doc/cache.md, "Sharing a cache").  Source it after testlib.sh.
#
# need_second_user: skip unless root; make the system user astra-cc-other
# (and the group astra-cc-team, of which it is a member) unless they exist;
# set OTHER, OTHER_UID, OTHER_GID, TEAM, TEAM_GID.
# as_other CMD...: run CMD as that user, with its groups.
# The users are left in place: cases run in parallel and share them.

need_second_user() {
	[ "$(id -u)" = 0 ] || skip "skipped: needs root to create a second user (useradd)"
	command -v useradd >/dev/null 2>&1 && command -v groupadd >/dev/null 2>&1 &&
		command -v setpriv >/dev/null 2>&1 || skip "skipped: no useradd, groupadd or setpriv"
	OTHER=astra-cc-other
	TEAM=astra-cc-team
	local i
	# Several cases may get here at once; useradd takes a lock and fails for the others.
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		getent group "$TEAM" >/dev/null || groupadd --system "$TEAM" 2>/dev/null
		id -u "$OTHER" >/dev/null 2>&1 ||
			useradd --system --no-create-home --shell /usr/sbin/nologin -G "$TEAM" "$OTHER" 2>/dev/null
		getent group "$TEAM" >/dev/null && id -u "$OTHER" >/dev/null 2>&1 && break
		sleep 0.3
	done
	OTHER_UID=$(id -u "$OTHER") || fail "cannot create the user $OTHER"
	OTHER_GID=$(id -g "$OTHER")
	TEAM_GID=$(getent group "$TEAM" | cut -d: -f3)
	[ -n "$TEAM_GID" ] || fail "cannot create the group $TEAM"
	id -nG "$OTHER" | grep -qw "$TEAM" || fail "$OTHER is not in $TEAM"
}

as_other() {
	setpriv --reuid="$OTHER_UID" --regid="$OTHER_GID" --init-groups -- "$@"
}
