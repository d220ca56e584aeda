#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a perf kmem diff against the two traces' own perf kmem stat.

  kmem_diff_check.py same DIFF.json
      a trace against itself: every number and row in both, every delta 0
  kmem_diff_check.py pairs DIFF.json OLD.json NEW.json
      every number of the two stat --caller --json documents, and every
      row of their tables summed by name, is in the diff, its old and new
      the documents' own, its delta new - old and its percentage of old
  kmem_diff_check.py text DIFF.txt OLD.json NEW.json
      the summary lines of the text diff print those numbers as stat
      prints its own: commas, '+'/'-' deltas, '.' for no change
  kmem_diff_check.py sorted DIFF.json TABLE MEMBER
      the rows of TABLE come by the size of MEMBER's delta, largest first
  kmem_diff_check.py schema SCHEMA DIFF.json...
      each document is strict JSON (no duplicate key, no NaN) and valid
      by the JSON Schema (draft 2020-12); exit 2 without python3-jsonschema

Prints one line per failure and "ok: ..." when there is none; exits 1 on
a failure.  Works from the stat documents' layout alone, not from perf
kmem's code.
"""
import json
import sys

def name_of(callsite):
    return callsite["name"] or callsite["address"]


def gfp_of(gfp):
    return "|".join(gfp["names"]) if gfp["names"] else str(gfp["value"])


def page_key(r):
    return (name_of(r["callsite"]), r["order"], r["migration_type"]["name"],
            gfp_of(r["gfp"]))


def frag_key(r):
    return (name_of(r["callsite"]), r["requested"]["name"],
            r["fallback"]["name"])


def cell_key(r):
    return (r["requested"]["name"], r["fallback"]["name"])


def numbers_of(r, skip):
    """A row's numbers, by dotted path, but its names."""
    out = {}

    def walk(v, path):
        if isinstance(v, bool) or path.split(".")[0] in skip:
            return
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, path + "." + k if path else k)
        elif isinstance(v, int):
            out[path] = v
    walk(r, "")
    return out


# path of the rows in a stat document, diff table name, key, names skipped
TABLES = (
    ("page.callers.rows", "page.callers", page_key,
     ("callsite", "order", "migration_type", "gfp")),
    ("page.fragmentation.callers.rows", "page.fragmentation.callers",
     frag_key, ("callsite", "requested", "fallback")),
    ("page.fragmentation.failures.rows", "page.fragmentation.failures",
     page_key, ("callsite", "order", "migration_type", "gfp")),
    ("page.fragmentation.matrix", "page.fragmentation.matrix", cell_key,
     ("requested", "fallback")),
    ("slab.callers.rows", "slab.callers", lambda r: (name_of(r["callsite"]),),
     ("callsite",)),
    ("slab.caches.rows", "slab.caches", lambda r: (r["cache"],), ("cache",)),
    ("page.stalls.by_order.rows", "page.stalls.by_order",
     lambda r: (r["order"],), ("order",)),
    ("page.stalls.histogram.rows", "page.stalls.histogram",
     lambda r: (r["order"], r["lo_us"], r["hi_us"]),
     ("order", "lo_us", "hi_us")),
    ("page.stalls.compaction_ends.rows", "page.stalls.compaction_ends",
     lambda r: (r["name"], r["value"]), ("name", "value")),
    ("page.stalls.wakeups.rows", "page.stalls.wakeups",
     lambda r: (r["order"],), ("order",)),
    ("page.stalls.callers.rows", "page.stalls.callers", page_key,
     ("callsite", "order", "migration_type", "gfp")),
    ("page.stalls.memcg_callers.rows", "page.stalls.memcg_callers",
     lambda r: (name_of(r["callsite"]), gfp_of(r["gfp"])),
     ("callsite", "gfp")),
)
SKIP = {"schema", "page.grid", "page.allocs", "slab.allocs"} | \
    {t[0] for t in TABLES}

failures = []


def fail(msg):
    if len(failures) < 30:
        print("FAIL " + msg)
    failures.append(msg)


def get(doc, path):
    for k in path.split("."):
        if not isinstance(doc, dict) or k not in doc:
            return None
        doc = doc[k]
    return doc


def scalars(doc):
    """Every number of a stat document outside its tables, by path."""
    out = {}

    def walk(v, path):
        if path in SKIP:
            return
        if isinstance(v, bool):
            return
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, path + "." + k if path else k)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, "%s.%d" % (path, i))
        elif isinstance(v, int):
            out[path] = v
    walk(doc, "")
    return out


def percent(old, new):
    if old is None or new is None or (old == 0 and new != 0):
        return None
    return 0.0 if old == 0 else 100.0 * (new - old) / old


