"""bench/apps/annotate.py - where bench/apps/run puts an application's
pragma lines: each listed kernel's definition found in the text (not its
prototype, a comment or a string; above `template` for a template), the
lines inserted, and astra-cc's own reader asked to confirm them.  See
bench/apps/README.md.  bench/corpus/annotate uses it too (through run).
"""

import json
import os
import re
import subprocess


class ListError(Exception):
    pass


def mask_code(text):
    """The text with comments, string and character literals blanked
    (newlines kept), so that a search sees only code."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def blank_preprocessor(masked):
    lines = masked.split("\n")
    res = []
    cont = False
    for ln in lines:
        if cont or ln.lstrip().startswith("#"):
            cont = ln.rstrip().endswith("\\")
            res.append(" " * len(ln))
        else:
            cont = False
            res.append(ln)
    return "\n".join(res)


def find_kernel_definitions(text, name):
    """Offsets of the line starts of the declarations that define
    __global__ function NAME (template heads included)."""
    code = blank_preprocessor(mask_code(text))
    found = []
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), code):
        # the declaration's start: after the previous ; { } (or the file's start)
        start = max(code.rfind(";", 0, m.start()), code.rfind("{", 0, m.start()),
                    code.rfind("}", 0, m.start()))
        head = code[start + 1:m.start()]
        if not re.search(r"\b__global__\b", head):
            continue
        # past the parameter list: a definition has `{` next
        depth, j = 0, m.end() - 1
        while j < len(code):
            if code[j] == "(":
                depth += 1
            elif code[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        rest = code[j + 1:]
        nxt = re.match(r"\s*(?:__launch_bounds__\s*\([^)]*\)\s*)?(\S)", rest)
        if not nxt or nxt.group(1) != "{":
            continue
        k = start + 1
        while k < m.start() and code[k].isspace():
            k += 1
        found.append(text.rfind("\n", 0, k) + 1)
    return found


def annotate_text(text, name, lines, path="FILE"):
    """Insert LINES above the definition of kernel NAME; returns the new
    text.  Exactly one definition must be found; an existing `#pragma
    astra` above it is an error unless it is exactly LINES (then the text
    is returned unchanged: the insertion is idempotent)."""
    defs = find_kernel_definitions(text, name)
    if len(defs) != 1:
        raise ListError("%s: kernel %s: %s definition%s of a __global__ function found" %
                        (path, name, len(defs) or "no", "" if len(defs) == 1 else "s"))
    at = defs[0]
    above = text[:at].split("\n")[:-1]
    astra_above = []
    for ln in reversed(above):
        if ln.strip().startswith("#pragma astra"):
            astra_above.insert(0, ln.strip())
        else:
            break
    if astra_above:
        if astra_above == [l.strip() for l in lines]:
            return text
        lineno = text.count("\n", 0, at) + 1
        raise ListError("%s:%d: kernel %s already has `#pragma astra` lines" % (path, lineno, name))
    return text[:at] + "".join(l + "\n" for l in lines) + text[at:]


def annotate_app(appdir, app):
    """Insert every annotation of APP in the files under APPDIR; returns
    [(file, kernel, line number of the first pragma, lines)]."""
    done = []
    texts = {}
    for (fname, kname) in app["order"]:
        path = os.path.join(appdir, fname)
        if path not in texts:
            try:
                with open(path, encoding="latin-1") as f:
                    texts[path] = f.read()
            except OSError as e:
                raise ListError("%s: %s (kernel %s)" % (path, e.strerror, kname))
        texts[path] = annotate_text(texts[path], kname, app["kernels"][(fname, kname)], path)
    for path, text in texts.items():
        with open(path, "w", encoding="latin-1") as f:
            f.write(text)
    for (fname, kname) in app["order"]:
        text = texts[os.path.join(appdir, fname)]
        at = find_kernel_definitions(text, kname)[0]
        n = len(app["kernels"][(fname, kname)])
        first = text.count("\n", 0, at) + 1 - n
        done.append((fname, kname, first, app["kernels"][(fname, kname)]))
    return done


def annotation_line(f, ln, kernel, lines):
    """A record's line for one annotated kernel: "FILE:LINE KERNEL: PRAGMA / PRAGMA"."""
    return "%s:%d %s: %s" % (f, ln, kernel, " / ".join(lines))


def annotation_kernel(line):
    """The kernel an annotation_line names."""
    return line.split()[1].rstrip(":")


def confirm_annotations(astra, env, appdir, done):
    """astra-cc's own reader (front/, `--list-kernels --json`) must see
    each inserted pragma on its kernel: the insertion above finds the
    definitions in text (astra-cc lists annotated kernels only), this
    checks it.  Returns a list of problems."""
    problems = []
    seen = {}
    for fname in sorted(set(f for f, _, _, _ in done)):
        p = subprocess.run([astra, "--list-kernels", "--json", fname], cwd=appdir, env=env,
                           capture_output=True, text=True)
        try:
            d = json.loads(p.stdout)
        except ValueError:
            problems.append("%s: astra-cc --list-kernels gave no JSON (%s)" % (fname, p.stderr.strip()[:200]))
            continue
        for f in d.get("files", []):
            diags = {}
            for g in f.get("diagnostics", []):
                diags.setdefault((g.get("file"), g.get("line")), []).append(g.get("message"))
            for k in f.get("kernels", []):
                pl = (k.get("pragma") or {}).get("line")
                seen[(k.get("file"), k.get("name"))] = pl, k.get("status"), diags.get((k.get("file"), pl), [])
    for fname, kname, first, _ in done:
        got = seen.get((fname, kname))
        if not got:
            problems.append("%s: astra-cc does not see kernel %s annotated" % (fname, kname))
        elif got[0] != first:
            problems.append("%s: astra-cc sees the pragma of %s at line %s, not %d" % (fname, kname, got[0], first))
        elif got[1] != "ok":
            problems.append("%s:%d: kernel %s: astra-cc says %s%s" % (fname, first, kname, got[1],
                                                                     "".join(": " + m for m in got[2])))
    return problems
