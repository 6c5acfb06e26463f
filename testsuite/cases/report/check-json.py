"""check-json.py REPORT.JSON STDOUT.JSON INDEX.HTML REPORT.MD - the report's JSON.

The members of the document and of each kernel are the ones doc/report.md
lists in its tables (a member `name` documented as "| `name` | ... |"
under the heading of its object); the figures are those the cache
entries hold (testsuite/helpers/evidence-fixture.c made them); the index
page lists the same kernels in the same order; --report-json - writes
the same document.
"""

import html.parser
import json
import math
import re
import sys

rep = json.load(open(sys.argv[1]))
out = json.load(open(sys.argv[2]))
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAILED: " + what)


def documented(md, heading):
    """The members listed in the table after the heading (### heading)."""
    text = open(md).read()
    m = re.search(r"^#+ " + re.escape(heading) + r"\s*$(.*?)(?=^#)", text, re.M | re.S)
    return set(re.findall(r"^\| `([a-z_]+)` \|", m.group(1), re.M)) if m else set()


md = sys.argv[4]
doc_members = documented(md, "The document")
kernel_members = documented(md, "A kernel")
shape_members = documented(md, "A shape")
ver_members = documented(md, "The verification")
check(doc_members and kernel_members and shape_members and ver_members, "doc/report.md lists the members")
check(set(rep) == doc_members, "document members %s vs documented %s" % (sorted(set(rep) ^ doc_members), ""))
for k in rep["kernels"]:
    diff = set(k) ^ kernel_members
    check(not diff, "%s: members not as documented: %s" % (k["kernel"], sorted(diff)))
    for s in k["shapes"]:
        check(set(s) == shape_members, "%s: shape members: %s" % (k["kernel"], sorted(set(s) ^ shape_members)))
    if k["verification"]:
        check(set(k["verification"]) == ver_members,
              "%s: verification members: %s" % (k["kernel"], sorted(set(k["verification"]) ^ ver_members)))
print("members as documented: %d kernels" % len(rep["kernels"]))

by = {(k["kernel"], k["arch"]): k for k in rep["kernels"]}
check(rep["format"] == 1 and rep["selection"] == "cache", "format and selection")
check(rep["summary"]["kernels"] == 8, "8 kernels")
check(rep["summary"]["statuses"] == {"faster": 5, "no-faster-variant": 1, "failed": 1, "corrupt": 1},
      "statuses %s" % rep["summary"]["statuses"])

# A faster variant with the full evidence record.
k = by[("add_rmsnorm", "sm_90")]
big = max(k["shapes"], key=lambda s: s["bytes"])
check(k["status"] == "faster" and k["page"] == "kernels/%s-90.html" % k["key"], "add_rmsnorm: status, page")
check(abs(k["speedup_largest"] - 2.4) < 1e-9, "add_rmsnorm: speedup at the largest shape %s" % k["speedup_largest"])
geo = math.exp(sum(math.log(s["variant"]["speedup"]) for s in k["shapes"]) / len(k["shapes"]))
check(abs(k["speedup"] - geo) < 1e-6, "add_rmsnorm: speedup %s is the geometric mean %s" % (k["speedup"], geo))
check(k["largest_shape"] == big["shape"] == "rows=4096 cols=4096", "add_rmsnorm: largest shape")
check(abs(big["variant"]["gbps"] - big["bytes"] / big["variant"]["median_us"] / 1e3) < 1e-6, "add_rmsnorm: GB/s")
check(abs(k["copy_roofline"] - big["variant"]["gbps"] / k["copy_gbps"]) < 1e-6,
      "add_rmsnorm: copy roofline %s" % k["copy_roofline"])
check(abs(k["baseline_us"] - 126.1) < 1e-9 and abs(k["best_us"] - 126.1 / 2.4) < 1e-6, "add_rmsnorm: times")
check(k["steps"] == ["warp-reduce", "block-size=512", "row-cache", "fastmath", "launch-bounds"],
      "add_rmsnorm: rules in order %s" % k["steps"])
