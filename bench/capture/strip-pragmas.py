#!/usr/bin/env python3
"""strip-pragmas.py MODE < FILE.cu > OUT.cu - the file's `#pragma astra`
blocks reduced for bench/run-capture:
  alone   `#pragma astra optimize` and nothing else
  facts   optimize, plus what no run can show: noalias and tolerance()"""
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
sys.stdout.write("\n".join(out))
