# lib.sh - shared by the cache cases (sourced by their cmd files).
#
# T is the test helper that drives the cache API (testsuite/helpers/
# cache-tool.c); D is the cache directory the runner gave this case.

T="$builddir/testsuite/helpers/cache-tool"
D="$ASTRA_CC_DIR"
[ -x "$T" ] || { echo "cache-tool is not built" >&2; exit 99; }

# key N: a 32-hex-digit key made from the number N.
key() { printf '%032x' "$1"; }

fail() { echo "FAIL: $*" >&2; exit 1; }

# stat NAME: one counter from `astra-cc -s --json`.
stat() {
	"$ASTRA_CC" -s --json | sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\([0-9.]*\),\{0,1\}$/\1/p"
}

# entry_path KEY CC
entry_path() { "$T" path "$D" "$1" "$2"; }

# count_files PATTERN: files under $D whose name matches PATTERN.
count_files() { find "$D" -type f -name "$1" 2>/dev/null | wc -l | tr -d ' '; }

# can_mount: can this host give the case a private mount namespace?
can_mount() {
	command -v unshare >/dev/null 2>&1 &&
		unshare -m sh -c 'mkdir -p .mnt-probe && mount -t tmpfs -o size=64k tmpfs .mnt-probe && umount .mnt-probe' 2>/dev/null
}
