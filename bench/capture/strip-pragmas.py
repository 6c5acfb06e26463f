#!/usr/bin/env python3
"""strip-pragmas.py MODE [ADVICE] < FILE.cu > OUT.cu - the file's `#pragma astra`
blocks reduced for bench/run-capture:
  alone    `#pragma astra optimize` and nothing else
  facts    optimize, plus what no run can show: noalias and tolerance()
  advised  alone, plus the clauses astra-cc advised when it warmed up the
           alone file: ADVICE has "LINE<TAB>#pragma astra ..." lines
           (bench/capture/advice.py), LINE the kernel's first line in the
           alone file; each clause goes under the `#pragma astra optimize`
           nearest above that line"""
import sys

mode = sys.argv[1]
out, block = [], False
for line in sys.stdin.read().split("\n"):
    if line.startswith("#pragma astra"):
        if not block:
            out.append("#pragma astra optimize")
        block = True
        rest = line[len("#pragma astra"):].strip()
        if mode == "facts" and (rest.startswith("noalias") or rest.startswith("tolerance")):
            out.append(line)
        continue
    block = False
    out.append(line)
if mode == "advised":
    where = []
    for item in open(sys.argv[2]):
        num, _, clause = item.rstrip("\n").partition("\t")
        at = int(num) - 1  # the kernel's first line, 0-based
        above = [i for i in range(min(at, len(out))) if out[i] == "#pragma astra optimize"]
        if not clause or not above:
            sys.exit("strip-pragmas.py: no `#pragma astra optimize` above line %s for %s" % (num, clause))
        where.append((above[-1], clause))
    for i, clause in sorted(reversed(where), key=lambda w: -w[0]):  # last first; a block's in order
        out.insert(i + 1, clause)
sys.stdout.write("\n".join(out))
