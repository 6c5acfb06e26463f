"""check-site.py SITE KERNELS.TXT - astra-cc's report, checked in a real browser.

Every page of SITE (index.html and each page it links to) is
  - parsed by html5lib in strict mode: a page with any HTML parse error
    (the WHATWG parser's own list) fails;
  - loaded in headless Chromium (testsuite/lib/browse.py): any console
    error, exception, failed load or Content-Security-Policy report fails;
    the rendered DOM must be in no-quirks mode, UTF-8, with one h1, unique
    ids, no script element, no inline event handler, no javascript: URL,
    and every chart (svg) must have a size and marks in it;
  - link-checked: every href is a relative file:// link to a page that
    exists, and a #fragment names an element of the page it points to.
The index must list every kernel named in KERNELS.TXT (one row each).
Screenshots of the index and of the first kernel page go to the current
directory (the test's scratch directory) and must be several times the
size of a screenshot of an empty page: the page shows content.

Prints what it checked, one fact a line; exit status 1 on any failure.
"""

import os
import sys
import urllib.parse

import html5lib
from browse import Browser, Unavailable

FACTS = r"""(() => {
  const all = [...document.querySelectorAll('*')];
  const ids = all.filter(e => e.id).map(e => e.id);
  const handlers = all.filter(e => [...e.attributes].some(a => a.name.toLowerCase().startsWith('on'))).length;
  const svgs = [...document.querySelectorAll('svg')].map(s => {
    const r = s.getBoundingClientRect();
    return {w: r.width, h: r.height, cls: s.getAttribute('class'),
            marks: s.querySelectorAll('.mark, .bar').length};
  });
  return {
    mode: document.compatMode, charset: document.characterSet, title: document.title,
    h1: document.querySelectorAll('h1').length, scripts: document.querySelectorAll('script').length,
    handlers: handlers, ids: ids, links: [...document.querySelectorAll('a[href]')].map(a => a.href),
    svgs: svgs, csp: !!document.querySelector('meta[http-equiv="Content-Security-Policy"]'),
    sections: [...document.querySelectorAll('section')].map(s => s.id),
    text: document.body.innerText.length,
  };
})()"""

ROWS = r"""[...document.querySelectorAll('table.kernels tbody tr')].map(tr =>
  [...tr.cells].map(td => td.textContent.trim()))"""

failures = []


def fail(msg):
    failures.append(msg)
    print("FAILED: " + msg)


def main():
    site = os.path.abspath(sys.argv[1])
    expected = [l.strip() for l in open(sys.argv[2]) if l.strip()]
    index = os.path.join(site, "index.html")

    # 1. HTML validity, by the WHATWG parsing algorithm.
    pages = [os.path.join(dp, f) for dp, _, fs in os.walk(site) for f in fs if f.endswith(".html")]
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    bad = 0
    for p in sorted(pages):
        try:
            with open(p, "rb") as f:
                parser.parse(f, transport_encoding="utf-8")
        except html5lib.html5parser.ParseError as e:
            bad += 1
            fail("%s: HTML parse error: %s" % (os.path.relpath(p, site), e))
    print("html5lib strict parse: %d pages, %d with errors" % (len(pages), bad))

    with Browser() as b:
        # 2. The index, and every page it links to.
        blank = os.path.abspath("blank.html")
        with open(blank, "w") as f:
            f.write("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>blank</title></head><body></body></html>")
        p = b.open("file://" + blank)
        blank_size = p.screenshot("blank.png")
        p.close()

        todo, seen, facts = [index], set(), {}
        links = []
        while todo:
            path = todo.pop(0)
            if path in seen:
                continue
            seen.add(path)
            page = b.open("file://" + path)
            rel = os.path.relpath(path, site)
            for e in page.errors:
                fail("%s: %s" % (rel, e))
            f = page.eval(FACTS)
            facts[path] = f
            if f["mode"] != "CSS1Compat":
                fail("%s: rendered in %s mode" % (rel, f["mode"]))
            if f["charset"] != "UTF-8":
                fail("%s: charset %s" % (rel, f["charset"]))
            if f["h1"] != 1:
                fail("%s: %d h1 elements" % (rel, f["h1"]))
            if f["scripts"] or f["handlers"]:
                fail("%s: %d script elements, %d inline handlers" % (rel, f["scripts"], f["handlers"]))
            if not f["csp"]:
                fail("%s: no Content-Security-Policy" % rel)
            if len(set(f["ids"])) != len(f["ids"]):
                fail("%s: duplicate ids" % rel)
            for s in f["svgs"]:
                if s["w"] < 100 or s["h"] < 50 or not s["marks"]:
                    fail("%s: an empty chart (%s)" % (rel, s))
            if path == index:
                rows = page.eval(ROWS)
            for href in f["links"]:
                u = urllib.parse.urlparse(href)
                links.append((rel, href, u))
                if u.scheme == "file" and u.path.endswith(".html") and os.path.exists(u.path):
                    todo.append(os.path.normpath(u.path))
            page.close()
        print("pages loaded in Chromium: %d, console errors: %d" % (len(seen),
                                                              sum(1 for x in failures if "log error" in x or "console" in x or "exception" in x)))

        # 3. Links.
        broken = 0
        for rel, href, u in links:
            if u.scheme != "file":
                broken += 1
                fail("%s: link %s leaves the report" % (rel, href))
                continue
            target = os.path.normpath(urllib.parse.unquote(u.path))
            if not os.path.exists(target) or not target.startswith(site + os.sep):
                broken += 1
                fail("%s: link %s does not resolve" % (rel, href))
                continue
            if u.fragment and u.fragment not in facts.get(target, {"ids": []})["ids"]:
                broken += 1
                fail("%s: link %s: no element #%s there" % (rel, href, u.fragment))
        print("links: every one resolves: %s" % ("yes" if not broken else "no"))
        kernel_pages = sorted(p for p in seen if p != index)
        unlinked = [p for p in pages if os.path.normpath(p) not in seen]
        if unlinked:
            fail("pages no link reaches: %s" % unlinked)

        # 4. The index lists every kernel.
        names = [r[0] for r in rows]
        missing = [k for k in set(expected) if names.count(k) != expected.count(k)]
        if missing:
            fail("the index does not list %s as often as expected (rows: %s)" % (missing, names))
        if any(len(r) != 12 for r in rows):
            fail("index rows without 12 cells: %s" % [r for r in rows if len(r) != 12])
        print("index rows: %d, every expected kernel listed: %s" % (len(rows), "yes" if not missing else "no"))

        # 5. Screenshots that show something.
        p = b.open("file://" + index)
        size_index = p.screenshot("index.png")
        p.close()
        kpath = os.path.normpath(urllib.parse.urlparse(
            [l for l in facts[index]["links"] if "/kernels/" in l][0]).path)
        p = b.open("file://" + kpath)
        size_kernel = p.screenshot("kernel.png", full_page=True)
        p.close()
        for name, size in (("index.png", size_index), ("kernel.png", size_kernel)):
            if size < 4 * blank_size or size < 20000:
                fail("%s is %d bytes, an empty page %d: blank?" % (name, size, blank_size))
        print("screenshots index.png and kernel.png: more than 4 times an empty page's size: %s" %
              ("yes" if size_index >= 4 * blank_size and size_kernel >= 4 * blank_size else "no"))

    with open("facts.txt", "w") as f:
        for path in sorted(facts):
            f.write("%s %s\n" % (os.path.relpath(path, site), facts[path]["sections"]))
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Unavailable as e:
        print(str(e), file=sys.stderr)
        sys.exit(77)
