#!/bin/bash
# cache-lookup.sh - what a cache lookup costs the compile path.
#
# Fills a scratch cache with ENTRIES entries (1.5 KiB variants, the size of
# a typical kernel), then times ITERATIONS lookups that hit (random keys
# among the entries; a hit also records the use for LRU) and ITERATIONS
# that miss, in one process through the same API the pipeline calls
# (astra_cache_lookup).  Prints one JSON line, then a short table.
#
# Usage: bench/cache-lookup.sh [--entries N] [--iterations N] [--dir DIR] [--keep]
#   run from the build directory (it uses testsuite/helpers/cache-tool,
#   built by `make check` or `make testsuite/helpers/cache-tool`).
set -eu
entries=10000 iterations=20000 dir= keep=0
builddir=${builddir:-$(pwd)}
while [ $# -gt 0 ]; do
	case $1 in
	--entries) entries=$2; shift ;;
	--iterations) iterations=$2; shift ;;
	--dir) dir=$2; shift ;;
	--keep) keep=1 ;;
	*) echo "usage: $0 [--entries N] [--iterations N] [--dir DIR] [--keep]" >&2; exit 2 ;;
	esac
	shift
done
tool=$builddir/testsuite/helpers/cache-tool
[ -x "$tool" ] || { echo "$tool is not built: make testsuite/helpers/cache-tool" >&2; exit 1; }
if [ -z "$dir" ]; then
	dir=$(mktemp -d "${TMPDIR:-/tmp}/astra-cache-bench.XXXXXX")
	[ $keep = 1 ] || trap 'rm -rf "$dir"' EXIT
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n1)
result=$(ASTRA_CC_MAX_SIZE=0 "$tool" bench "$dir/cache" "$entries" "$iterations")
fs=$(stat -f -c %T "$dir/cache" 2>/dev/null || echo unknown)
commit=$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "${result%\}}, \"filesystem\": \"$fs\", \"cpu\": \"${cpu:-unknown}\", \"commit\": \"$commit\"}"
echo "$result" | sed 's/[{}"]//g; s/, /\n/g' | awk -F': ' '{ printf "  %-12s %s\n", $1, $2 }' >&2
