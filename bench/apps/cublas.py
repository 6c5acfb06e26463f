"""bench/apps/cublas.py - the cuBLAS reference of bench/apps/run (issue 29,
item 3): the sizes of an application's matrix products from its headers,
the reference program (bench/apps/cublas-ref.cu) built and run, and the
record's `cublas_*` fields.  See bench/apps/README.md.

A list's `cublas KIND ARG... [type=T]` line names the products (KIND, as
cublas-ref takes it) and their sizes: each ARG an integer expression of the
application's macros (`NI`, `NJ*2`), read from the files its Makefile
compiles (the list's annotated .cu files and the quoted includes they
reach), the conditionals taken as a build without -D options takes them
(PolyBench's STANDARD_DATASET); T is a macro naming the element type
(default DATA_TYPE), or float or double.
"""

import ast
import json
import math
import os
import re
import subprocess

from annotate import annotation_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "cublas-ref.cu")

# KIND -> the number of sizes cublas-ref takes
KINDS = {"gemm": 3, "2mm": 4, "3mm": 5, "syrk": 2, "syr2k": 2, "covariance": 2, "correlation": 2}

NOTE = "cuBLAS reference: "


class CublasError(Exception):
    pass


def parse_line(val, where):
    """`KIND ARG... [type=T]` -> {"kind", "args", "type"}; CublasError names WHERE."""
    words = val.split()
    if not words or words[0] not in KINDS:
        raise CublasError("%s: `cublas KIND SIZE...`: KIND is one of %s, not `%s`" %
                          (where, ", ".join(sorted(KINDS)), words[0] if words else ""))
    typ = "DATA_TYPE"
    args = []
    for w in words[1:]:
        if w.startswith("type="):
            typ = w[5:]
        else:
            args.append(w)
    if len(args) != KINDS[words[0]]:
        raise CublasError("%s: `cublas %s` takes %d sizes, not %d" % (where, words[0], KINDS[words[0]], len(args)))
    for a in args:
        if not re.match(r"^[A-Za-z0-9_+\-*/%()]+$", a):
            raise CublasError("%s: `cublas`: size `%s` is not an expression of macros and numbers" % (where, a))
    return {"kind": words[0], "args": args, "type": typ}


# ------------------------------------------------- the headers' macros

def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


INT = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b")


def _c_expr(expr, macros, where, depth=0):
    """The value of a C integer expression (an #if condition or a size):
    `defined`, macros (their values, themselves expressions; an unknown
    name is 0, as in #if), && || ! and arithmetic.  CublasError names
    WHERE on what it cannot read."""
    if depth > 30:
        raise CublasError("%s: macros nested too deep in `%s`" % (where, expr))
    e = re.sub(r"\bdefined\s*\(\s*(\w+)\s*\)|\bdefined\s+(\w+)",
               lambda m: " 1 " if (m.group(1) or m.group(2)) in macros else " 0 ", expr)
    e = INT.sub(lambda m: str(int(m.group(1), 0)), e)

    def name(m):
        n = m.group(0)
        if n not in macros or macros[n] is None:
            return " 0 "
        return " (%d) " % _c_expr(macros[n], macros, where, depth + 1)
    e = re.sub(r"\b[A-Za-z_]\w*\b", name, e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    e = e.replace("/", "//")
    try:
        tree = ast.parse(e.strip(), mode="eval")
    except SyntaxError:
        raise CublasError("%s: cannot read `%s` as an integer expression" % (where, expr.strip()))
    ok = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.UAdd, ast.BinOp,
          ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE,
          ast.Gt, ast.GtE, ast.Constant)
    for n in ast.walk(tree):
        if not isinstance(n, ok) or (isinstance(n, ast.Constant) and not isinstance(n.value, int)):
            raise CublasError("%s: cannot read `%s` as an integer expression" % (where, expr.strip()))
    try:
        return int(eval(compile(tree, "<expr>", "eval"), {"__builtins__": {}}))
    except ZeroDivisionError:
        raise CublasError("%s: division by zero in `%s`" % (where, expr.strip()))