check(k["rounds"] == 2 and k["tried"] == 18 and k["accepted"] == 11, "add_rmsnorm: rounds")
v = k["verification"]
check(v["run"] == "confirmation" and len(v["seeds"]) == 1 and len(v["distributions"]) == 4, "add_rmsnorm: run")
check(v["sanitizers"] == {"memcheck": "clean", "racecheck": "clean"}, "add_rmsnorm: sanitizers %s" % v["sanitizers"])
check(all(s["trials"] == 6 and "rtol=0.02" in s["tolerances"] for s in k["shapes"]), "add_rmsnorm: trials")
check(k["geometry"] == {"original": {"grid": "rows", "block": "256", "shmem": None}, "variant": None},
      "add_rmsnorm: geometry %s" % k["geometry"])
check(k["original_text"].startswith("template <typename T>") and "uint4" in k["variant_text"], "add_rmsnorm: texts")
check(len(k["log"]) == 6 and k["log"][-1].startswith("confirmed"), "add_rmsnorm: log")
check(by[("add_rmsnorm", "sm_80")]["device"] == "NVIDIA A100-SXM4-80GB", "add_rmsnorm sm_80")

# Its own launch geometry; an LLM with its transcript; no faster variant.
k = by[("row_softmax", "sm_90")]
check(k["geometry"]["variant"] == {"grid": "(rows + 3) / 4", "block": "128", "shmem": None},
      "row_softmax: the variant's geometry %s" % k["geometry"]["variant"])
k = by[("scale_bias", "sm_90")]
check(k["model"] == "gpt-test" and k["steps"] == [] and k["transcript"][0]["purpose"] == "plan",
      "scale_bias: the model and the transcript")
check(k["geometry"]["variant"] == {"pragma": "#pragma astra launch(grid=(rows*cols + 1023) / 1024, block=256)"},
      "scale_bias: the geometry from the variant's text %s" % k["geometry"]["variant"])
k = by[("layernorm", "sm_90")]
check(k["status"] == "no-faster-variant" and k["speedup"] == 1 and k["variant_text"] is None
      and k["verification"]["run"] == "last" and k["shapes"][0]["variant"] is None
      and abs(k["copy_roofline"] - k["shapes"][0]["baseline"]["gbps"] / k["copy_gbps"]) < 1e-6,
      "layernorm: no faster variant")

# Older and broken entries.
k = by[("legacy_kernel", "sm_90")]
check(k["verification"]["run"] is None and k["verification"]["seeds"] == [1, 2] and k["copy_roofline"] is None
      and k["shapes"][0]["bytes"] is None and abs(k["speedup"] - 1.3) < 1e-9 and k["original_text"] is None
      and k["rounds"] is None, "legacy_kernel: what an entry without the evidence record gives")
check(abs(k["speedup_largest"] - 12.5 / 8.25) < 1e-9, "legacy_kernel: speedup at its one timed shape")
k = by[("entropy", "sm_90")]
check(k["status"] == "failed" and k["speedup"] is None and k["reason"], "entropy: failed")
k = [k for k in rep["kernels"] if k["status"] == "corrupt"][0]
check(k["kernel"] == "?" and "checksum" in k["reason"] and k is rep["kernels"][-1], "the corrupt entry, last")
print("figures as stored: %s" % ("yes" if not failures else "no"))


class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.names, self.cell, self.row_cells, self.in_body = [], None, 0, False

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.row_cells = 0
        elif tag == "td" and self.in_body:
            self.row_cells += 1
            if self.row_cells == 1:
                self.cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.names.append(self.cell)
            self.cell = None
        elif tag == "tbody":
            self.in_body = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


r = Rows()
r.feed(open(sys.argv[3], encoding="utf-8").read())
check(r.names == [k["kernel"] for k in rep["kernels"]], "index order %s" % r.names)
for d in (rep, out):
    d.pop("created")
    d.pop("date")
check(rep == out, "--report-json - writes the same document")
print("the index lists the JSON's kernels in its order: %s" % ("yes" if r.names == [k["kernel"] for k in rep["kernels"]] else "no"))
sys.exit(1 if failures else 0)
