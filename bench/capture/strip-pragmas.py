#!/usr/bin/env python3
"""strip-pragmas.py MODE [ADVICE] < FILE.cu > OUT.cu - the file's `#pragma astra`
blocks reduced for bench/run-capture:
  alone    `#pragma astra optimize` and nothing else
  facts    optimize, plus what no run can show: noalias and tolerance()
  advised  optimize, plus the lines astra-cc advised: ADVICE is a file of
           "KERNEL<TAB>#pragma astra ..." lines (bench/capture/advice.py)"""
import re
import sys

mode = sys.argv[1]
advice = {}
if mode == "advised":
    for line in open(sys.argv[2]):
        kernel, _, clause = line.rstrip("\n").partition("\t")
        if clause:
            advice.setdefault(kernel, []).append(clause)
lines = sys.stdin.read().split("\n")
out, block = [], False
for i, line in enumerate(lines):
    if line.startswith("#pragma astra"):
        if not block:
            out.append("#pragma astra optimize")
            if mode == "advised":
                # The kernel the block annotates: the first __global__ after it.
                name = None
                for nxt in lines[i:i + 12]:
                    m = re.search(r"__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?void\s+(\w+)", nxt)
                    if m:
                        name = m.group(1)
                        break
                out.extend(advice.get(name, []))
        block = True
        rest = line[len("#pragma astra"):].strip()
        if mode == "facts" and (rest.startswith("noalias") or rest.startswith("tolerance")):
            out.append(line)
        continue
    block = False
    out.append(line)
sys.stdout.write("\n".join(out))
