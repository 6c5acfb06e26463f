"""check-hostile.py SITE REPORT.JSON - the report of hostile cache entries, in Chromium.

Every page must parse without error (html5lib, strict), load without a
console message of any level about script, and hold no element or
attribute that could run code: no script, iframe, img, object or embed,
no on* attribute, no javascript: URL, and every svg must be one the
report drew (class "chart").  No JavaScript dialog may open.  The markup
in the entries must read as text: the index shows the kernel name
literally.
"""

import json
import os
import sys

import html5lib
from browse import Browser, Unavailable

DANGER = r"""(() => {
  const all = [...document.querySelectorAll('*')];
  return {
    bad_tags: all.filter(e => ['script','iframe','img','object','embed','frame','base','form'].includes(e.localName)).map(e => e.localName),
    handlers: all.filter(e => [...e.attributes].some(a => a.name.toLowerCase().startsWith('on'))).map(e => e.outerHTML.slice(0, 80)),
    js_urls: all.filter(e => [...e.attributes].some(a => /^\s*javascript:/i.test(a.value))).map(e => e.localName),
    foreign_svgs: [...document.querySelectorAll('svg')].filter(s => !(s.getAttribute('class') || '').startsWith('chart')).length,
    metas: [...document.querySelectorAll('meta[http-equiv]')].length,
    text: document.body.innerText,
  };
})()"""


def main():
    site, report = sys.argv[1], json.load(open(sys.argv[2]))
    failures = 0
    pages = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(site) for f in fs if f.endswith(".html"))
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for p in pages:
        with open(p, "rb") as f:
            try:
                parser.parse(f, transport_encoding="utf-8")
            except html5lib.html5parser.ParseError as e:
                print("FAILED: %s: HTML parse error: %s" % (p, e))
                failures += 1
    print("pages: %d, HTML parse errors: %d" % (len(pages), failures))
    names = [k["kernel"] for k in report["kernels"]]
    with Browser() as b:
        texts = {}
        for p in pages:
            page = b.open("file://" + os.path.abspath(p))
            d = page.eval(DANGER)
            texts[os.path.relpath(p, site)] = d["text"]
            problems = [x for x in ("bad_tags", "handlers", "js_urls") if d[x]]
            if problems or d["foreign_svgs"] or d["metas"] != 1 or page.errors:
                failures += 1
                print("FAILED: %s: %s" % (p, {x: d[x] for x in problems} or (d["foreign_svgs"], page.errors)))
            dialogs = [e for e in b.take_events(page.s) if e["method"] == "Page.javascriptDialogOpening"]
            if dialogs:
                failures += 1
                print("FAILED: %s opened a dialog" % p)
            page.close()
    print("elements that could run code: %s" % ("none" if not failures else "some"))
    index = texts["index.html"]
    for literal in ('<script>alert(1)</script>', 'a&b'):
        if literal not in index or literal not in names:
            failures += 1
            print("FAILED: %r does not read as text on the index" % literal)
    bad = [n for n in names if n.startswith("bad")][0]
    kpage = [t for t in texts.values() if "alert(13)" in t]
    print("the markup reads as text: %s" % ("yes" if '<script>alert(1)</script>' in index and kpage else "no"))
    print("invalid UTF-8 and control bytes shown as U+FFFD: %s" %
          ("yes" if "bad\ufffd\ufffdname\ufffd" in index else "no: %r" % bad))
    if "bad\ufffd\ufffdname\ufffd" not in index:
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Unavailable as e:
        print(str(e), file=sys.stderr)
        sys.exit(77)
