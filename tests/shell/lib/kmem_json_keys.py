#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Numbers of a perf kmem stat --json document, in the line formats the
shell tests compare with their own counts of perf script output.

  kmem_json_keys.py page-summary FILE    S/P/G lines of the page summary and grid
  kmem_json_keys.py page-callers FILE    callsite, order, type, gfp, hits rows
  kmem_json_keys.py slab-summary FILE    KEY VALUE lines of the slab summary
  kmem_json_keys.py slab-callers FILE    callsite, hits, bytes_alloc rows
  kmem_json_keys.py cross-node FILE      KEY VALUE lines of cross_node
  kmem_json_keys.py frag FILE            frag.* KEY VALUE lines, as
                                         kmem_frag_count.py prints them
"""
import json
import sys

COLUMNS = ["Unmovable", "Reclaimable", "Movable", "Special"]


def page_summary(doc):
    page = doc["page"]
    s = page["summary"]
    for name, key in (("freed", "allocated_freed"), ("alloc_only", "allocated_only"),
                      ("free_only", "freed_only"), ("fail", "failures"),
                      ("alloc", "total_allocations"), ("free", "total_frees")):
        print("S %s %d %d" % (name, s[key]["count"], s[key]["bytes"]))
    for name, key in (("live", "still_live"), ("dropped", "allocated_again")):
        c = s["allocated_only"][key]
        print("S %s %d %d" % (name, c["count"], c["bytes"]))
    for name, key in (("order_differs", "frees_of_another_order"),
                      ("bad_migtype", "unknown_migration_types"),
                      ("bad_order", "ignored_bad_order")):
        if s[key]:
            print("P %s %d" % (name, s[key]))
    lost = doc["perf_data"]["events_lost"]
    if lost:
        print("P lost %d" % lost)
    rows = page["grid"]["rows"]
    for row in rows:
        for col, n in zip(COLUMNS, row["counts"]):
            print("G %d\t%s\t%d" % (row["order"], col, n))
    print("P grid_orders %d" % len(rows))


def page_callers(doc):
    for r in doc["page"]["callers"]["rows"]:
        print("%s\t%d\t%s\t%s\t%d" % (r["callsite"]["name"] or r["callsite"]["address"],
                                      r["order"], r["migration_type"]["name"],
                                      "|".join(r["gfp"]["names"]), r["hits"]))


def slab_summary(doc):
    s = doc["slab"]["summary"]
    for key in ("total_allocations", "allocated_freed", "failures", "pingpong"):
        print("%s %d %d" % (key, s[key]["count"], s[key]["bytes"]))
    for key in ("still_live", "allocated_again"):
        c = s["allocated_only"][key]
        print("%s %d %d" % (key, c["count"], c["bytes"]))
    print("bytes_requested %d" % s["bytes_requested"])
    for key, value in s["frees"].items():
        print("frees_%s %d" % (key, value))
    if s["cross_node"] is not None:
        print("cross_node %d %d" % (s["cross_node"]["count"], s["cross_node"]["bytes"]))


def slab_callers(doc):
    for r in doc["slab"]["callers"]["rows"]:
        print("%s\t%d\t%d\t%d" % (r["callsite"]["name"] or r["callsite"]["address"],
                                  r["hits"], r["bytes_alloc"], r["bytes_req"]))


def cross_node(doc):
    x = doc["page"]["cross_node"]
    print("status %s" % x["status"])
    if x["status"] != "analysed":
        return
    for key in ("allocations_remote", "frees_remote", "freed_on_other_node"):
        if x[key] is not None:
            print("%s %d %d" % (key, x[key]["count"], x[key]["bytes"]))
    for i, src in enumerate(x["nodes"]):
        for j, dst in enumerate(x["nodes"]):
            print("matrix.%d.%d %d" % (src, dst, x["matrix"][i][j]))


def frag(doc):
    f = doc["page"]["fragmentation"]
    if f["status"] != "analysed":
        print("frag.status %s" % f["status"])
        return
    print("frag.fallbacks %d" % f["fallbacks"]["count"])
    print("frag.fallbacks.bytes %d" % f["fallbacks"]["bytes"])
    for cls, c in f.get("classes", {}).items():
        print("frag.%s %d" % (cls, c["count"]))
        print("frag.%s.bytes %d" % (cls, c["bytes"]))
    print("frag.severe %d" % f["severe"]["count"])
    print("frag.severe.bytes %d" % f["severe"]["bytes"])
    for cell in f["matrix"]:
        key = "frag.matrix.%s.%s" % (cell["requested"]["name"], cell["fallback"]["name"])
        print("%s.fallbacks %d" % (key, cell["fallbacks"]["count"]))
        for cls in ("claimed", "converted", "polluted"):
            if cell.get(cls):
                print("%s.%s %d" % (key, cls, cell[cls]))
    callers = {}
    for r in f["callers"]["rows"]:
        name = r["callsite"]["name"] or r["callsite"]["address"]
        c = callers.setdefault(name, [0, 0, 0, 0, 0])
        c[0] += r["fallbacks"]["count"]
        c[1] += r["fallbacks"]["bytes"]
        for i, cls in enumerate(("claimed", "converted", "polluted")):
            c[2 + i] += r.get(cls, 0)
    for name, c in callers.items():
        print("frag.caller.%s.fallbacks %d" % (name, c[0]))
        print("frag.caller.%s.bytes %d" % (name, c[1]))
        if "classes" in f:
            print("frag.caller.%s.fragmenting %d" % (name, c[3] + c[4]))
    pinned = f.get("pinned")
    if pinned:
        print("frag.pinned.pages %d" % pinned["pages"]["count"])
        print("frag.pinned.bytes %d" % pinned["pages"]["bytes"])
        print("frag.pinned.pageblocks %d" % pinned["pageblocks"])
        for r in pinned["callers"]["rows"]:
            name = r["callsite"]["name"] or r["callsite"]["address"]
            print("frag.pinned.caller.%s.pages %d" % (name, r["pages"]["count"]))
            print("frag.pinned.caller.%s.bytes %d" % (name, r["pages"]["bytes"]))
            print("frag.pinned.caller.%s.pageblocks %d" % (name, r["pageblocks"]))
    if "mixed_pageblocks" in f:
        m = f["mixed_pageblocks"]
        print("frag.blocks.allocated %d" % m["touched"])
        print("frag.blocks.mixed %d" % m["mixed"])
        print("frag.blocks.unmovable_or_reclaimable %d" % m["unmovable_or_reclaimable"])
        print("frag.blocks.fallback_only %d" % m["fallback_only"])
        for col, n, b in zip(COLUMNS, m["by_column"], m["bytes_by_column"]):
            if n:
                print("frag.blocks.%s %d" % (col, n))
            if b:
                print("frag.alloc.%s.bytes %d" % (col, b))
    fail_n = fail_b = 0
    for r in f["failures"]["rows"]:
        name = r["callsite"]["name"] if "callsite" in r else "?"
        key = "frag.fail.%s.%d.%s.%s" % (name, r["order"], r["migration_type"]["name"],
                                         "|".join(r["gfp"]["names"]))
        print("%s %d" % (key, r["hits"]))
        print("%s.bytes %d" % (key, r["bytes"]))
        fail_n += r["hits"]
        fail_b += r["bytes"]
    print("frag.fail %d" % fail_n)
    print("frag.fail.bytes %d" % fail_b)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[2]) as f:
        doc = json.load(f)
    {"page-summary": page_summary, "page-callers": page_callers,
     "slab-summary": slab_summary, "slab-callers": slab_callers,
     "cross-node": cross_node, "frag": frag}[sys.argv[1]](doc)


if __name__ == "__main__":
    main()