def read_macros(files, root, defines=None):
    """The object-like macros defined when FILES are compiled in turn
    (each as its own translation unit, quoted includes followed where
    they resolve under ROOT), with DEFINES (-D; nvcc's own predefined
    names are there too): ({name: [(value, "file:line"), ...]}, the files
    read).  Conditionals are followed as the preprocessor does; a name
    with several values has each of them listed."""
    found = {}
    seen_files = []

    def unit(path):
        macros = {"__cplusplus": "201703", "__CUDACC__": "1", "__NVCC__": "1"}
        macros.update(defines or {})

        def walk(p, depth):
            if depth > 20:
                raise CublasError("%s: includes nested too deep" % p)
            try:
                with open(p, encoding="latin-1") as f:
                    text = _strip_comments(f.read().replace("\\\n", " "))
            except OSError as e:
                raise CublasError("%s: %s" % (p, e.strerror))
            rel = os.path.relpath(p, root)
            if rel not in seen_files:
                seen_files.append(rel)
            stack = []   # (enclosing active, a branch taken, this branch active)
            active = True
            for no, line in enumerate(text.split("\n"), 1):
                m = re.match(r"^\s*#\s*(\w+)\s*(.*?)\s*$", line)
                if not m:
                    continue
                d, rest = m.group(1), m.group(2)
                where = "%s:%d" % (rel, no)
                if d in ("if", "ifdef", "ifndef"):
                    if not active:
                        cond = False
                    elif d == "ifdef":
                        cond = rest.split()[0] in macros if rest else False
                    elif d == "ifndef":
                        cond = rest.split()[0] not in macros if rest else False
                    else:
                        cond = bool(_c_expr(rest, macros, where))
                    stack.append((active, cond, cond))
                    active = cond
                elif d == "elif":
                    if not stack:
                        raise CublasError("%s: #elif without #if" % where)
                    outer, taken, _ = stack[-1]
                    cond = outer and not taken and bool(_c_expr(rest, macros, where))
                    stack[-1] = (outer, taken or cond, cond)
                    active = cond
                elif d == "else":
                    if not stack:
                        raise CublasError("%s: #else without #if" % where)
                    outer, taken, _ = stack[-1]
                    stack[-1] = (outer, True, outer and not taken)
                    active = outer and not taken
                elif d == "endif":
                    if not stack:
                        raise CublasError("%s: #endif without #if" % where)
                    active = stack.pop()[0]
                elif not active:
                    continue
                elif d == "define":
                    dm = re.match(r"^(\w+)(\(?)\s*(.*)$", rest)
                    if not dm:
                        continue
                    if dm.group(2):          # function-like: not a size
                        macros[dm.group(1)] = None
                        continue
                    val = dm.group(3).strip()
                    macros[dm.group(1)] = val
                    vals = found.setdefault(dm.group(1), [])
                    if val not in [v for v, _ in vals]:
                        vals.append((val, where))
                elif d == "undef":
                    macros.pop(rest.split()[0] if rest else "", None)
                elif d == "include":
                    im = re.match(r'^"([^"]+)"', rest)
                    if im:
                        q = os.path.normpath(os.path.join(os.path.dirname(p), im.group(1)))
                        if os.path.isfile(q) and not os.path.relpath(q, root).startswith(".."):
                            walk(q, depth + 1)
            if stack:
                raise CublasError("%s: #if without #endif" % rel)
        walk(path, 0)

    for f in files:
        unit(f)
    return found, seen_files


