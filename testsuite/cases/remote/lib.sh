# lib.sh - shared by the remote tier's cases (sourced by their cmd files).
#
# Starts a real nginx with WebDAV (testsuite/lib/nginx.sh) on a free
# loopback port, serving ./srv/root; stops it when the case exits.
#   T          the cache API from the shell (testsuite/helpers/cache-tool)
#   key N      a 32-hex-digit key made from N
#   obj KEY CC KIND   the path of an object in the server's directory
#   requests PATTERN  how many requests of the access log match PATTERN
#   stat NAME  one counter of `astra-cc -s --json` for $ASTRA_CC_DIR
#   connections PORT  established TCP connections to PORT
#   mark, newlog      the log lines written since the mark

T="$builddir/testsuite/helpers/cache-tool"
[ -x "$T" ] || { echo "cache-tool is not built" >&2; exit 99; }
. "$srcdir/testsuite/lib/nginx.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
key() { printf '%032x' "$1"; }
obj() { local k=$1; printf '%s/srv/root/cache/%s/%s/%s-%s.%s' "$PWD" "${k:0:2}" "${k:2:2}" "$k" "$2" "$3"; }
# nginx logs a request after it has sent the response: let the log settle
# (no growth for 0.2 s, at most 3 s) before counting.
requests() {
	local i a b
	for i in $(seq 1 15); do
		a=$(cat "$NGINX_LOG" 2>/dev/null | wc -c)
		sleep 0.2
		b=$(cat "$NGINX_LOG" 2>/dev/null | wc -c)
		[ "$a" = "$b" ] && break
	done
	grep -c -E "$1" "$NGINX_LOG" 2>/dev/null || true
}
stat() {
	"$ASTRA_CC" -s --json | sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\([0-9.]*\),\{0,1\}$/\1/p"
}
# mark; ... ; newlog: the log lines written since the mark.
mark() { MARK=$(cat log 2>/dev/null | wc -l); }
newlog() { tail -n +"$((MARK + 1))" log; }
# connections PORT: established TCP connections to PORT on this host (from /proc).
connections() {
	local hex
	hex=$(printf '%04X' "$1")
	awk -v p=":$hex" '$2 ~ p"$" && $4 == "01" { n++ } END { print n + 0 }' /proc/net/tcp
}
trap nginx_stop EXIT
nginx_start "$PWD/srv"
export ASTRA_CC_LOG_FILE=$PWD/log ASTRA_CC_TRACE=cache
