#!/usr/bin/env python3
"""Checks the room rules of libfsdpa/ (docs/ARCHITECTURE.md, "Rooms"):

- rooms are layered: util < input < events < ctx < model < findings <
  analysis/* < report < summary < diff; a file includes only its own room and rooms
  below it (the public header fsdpa/fsdpa.h and the generated fsdpa_config.h
  are everyone's);
- an analysis never includes another analysis, and from outside a room only
  its interface header analysis/<a>/<a>.h may be included;
- files of an analysis room are named for their role:
  <a>.h, <a>_impl.h, <a>_{engine,query,report,findings}[_<part>].c;
- the graph of includes between rooms has no cycle.

  check_rooms.py [SOURCE_ROOT]     exit 0 when every rule holds, 1 otherwise
"""
import os
import re
import sys

ORDER = ["util", "input", "events", "ctx", "model", "findings", "analysis", "report", "summary", "diff"]
ROLE = re.compile(r"^(?P<a>[a-z0-9_]+?)(\.h|_impl\.h|_(engine|query|report|findings)(_[a-z0-9_]+)?\.c|\.cpp)$")
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMON = {"fsdpa/fsdpa.h", "fsdpa_config.h"}


def room_of(rel):
    """Room of a path relative to libfsdpa/: 'util', 'analysis/overlap', 'ctx', ..."""
    parts = rel.split("/")
    if len(parts) == 1:
        return "ctx"  # ctx.c, ctx.h, query.c, params.c, params.def
    if parts[0] == "analysis" and len(parts) >= 3:
        return "analysis/" + parts[1]
    return parts[0]


def rank(room):
    return ORDER.index(room.split("/")[0]) if room.split("/")[0] in ORDER else None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    lib = os.path.join(root, "libfsdpa")
    errors = []
    edges = {}
    files = []
    for d, _, names in os.walk(lib):
        for n in names:
            if n.endswith((".c", ".h", ".cpp", ".def")):
                files.append(os.path.relpath(os.path.join(d, n), lib))
    for rel in sorted(files):
        room = room_of(rel)
        r = rank(room)
        if r is None:
            errors.append(f"{rel}: room '{room}' is not in the layer order {ORDER}")
            continue
        if rel.startswith("analysis/"):
            parts = rel.split("/")
            if len(parts) != 3:
                errors.append(f"{rel}: analysis files live in analysis/<room>/ (one room per analysis)")
            else:
                m = ROLE.match(parts[2])
                if not m or not parts[2].startswith(parts[1]) or (m.group("a") != parts[1] and not parts[2].startswith(parts[1] + "_")):
                    errors.append(f"{rel}: not named for a role (<room>.h, <room>_impl.h, "
                                  f"<room>_{{engine,query,report,findings}}[_part].c)")
        text = open(os.path.join(lib, rel), encoding="utf-8", errors="replace").read()
        for inc in INC.findall(text):
            if inc in COMMON:
                continue
            if inc == "params.def" or inc.startswith(("ctx.h",)):
                target = "ctx"
                trel = inc
            else:
                trel = inc
                if not os.path.exists(os.path.join(lib, trel)):
                    # includes relative to the including file (same directory)
                    cand = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
                    if os.path.exists(os.path.join(lib, cand)):
                        trel = cand
                    else:
                        continue  # system or generated header
                target = room_of(trel)
            tr = rank(target)
            if target != room:
                edges.setdefault(room, set()).add(target)
            if tr is None:
                continue
            if target.startswith("analysis/") and room.startswith("analysis/") and target != room:
                errors.append(f"{rel}: includes {inc}: an analysis never includes another analysis")
            elif tr > r:
                errors.append(f"{rel}: includes {inc}: room '{target}' is above room '{room}'")
            if target.startswith("analysis/") and target != room:
                a = target.split("/")[1]
                if trel != f"analysis/{a}/{a}.h":
                    errors.append(f"{rel}: includes {inc}: outside its room only analysis/{a}/{a}.h may be included")
    # cycles between rooms
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                errors.append("room cycle: " + " -> ".join(path + [n, m]))
            elif m not in state:
                visit(m, path + [n])
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n, [])
    for e in errors:
        print(e)
    print(f"check_rooms: {len(files)} files, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
