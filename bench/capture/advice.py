#!/usr/bin/env python3
"""advice.py WARMUP.TXT... - the pragma lines astra-cc advised, per kernel, as
"KERNEL<TAB>#pragma astra ..." lines (for strip-pragmas.py advised).

Reads `astra-cc --warmup` output: a job's lines start with its "[i/n]"
prefix, its first line names the kernel ("[i/n] KERNEL: ..."), and advice
is a clause in backquotes, "`#pragma astra noalias`" (a capture's note) or
"`#pragma astra tolerance(...)`" (a hint after the rounds)."""
import re
import sys

seen = []
for path in sys.argv[1:]:
    kernel_of = {}
    for line in open(path, errors="replace"):
        m = re.match(r"^(\[\d+/\d+\]) (\w+): ", line)
        if m:
            kernel_of.setdefault(m.group(1), m.group(2))
        p = re.match(r"^(\[\d+/\d+\])", line)
        for clause in re.findall(r"`(#pragma astra [^`]+)`", line):
            kernel = kernel_of.get(p.group(1)) if p else None
            if kernel and (kernel, clause) not in seen:
                seen.append((kernel, clause))
for kernel, clause in seen:
    print("%s\t%s" % (kernel, clause))