def sizes(spec, app_dir, files, where):
    """SPEC's sizes and type from the app's FILES (under APP_DIR):
    {"kind", "sizes": {ARG: value}, "argv": [values], "type", "macros":
    {name: "value (file:line)"}, "files": [...]}."""
    paths = [os.path.join(app_dir, f) for f in files]
    found, seen = read_macros(paths, app_dir)
    used = {}

    def one(n):
        if n not in found:
            raise CublasError("%s: `cublas %s`: %s is not defined in %s" % (where, spec["kind"], n, ", ".join(seen)))
        if len(found[n]) > 1:
            raise CublasError("%s: `cublas %s`: %s has several values: %s" % (
                where, spec["kind"], n, ", ".join("`%s` at %s" % v for v in found[n])))
        used[n] = "%s (%s)" % found[n][0]
        return found[n][0][0]
    vals = dict((k, v[0][0]) for k, v in found.items() if len(v) == 1)
    argv = []
    for a in spec["args"]:
        for n in re.findall(r"\b[A-Za-z_]\w*\b", a):
            one(n)
        v = _c_expr(a, vals, where)
        if v < 1:
            raise CublasError("%s: `cublas %s`: size %s is %d" % (where, spec["kind"], a, v))
        argv.append(v)
    typ = spec["type"]
    if typ not in ("float", "double"):
        if typ not in found:
            raise CublasError("%s: `cublas`: the element type %s is not defined in %s" % (where, typ, ", ".join(seen)))
        typ = one(typ)
        if typ not in ("float", "double"):
            raise CublasError("%s: `cublas`: element type `%s` (%s): cuBLAS's reference takes float or double" %
                              (where, typ, used[spec["type"]]))
    return {"kind": spec["kind"], "sizes": dict(zip(spec["args"], argv)), "argv": argv, "type": typ,
            "macros": used, "files": seen}


# ------------------------------------------------- the reference program

def build(work, cuda, timeout):
    """Build cublas-ref with the toolkit's nvcc and -lcublas: (path, None)
    or (None, why)."""
    out = os.path.join(work, "cublas-ref")
    os.makedirs(out, exist_ok=True)
    exe = os.path.join(out, "cublas-ref")
    lib = os.path.join(cuda, "lib64")
    cmd = [os.path.join(cuda, "bin", "nvcc"), "-O2", "-o", exe, SOURCE, "-lcublas"]
    if os.path.isdir(lib):
        cmd += ["-Xlinker", "-rpath", "-Xlinker", lib]
    log = os.path.join(out, "build.log")
    stamp = os.path.join(out, "built-with")
    try:
        # a work folder used again: the same command, the program newer than the source
        with open(stamp) as f:
            if f.read() == " ".join(cmd) and os.path.getmtime(exe) >= os.path.getmtime(SOURCE):
                return exe, None
    except OSError:
        pass
    try:
        with open(log, "w") as f:
            f.write("$ %s\n" % " ".join(cmd))
            f.flush()
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        rc = 124
    except OSError as e:
        return None, "cannot run nvcc: %s" % e.strerror
    if rc != 0 or not os.path.isfile(exe):
        with open(log, errors="replace") as f:
            lines = [l.strip() for l in f.read().split("\n")[1:] if l.strip()]
        err = [l for l in lines if re.search(r"error|cannot find|not found", l)]
        return None, "nvcc failed (exit %d): %s" % (rc, (err or lines or ["no output"])[0][:300])
    with open(stamp, "w") as f:
        f.write(" ".join(cmd))
    return exe, None


def run(exe, args, timeout, env=None):
    """cublas-ref ARGS: (its JSON line, None) or (the line or None, why)."""
    try:
        p = subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, "cublas-ref %s: no answer in %d s" % (" ".join(map(str, args)), timeout)
    except OSError as e:
        return None, "cannot run cublas-ref: %s" % e.strerror
    doc = None
    for line in reversed(p.stdout.strip().split("\n")):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if isinstance(d, dict) and "cublas_ref" in d:
            doc = d
            break
    if doc is None:
        return None, "cublas-ref %s (exit %d) printed no result: %s" % (" ".join(map(str, args)), p.returncode,
                                                                       (p.stderr.strip() or "nothing")[:300])
    if doc.get("error"):
        return doc, doc["error"]
    if p.returncode != 0:
        return doc, "exit %d: %s" % (p.returncode, p.stderr.strip()[:300])
    return doc, None


# ------------------------------------------------- the record

FIELDS = ("cublas_s", "cublas_ratio", "cublas_plain_ratio", "cublas")


