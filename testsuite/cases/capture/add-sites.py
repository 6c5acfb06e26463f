#!/usr/bin/env python3
"""add-sites.py FILE.cu LISTING.json > OUT.cu - FILE.cu with a launch site
appended for each annotated kernel that has none in the file, so that a
capture build has sites to compile through its launchers (the benchmark
kernels are launched from their test programs, not from their files).
Template kernels are launched with the first types() of their pragma (or
float).  Used by testsuite/cases/capture/*."""
import json
import re
import sys

src = open(sys.argv[1]).read()
listing = json.load(open(sys.argv[2]))
out = [src, "\n/* Launch sites added by testsuite/cases/capture/add-sites.py */\n"]
for f in listing["files"]:
    launched = {l["kernel"] for l in f["launches"]}
    for k in f["kernels"]:
        if k["status"] != "ok" or k["name"] in launched:
            continue
        subst = {}
        types = k["pragma"]["types"]
        for t in k["template_params"]:
            v = types[0].get(t["name"]) if types else None
            subst[t["name"]] = v or t.get("default") or ("float" if t["kind"] in ("typename", "class") else "1")
        def fill(ty):
            for n, v in subst.items():
                ty = re.sub(r"\b%s\b" % re.escape(n), v, ty)
            return ty
        targs = "<%s>" % ", ".join(subst[t["name"]] for t in k["template_params"]) if k["template_params"] else ""
        args = []
        for p in k["params"]:
            ty = fill(p["type"])
            args.append("(%s)nullptr" % ty if p["pointer"] else "(%s)0" % ty)
        out.append("void astra_test_site_%s(cudaStream_t s)\n{\n\t%s%s<<<1, 32, 0, s>>>(%s);\n}\n"
                   % (k["name"], k["name"], targs, ", ".join(args)))
sys.stdout.write("".join(out))