def check_value(what, v, old, new):
    want = {"old": old, "new": new,
            "delta": None if old is None or new is None else new - old}
    for k, w in want.items():
        if v.get(k) != w:
            fail("%s: %s %r, want %r" % (what, k, v.get(k), w))
    p, w = v.get("delta_percent"), percent(old, new)
    if (p is None) != (w is None) or (w is not None and abs(p - w) > 0.051):
        fail("%s: delta_percent %r, want %r" % (what, p, w))


def summed(rows, key, skip):
    out = {}
    for r in rows or []:
        acc = out.setdefault(key(r), {})
        for k, v in numbers_of(r, skip).items():
            acc[k] = acc.get(k, 0) + v
    return out


def diff_row_key(row, identity):
    return tuple(row[k] for k in identity)


def check_table(diff, docs, path, name, key, skip):
    rows = [get(d, path) for d in docs]
    present = [r is not None for r in rows]
    table = diff["tables"].get(name)
    if not any(present):
        if table:
            fail("%s: in the diff, in neither trace" % name)
        return 0
    if not table:
        fail("%s: not in the diff" % name)
        return 0
    if [table["old"], table["new"]] != present:
        fail("%s: old/new %r, want %r" % (name, [table["old"], table["new"]],
                                          present))
    sums = [summed(r, key, skip) for r in rows]
    # The members each trace's rows have; with no rows, any.
    had = [None if not r else set(m for v in s.values() for m in v)
           for r, s in zip(rows, sums)]
    keys = set(sums[0]) | set(sums[1])
    got = {diff_row_key(r, table["identity"]): r for r in table["rows"]}
    if set(got) != keys or table["nr_rows"] != len(keys):
        fail("%s: rows %d (%d shown), want %d; missing %s, extra %s" % (
            name, table["nr_rows"], len(got), len(keys),
            sorted(keys - set(got))[:3], sorted(set(got) - keys)[:3]))
    for k in keys & set(got):
        row = got[k]
        want_in = "both" if all(k in s for s in sums) else \
            "gone" if k in sums[0] else "new"
        if row["in"] != want_in:
            fail("%s %r: in %s, want %s" % (name, k, row["in"], want_in))
        members = set(sums[0].get(k, {})) | set(sums[1].get(k, {}))
        for m in members:
            side = [s.get(k, {}).get(m, 0)
                    if present[i] and (had[i] is None or m in had[i])
                    else None for i, s in enumerate(sums)]
            check_value("%s %r %s" % (name, k, m), row.get(m, {}), *side)
    return len(keys)


def check_grid(diff, docs):
    grids = [get(d, "page.grid") for d in docs]
    if not any(grids):
        return 0
    cols = [c["name"] for c in (grids[0] or grids[1])["columns"]]
    got = {r["order"]: r for r in diff["tables"]["page.grid"]["rows"]}
    cells = 0
    orders = set()
    counts = []
    for g in grids:
        c = {r["order"]: r["counts"] for r in g["rows"]} if g else None
        counts.append(c)
        orders |= set(c or {})
    for order in orders:
        for i, col in enumerate(cols):
            side = [c.get(order, [0] * 4)[i] if c is not None else None
                    for c in counts]
            check_value("grid order %d %s" % (order, col),
                        got.get(order, {}).get(col, {}), *side)
            cells += 1
    return cells


def pairs(diff, old, new):
    docs = (old, new)
    nums = [scalars(d) for d in docs]
    paths = set(nums[0]) | set(nums[1])
    if set(diff["numbers"]) != paths:
        fail("numbers: missing %s, extra %s" % (
            sorted(paths - set(diff["numbers"]))[:5],
            sorted(set(diff["numbers"]) - paths)[:5]))
    for p in paths & set(diff["numbers"]):
        check_value(p, diff["numbers"][p], nums[0].get(p), nums[1].get(p))
    cells = check_grid(diff, docs)
    rows = sum(check_table(diff, docs, *t) for t in TABLES)
    for side, doc in (("old", old), ("new", new)):
        if diff[side]["path"] != doc["perf_data"]["path"]:
            fail("%s path %s, want %s" % (side, diff[side]["path"],
                                          doc["perf_data"]["path"]))
    return "%d numbers, %d grid cells, %d rows" % (len(paths), cells, rows)