def fill(rec, app, app_dir, ctx, note):
    """The cuBLAS fields of the record REC of APP (the list's entry; its
    checkout folder APP_DIR).  CTX: "gpu" (name or None), "work", "cuda",
    "timeout", "reps", and the cache of this run ("cublas_exe",
    "cublas_build_error", "cublas_checks").  NOTE(msg) adds to the
    record's notes.  Every field stays null where nothing was timed, and a
    note says why."""
    for k in FIELDS:
        rec[k] = None
    rec.setdefault("notes", [])
    rec["notes"][:] = [n for n in rec["notes"] if not n.startswith(NOTE)]   # a run before this one's
    if not rec.get("matmul"):
        return
    if "cublas" not in app:
        note(NOTE + "none: the list has no `cublas` line for this matrix-product app")
        return
    try:
        where = app.get("cublas_where", app.get("where", "list"))
        spec = parse_line(app["cublas"], where)
        if not os.path.isdir(app_dir):
            raise CublasError("no folder %s in the checkout" % app_dir)
        files = sorted(set(f for f, _ in app.get("order", [])))
        if not files:
            files = sorted(f for f in os.listdir(app_dir) if f.endswith(".cu"))
        s = sizes(spec, app_dir, files, where)
    except CublasError as e:
        note(NOTE + "not timed: %s" % e)
        return
    info = {"program": "bench/apps/cublas-ref.cu", "kind": s["kind"], "sizes": s["sizes"], "type": s["type"],
            "macros": s["macros"], "headers_read": s["files"]}
    rec["cublas"] = info
    desc = "%s %s, %s" % (s["kind"], " ".join("%s=%d" % kv for kv in s["sizes"].items()), s["type"])
    if not ctx.get("gpu"):
        info["reason"] = "no GPU"
        note(NOTE + "not run: no GPU (%s)" % desc)
        return
    if "cublas_exe" not in ctx:
        ctx["cublas_exe"], ctx["cublas_build_error"] = build(ctx["work"], ctx["cuda"], ctx["timeout"])
    if not ctx["cublas_exe"]:
        info["reason"] = "not built: " + ctx["cublas_build_error"]
        note(NOTE + info["reason"])
        return
    checks = ctx.setdefault("cublas_checks", {})
    key = (s["kind"], s["type"])
    if key not in checks:
        checks[key] = run(ctx["cublas_exe"], [s["kind"], "--type", s["type"], "--check"], ctx["timeout"])
    cdoc, why = checks[key]
    if why or not cdoc.get("ok"):
        info["reason"] = "its self-check (--check, against the CPU) failed: %s%s" % (
            why or "not ok", "; " + json.dumps(cdoc)[:400] if cdoc and not cdoc.get("error") else "")
        note(NOTE + info["reason"])
        return
    info["check"] = "cuBLAS against the kernels' loops on the CPU at %s: ok" % (
        " ".join("%s=%d" % kv for kv in cdoc["dims"].items()))
    tdoc, why = run(ctx["cublas_exe"], [s["kind"]] + s["argv"] + ["--type", s["type"], "--reps", ctx.get("reps", 20)],
                    ctx["timeout"])
    if why:
        info["reason"] = "the timed run failed: %s" % why
        note(NOTE + info["reason"])
        return
    for k in ("calls", "best_s", "first_s", "reps", "gflops", "device", "math_mode", "timing"):
        info[k] = tdoc.get(k)
    if tdoc.get("triangle"):
        info["triangle"] = tdoc["triangle"]
    rec["cublas_s"] = tdoc["seconds"]
    for field, ktime in (("cublas_ratio", "kernel_astra_s"), ("cublas_plain_ratio", "kernel_plain_s")):
        if rec.get(ktime):
            rec[field] = round(tdoc["seconds"] / rec[ktime], 4)
        else:
            note(NOTE + "%s null: the record has no %s" % (field, ktime))


# A row of astra-cc --warmup's table: kernel, types, baseline, best (us), ...
TABLE_ROW = re.compile(r"^(\S+)\s+\S+\s+(?:[0-9.]+ us|-)\s+([0-9.]+) us\s+[0-9.]+x\s")
# The kinds whose every annotated kernel is a product cuBLAS times (covariance's and
# correlation's means and deviations are not).
ALL_PRODUCTS = ("gemm", "2mm", "3mm", "syrk", "syr2k")


