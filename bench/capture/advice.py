#!/usr/bin/env python3
"""advice.py [--file NAME] WARMUP.JSON... - the clauses astra-cc advised, per kernel, as
"LINE<TAB>#pragma astra ..." lines (for strip-pragmas.py advised).

Reads `astra-cc --warmup --json` records: each kernel's row gives its
first line in the file warmup saw ("line") and the clauses no run can
prove that would let more candidates through ("advice": the capture's
`#pragma astra noalias`, the tolerance hints' `#pragma astra
tolerance(...)`).  A kernel with several rows (a second job found the
first one's entry) gives each clause once.  --file: only the kernels of
files named NAME (the rows' "file", any directory)."""
import json
import sys

args = sys.argv[1:]
only = None
if args[:1] == ["--file"]:
    only, args = args[1], args[2:]
seen = []
for path in args:
    try:
        rows = json.load(open(path)).get("kernels", [])
    except (OSError, ValueError):
        continue
    for r in rows:
        if only and str(r.get("file", "")).rsplit("/", 1)[-1] != only:
            continue
        for clause in r.get("advice", []):
            item = (int(r.get("line", 0)), clause)
            if item[0] > 0 and item not in seen:
                seen.append(item)
for line, clause in seen:
    print("%d\t%s" % (line, clause))
