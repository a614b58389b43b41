#!/usr/bin/env python3
"""Independent reference for tests/test_allocator.c: reads a Kineto trace with Python's json (no
libfsdpa code) and prints, one fact per line, how its allocator calls split by the memory they
get and the allocator backend that makes them, and which device backends it holds that libfsdpa
does not analyze:

  device_malloc N / device_free N     device memory calls, every backend (ranks[].allocator.malloc_calls)
  pinned_alloc N / pinned_free N      pinned host memory (allocator.pinned_host)
  vmm create|map|unmap|release N      expandable segments' driver calls (allocator.vmm)
  async malloc|free N                 the cudaMallocAsync backend's pool calls (allocator.async_pool)
  backend NAME|-                      the backend with the most calls (ties: the later of native,
                                      expandable_segments, cudaMallocAsync), - without any
  xdev TYPE EVENTS RUNTIME STREAMS    other device backends (ranks[].other_devices)

The API names are written out here from the CUDA/HIP documentation on purpose rather than taken
from the library's classifier.  Only complete (ph X) events with a ts count, as in the library.
"""
import gzip
import json
import sys

RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
NATIVE_MALLOC = {"cudaMalloc", "hipMalloc", "cudaMallocManaged", "hipMallocManaged", "cuMemAlloc_v2", "cuMemAlloc",
                 "hipExtMallocWithFlags", "cudaMallocPitch", "hipMallocPitch"}
NATIVE_FREE = {"cudaFree", "hipFree", "cuMemFree_v2", "cuMemFree"}
PINNED_ALLOC = {"cudaHostAlloc", "cudaMallocHost", "hipHostMalloc", "hipHostAlloc", "hipMallocHost",
                "cuMemHostAlloc", "cuMemAllocHost_v2", "cuMemAllocHost"}
PINNED_FREE = {"cudaFreeHost", "hipHostFree", "hipFreeHost", "cuMemFreeHost"}
ASYNC_MALLOC = {"cudaMallocAsync", "hipMallocAsync", "cudaMallocFromPoolAsync", "hipMallocFromPoolAsync",
                "cuMemAllocAsync", "cuMemAllocFromPoolAsync"}
ASYNC_FREE = {"cudaFreeAsync", "hipFreeAsync", "cuMemFreeAsync"}
VMM = {"create": {"cuMemCreate", "hipMemCreate"},
       "map": {"cuMemMap", "hipMemMap", "cuMemSetAccess", "hipMemSetAccess", "cuMemAddressReserve",
               "hipMemAddressReserve"},
       "unmap": {"cuMemUnmap", "hipMemUnmap", "cuMemAddressFree", "hipMemAddressFree"},
       "release": {"cuMemRelease", "hipMemRelease"}}
XDEV = ["mtia", "xpu", "hpu", "privateuse1", "mlu", "npu"]


def main(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as fh:
        doc = json.loads(fh.read(), parse_float=str)
    evs = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(evs, list):
        print("not-a-trace")
        return
    n = {k: 0 for k in ("dm", "df", "pa", "pf", "am", "af", "create", "map", "unmap", "release")}
    xdev = {}
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
            continue
        cat, name = e.get("cat"), e.get("name", "")
        if not isinstance(cat, str):
            continue
        if cat in RUNTIME_CATS and isinstance(name, str):
            base = name[:-5] if name.endswith("_ptsz") and len(name) > 5 else name
            for k, names in (("dm", NATIVE_MALLOC), ("df", NATIVE_FREE), ("pa", PINNED_ALLOC), ("pf", PINNED_FREE),
                             ("am", ASYNC_MALLOC), ("af", ASYNC_FREE), ("create", VMM["create"]),
                             ("map", VMM["map"]), ("unmap", VMM["unmap"]), ("release", VMM["release"])):
                if base in names:
                    n[k] += 1
            continue
        for t in XDEV:
            if cat.startswith(t + "_"):
                rest = cat[len(t) + 1:]
                host = rest in ("runtime", "driver") or (t == "hpu" and rest == "op")
                x = xdev.setdefault(t, [0, 0, set()])
                if host:
                    x[1] += 1
                else:
                    x[0] += 1
                    x[2].add((e.get("pid", e.get("args", {}).get("device")), e.get("tid")))
                break
    native = n["dm"] + n["df"]
    vmm = n["create"] + n["map"] + n["unmap"] + n["release"]
    asy = n["am"] + n["af"]
    backend, best = ("native" if native else "-"), native
    if vmm and vmm >= best:
        backend, best = "expandable_segments", vmm
    if asy and asy >= best:
        backend = "cudaMallocAsync"
    print("device_malloc", n["dm"] + n["create"] + n["am"])
    print("device_free", n["df"] + n["release"] + n["af"])
    print("pinned_alloc", n["pa"])
    print("pinned_free", n["pf"])
    for k in ("create", "map", "unmap", "release"):
        print("vmm", k, n[k])
    print("async malloc", n["am"])
    print("async free", n["af"])
    print("backend", backend)
    for t in XDEV:
        if t in xdev:
            x = xdev[t]
            print("xdev", t, x[0], x[1], len(x[2]))


if __name__ == "__main__":
    main(sys.argv[1])