def kernel_ratio(rec):
    """cublas_kernel_ratio: cuBLAS's time against the sum of the app's
    kernels as the warmup timed them at the app's shape (the verifier's
    median of the substituted variant, or the original's where none
    was kept), both warm: where every annotated kernel is a product and
    the warmup's table names each; else None with why."""
    if not rec.get("cublas_s"):
        return None, "no cuBLAS time"
    if (rec.get("cublas") or {}).get("kind") not in ALL_PRODUCTS:
        return None, "the app has kernels besides the products cuBLAS times"
    best = {}
    for w in ("warmup", "warmup2"):
        for line in ((rec.get(w) or {}).get("said") or "").split("\n"):
            m = TABLE_ROW.match(line)
            if m:
                best[m.group(1)] = float(m.group(2))
    names = [annotation_kernel(a) for a in rec.get("annotations", [])]
    missing = [n for n in names if n not in best]
    if not names or missing:
        return None, "the warmup's table does not time %s" % (", ".join(missing) or "any kernel")
    total = sum(best[n] for n in names) * 1e-6
    return round(rec["cublas_s"] / total, 4), {n: best[n] for n in names}


def summary(apps):
    """The cuBLAS keys of a record's summary, over its matrix-product apps."""
    mm = [a for a in apps if a.get("matmul")]
    out = {"cublas_apps": len(mm)}
    for a in mm:
        ratio, info = kernel_ratio(a)
        a["cublas_kernel_ratio"] = ratio
        if ratio is None:
            a["cublas_kernel_ratio_why"] = info
        else:
            a["kernel_warmup_us"] = info
    for field in ("cublas_ratio", "cublas_plain_ratio", "cublas_kernel_ratio"):
        vals = [(a[field], a["app"]) for a in mm if a.get(field)]
        out[field + "_n"] = len(vals)
        out[field + "_min"] = min(vals)[0] if vals else None
        out[field + "_min_app"] = min(vals)[1] if vals else None
        out[field + "_geomean"] = round(math.exp(sum(math.log(v) for v, _ in vals) / len(vals)), 4) if vals else None
    out["cublas_ratio_at_least_half"] = sum(1 for a in mm if (a.get("cublas_ratio") or 0) >= 0.5)
    out["cublas_kernel_ratio_at_least_half"] = sum(1 for a in mm if (a.get("cublas_kernel_ratio") or 0) >= 0.5)
    return out


METHOD = {"program": "bench/apps/cublas-ref.cu",
          "timed": "the app's matrix products with cuBLAS at its sizes and element type: GEMMs of the whole result "
                   "(syrk, syr2k, covariance, correlation included; the one-triangle SYRK/SYR2K under `triangle`, "
                   "for information); covariance's and correlation's O(M N) steps are not timed",
          "timing": "gettimeofday around the calls and cudaDeviceSynchronize, as POLYBENCH_TIME; one warm-up run, "
                    "then the median of the runs (cublas.reps)",
          "ratio": "cublas_ratio = cublas_s / kernel_astra_s, cublas_plain_ratio = cublas_s / kernel_plain_s: the "
                   "fraction of cuBLAS's speed the app's kernels reach (the issue's bar: >= 0.5); the app times one "
                   "cold launch of each kernel (POLYBENCH_TIME), cuBLAS the median of warm runs",
          "kernel_ratio": "cublas_kernel_ratio = cublas_s / the sum of the app's kernels as astra-cc's warmup timed "
                          "them at the app's captured shape (kernel_warmup_us: the verifier's median, warm, of "
                          "the variant it kept), for apps whose every kernel is a product cuBLAS times: "
                          "warm against warm"}


def context(o, cuda, gpu):
    return {"gpu": gpu, "work": o.work, "cuda": cuda, "timeout": o.timeout, "reps": o.cublas_reps}