def same(diff):
    n = rows = 0
    for p, v in diff["numbers"].items():
        n += 1
        if v["old"] is None or v["delta"] != 0 or v["old"] != v["new"]:
            fail("%s: %r" % (p, v))
    for name, t in diff["tables"].items():
        if t["nr_new"] or t["nr_gone"] or t["nr_both"] != t["nr_rows"]:
            fail("%s: %d new, %d gone" % (name, t["nr_new"], t["nr_gone"]))
        for r in t["rows"]:
            rows += 1
            if r["in"] != "both":
                fail("%s: row %r in %s" % (name, r, r["in"]))
            for k, v in r.items():
                if isinstance(v, dict) and (v["delta"] != 0 or
                                            v["old"] is None):
                    fail("%s: %s %r" % (name, k, v))
    if not n or not rows:
        fail("nothing compared: %d numbers, %d rows" % (n, rows))
    return "%d numbers and %d rows, every delta 0" % (n, rows)


def commas(n):
    return "-" if n is None else "{:,}".format(n)


def delta_text(old, new):
    if old is None or new is None:
        return "-"
    if old == new:
        return "."
    return ("+" if new > old else "-") + "{:,}".format(abs(new - old))


def percent_text(old, new):
    if old is None or new is None:
        return "-"
    if old == new:
        return "."
    if not old:
        return "new"
    p = 100.0 * (new - old) / old
    if -1000 < p < 1000:
        return "%+.1f%%" % p
    return ("+" if p > 0 else "-") + "{:,}".format(int(abs(p))) + "%"


LINES = (
    ("Pages allocated+freed:", "page.summary.allocated_freed"),
    ("Pages freed-only:", "page.summary.freed_only"),
    ("Page allocation failures:", "page.summary.failures"),
    ("Total frees:", "page.summary.total_frees"),
    ("Total allocations:", "slab.summary.total_allocations"),
    ("Ping-pong frees (on another CPU):", "slab.summary.pingpong"),
    ("Allocated+freed:", "slab.summary.allocated_freed"),
)


def section(lines, title):
    """The lines under a title, up to the next title (a line of '=')."""
    if " " + title not in lines:
        return []
    start = lines.index(" " + title) + 2
    for i in range(start, len(lines) - 1):
        if lines[i + 1].startswith(" ==="):
            return lines[start:i]
    return lines[start:]


def text(lines, old, new):
    n = 0
    for label, path in LINES:
        title = "SUMMARY (%s allocator)" % path.split(".")[0]
        got = [l for l in section(lines, title)
               if l.startswith(" " + label)]
        if get(old, path) is None and get(new, path) is None:
            continue
        if len(got) != 1:
            fail("text: %d lines '%s'" % (len(got), label))
            continue
        cells = got[0][len(label) + 1:].split()
        want = []
        for k in ("count", "bytes"):
            o, w = get(old, path + "." + k), get(new, path + "." + k)
            want += [commas(o), commas(w), delta_text(o, w),
                     percent_text(o, w)]
        if cells != want:
            fail("text: '%s' %s, want %s" % (label, cells, want))
        n += 1
    if not n:
        fail("text: no summary line checked")
    return "%d summary lines as stat prints them" % n


def is_sorted(diff, table, member):
    rows = diff["tables"][table]["rows"]
    sizes = [abs((r[member]["new"] or 0) - (r[member]["old"] or 0))
             for r in rows]
    if sizes != sorted(sizes, reverse=True):
        fail("%s: not by |%s delta|: %s" % (table, member, sizes[:10]))
    if len(rows) < 2:
        fail("%s: %d rows, too few to tell an order" % (table, len(rows)))
    return "%d rows of %s by |%s delta|" % (len(rows), table, member)


def strict(path):
    def pairs(kv):
        keys = [k for k, _ in kv]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate key in %s" % keys)
        return dict(kv)

    def constant(c):
        raise ValueError("%s is not JSON" % c)
    return json.load(open(path), object_pairs_hook=pairs,
                     parse_constant=constant)


def schema(path, docs):
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        print("skip: python3-jsonschema is not installed")
        sys.exit(2)
    s = json.load(open(path))
    Draft202012Validator.check_schema(s)
    v = Draft202012Validator(s)
    for d in docs:
        try:
            doc = strict(d)
        except ValueError as e:
            fail("%s: %s" % (d, e))
            continue
        for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path))[:5]:
            fail("%s: /%s: %s" % (d, "/".join(map(str, e.path)),
                                  e.message[:100]))
    return "%d documents valid" % len(docs)


def main():
    load = lambda p: json.load(open(p))
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "same":
        what = same(load(args[0]))
    elif cmd == "pairs":
        what = pairs(*map(load, args))
    elif cmd == "text":
        what = text(open(args[0]).read().splitlines(), load(args[1]),
                    load(args[2]))
    elif cmd == "schema":
        what = schema(args[0], args[1:])
    elif cmd == "sorted":
        what = is_sorted(load(args[0]), args[1], args[2])
    else:
        sys.exit(__doc__)
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)
    print("ok: " + what)


if __name__ == "__main__":
    main()
