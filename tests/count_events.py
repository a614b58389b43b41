#!/usr/bin/env python3
"""Independent event counter for the corpus test (stdlib json + gzip only).

usage: count_events.py TRACE[.json|.json.gz]

Prints one JSON object:
  {"events": N, "by_cat": {cat: n, ...}, "kernels": .., "gpu_memcpy": ..,
   "gpu_memset": .., "runtime": .., "cpu_ops": .., "annotations": ..,
   "gpu_annotations": .., "memory": .., "cuda_sync": ..}

Definitions (the library's fsdpa_stats must agree):
  events           every element of traceEvents (or of a bare top-level array)
  kernels          ph X, cat kernel | Kernel (legacy)
  gpu_memcpy       ph X, cat gpu_memcpy | Memcpy
  gpu_memset       ph X, cat gpu_memset | Memset
  runtime          ph X, cat cuda_runtime | cuda_driver | Runtime
  cpu_ops          ph X, cat cpu_op | Operator
  annotations      ph X, cat user_annotation
  gpu_annotations  ph X, cat gpu_user_annotation
  memory           ph i/I instants named [memory] (or [OutOfMemory])
  cuda_sync        ph X, cat cuda_sync
by_cat counts every event by its cat ("" when absent or not a string).
Exit status 2 if the file is not a trace (no traceEvents array).
"""
import gzip
import json
import sys

CAT_FIELDS = {
    "kernel": "kernels", "Kernel": "kernels",
    "gpu_memcpy": "gpu_memcpy", "Memcpy": "gpu_memcpy",
    "gpu_memset": "gpu_memset", "Memset": "gpu_memset",
    "cuda_runtime": "runtime", "cuda_driver": "runtime", "Runtime": "runtime",
    "cpu_op": "cpu_ops", "Operator": "cpu_ops",
    "user_annotation": "annotations",
    "gpu_user_annotation": "gpu_annotations",
    "cuda_sync": "cuda_sync",
}
FIELDS = ["kernels", "gpu_memcpy", "gpu_memset", "runtime", "cpu_ops", "annotations",
          "gpu_annotations", "memory", "cuda_sync"]


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)  # handles concatenated members
    if raw[:3] == b"\xef\xbb\xbf":
        raw = raw[3:]
    text = raw.decode("utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # Chrome JSON Array Format may lack the closing ']' (and end with ',')
        t = text.rstrip()
        if t.startswith("["):
            return json.loads(t.rstrip(",") + "]")
        raise


def count(doc):
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
    elif isinstance(doc, list):
        events = doc
    else:
        events = None
    if not isinstance(events, list):
        return None
    out = {"events": len(events), "by_cat": {}}
    for f in FIELDS:
        out[f] = 0
    by_cat = out["by_cat"]
    for ev in events:
        if not isinstance(ev, dict):
            continue
        cat = ev.get("cat")
        cat = cat if isinstance(cat, str) else ""
        by_cat[cat] = by_cat.get(cat, 0) + 1
        ph = ev.get("ph")
        ph = ph[:1] if isinstance(ph, str) else ""
        if ph == "X":
            f = CAT_FIELDS.get(cat)
            if f:
                out[f] += 1
        elif ph in ("i", "I") and ev.get("name") in ("[memory]", "[OutOfMemory]"):
            out["memory"] += 1
    return out


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 64
    out = count(load(sys.argv[1]))
    if out is None:
        sys.stderr.write("%s: not a Kineto trace: no traceEvents array\n" % sys.argv[1])
        return 2
    json.dump(out, sys.stdout, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