def record_keys(doc, ctx, records):
    """The record's cuBLAS keys: how the reference was timed, whether it
    was built, the summary over the matrix-product apps."""
    ref = dict(METHOD)
    ref["reps"] = ctx["reps"]
    if "cublas_exe" in ctx:
        ref["built"] = bool(ctx["cublas_exe"])
        if not ctx["cublas_exe"]:
            ref["reason"] = ctx["cublas_build_error"]
    elif not ctx.get("gpu"):
        ref["built"] = None
        ref["reason"] = "no GPU: not built, not run"
    doc["cublas_reference"] = ref
    doc["summary"] = dict(doc.get("summary") or {}, **summary(records))


def record_only(o, suites, cuda, drv):
    """bench/apps/run --cublas-only RECORD: the cuBLAS fields of RECORD's
    matrix-product apps, from the lists here and the checkouts named (else
    the ones the record names), on this host's GPU, which must be the
    record's.  DRV: the driver's parse_list, list_errors, locate_root,
    gpu_info, say, top and here."""
    say = drv["say"]
    try:
        with open(o.cublas_only) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        say("%s: %s" % (o.cublas_only, getattr(e, "strerror", None) or e))
        return 2
    gpu = None if o.no_gpu else drv["gpu_info"]()[0]
    if gpu and doc.get("device") and doc["device"] != gpu:
        say("%s was made on %s, this host has %s: the ratios would compare two GPUs" %
            (o.cublas_only, doc["device"], gpu))
        return 2
    given = dict((name, (path, lst)) for name, path, lst in suites)
    lists = {}
    for sname in sorted(set(a["suite"] for a in doc.get("apps", []) if a.get("matmul"))):
        recorded = doc.get("suites", {}).get(sname) or {}
        lst = os.path.join(drv["top"], recorded["list"]) if recorded.get("list") else \
            os.path.join(drv["here"], sname + ".list")
        path, lst = given.get(sname, (recorded.get("path"), lst))
        try:
            suite = drv["parse_list"](lst)
        except drv["list_errors"] as e:
            say(str(e))
            return 2
        if not path or not os.path.isdir(path):
            say("%s: no checkout (the record names %s): give it (--%s DIR or --suite %s=DIR)" % (
                sname, path, sname, sname))
            return 2
        lists[sname] = (drv["locate_root"](os.path.abspath(path), suite.get("root")),
                        dict((a["name"], a) for a in suite["apps"]))
    o.work = os.path.abspath(o.work or os.path.join(os.environ.get("TMPDIR", "/tmp"), "astra-apps-%d" % os.getpid()))
    ctx = context(o, cuda, gpu)
    for rec in doc.get("apps", []):
        if not rec.get("matmul"):
            fill(rec, {}, "", ctx, None)   # the fields, null
            continue
        sroot, apps = lists[rec["suite"]]
        app = apps.get(rec["app"])
        rec.setdefault("notes", [])

        def note(msg, rec=rec):
            rec["notes"].append(msg)
            say("%s/%s: %s" % (rec["suite"], rec["app"], msg))
        if app is None:
            fill(rec, {}, sroot, dict(ctx, gpu=None), lambda m: None)
            note(NOTE + "none: %s is not in the list" % rec["app"])
            continue
        fill(rec, app, os.path.join(sroot, app.get("dir", "")), ctx, note)
        if rec["cublas_s"]:
            say("%s/%s: cuBLAS %.6f s: %s of astra-cc's kernel time, %s of plain's" % (
                rec["suite"], rec["app"], rec["cublas_s"], rec["cublas_ratio"], rec["cublas_plain_ratio"]))
    record_keys(doc, ctx, doc.get("apps", []))
    if o.out or o.json_name:
        out = o.out or os.path.dirname(os.path.abspath(o.cublas_only))
        os.makedirs(out, exist_ok=True)
        fn = os.path.join(out, o.json_name or os.path.basename(o.cublas_only))
    else:
        fn = o.cublas_only
    with open(fn, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    sm = doc["summary"]
    say("cuBLAS reference for %d matrix-product apps (%d timed): ratio min %s (%s), geomean %s; record %s" % (
        sm["cublas_apps"], sm["cublas_ratio_n"], sm["cublas_ratio_min"], sm["cublas_ratio_min_app"],
        sm["cublas_ratio_geomean"], fn))
    return 0
