#!/usr/bin/env python3
"""Write the seed corpus of the fuzz targets into fuzz/corpus/<target>/.

    python3 fuzz/make_corpus.py --lib BUILD/libfsdpa/libfsdpa.so [--traces DIR]

Seeds are small pieces (< 64 KB each) of real traces (../shared/traces: the
events of each piece are byte-for-byte the original text, re-wrapped as a
valid document with the trace's small top-level keys), a few
tools/tracegen outputs (--steps 1 --layers 2, cut to a time window), and a
handful of hand-written edge cases.  Each target gets them in its own input
format (see the comment at the top of each fuzz/<target>.c).  The summary
seeds are written by the library itself (through ctypes), so --lib must be a
build of the current tree.  The output is deterministic: rerunning it on the
same traces and tree rewrites the same files.
"""
import argparse
import ctypes
import decimal
import gzip
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIMIT = 60 * 1024  # < 64 KB with room for a target's header bytes

# (path under the traces dir, short name)
REAL = [
    ("hta/critical_path/cuda_event_sync/event_sync_trace.json.gz", "hta_event_sync"),
    ("hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", "hta_event_sync_ms"),
    ("hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", "hta_alexnet"),
    ("hta/nccl_parser_config/nccl_data.json.gz", "hta_nccl"),
    ("hta/trace_filter/sampled_rank-0.json.gz", "hta_sampled0"),
    ("hta/df_index_resolver/df_index_resolver.json.gz", "hta_df_index"),
    ("hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "hta_mi250"),
    ("hta/with_gpu_user_annotation/step_based_trace_2543932.json.gz", "hta_gpu_ann"),
    ("hta/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz", "hta_large_int"),
    ("hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", "hta_cpu_only"),
    ("hta/triton_example/triton_example.json.gz", "hta_triton"),
    ("hta/execution_trace/benchmark_simple_add_et.json.gz", "hta_not_kineto"),
    ("hta/call_stack/backward_thread.json", "hta_call_stack"),
    ("kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", "kineto_legacy"),
    ("kineto/before_fix_trace.json", "kineto_sync"),
    ("tracelens/mi300/resnet_act_checkpoint.json.gz", "tl_mi300"),
    ("tracelens/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz", "tl_vllm"),
    ("tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "tl_qwen"),
    ("tracelens/torch_compile_triton/trace.json.gz", "tl_compile"),
    ("switchtransformers/trace.json.gz", "switch"),
]
GEN = ["fsdp2_healthy", "fsdp1_serialized", "network_bound", "comm_on_compute_stream",
       "launch_bound", "sync_stall", "allocator_thrash", "mixed"]


# ---------------------------------------------------------------- raw slicing

def event_spans(text):
    """Raw text of each element of the top-level traceEvents array (or of a
    top-level array), and where the array starts and ends."""
    m = re.search(r'"traceEvents"\s*:\s*\[', text)
    if m:
        i = m.end()
    else:
        i = text.index("[") + 1
    start = i
    spans = []
    depth = 0
    in_str = esc = False
    b = None
    n = len(text)
    while i < n:
        c = text[i]
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in "{[":
            if depth == 0:
                b = i
            depth += 1
        elif c in "}]":
            if depth == 0:  # the array's own ']'
                return spans, start, i
            depth -= 1
            if depth == 0:
                spans.append(text[b:i + 1])
        i += 1
    return spans, start, n


def small_meta(obj):
    """The trace's top-level keys other than traceEvents, if small."""
    if not isinstance(obj, dict):
        return []
    out = []
    for k, v in obj.items():
        if k == "traceEvents":
            continue
        s = json.dumps(v, separators=(", ", ": "))
        if len(s) <= 1500:
            out.append('"%s": %s' % (k, s))
    return out


def wrap(meta, events, meta_after=False):
    body = '"traceEvents": [\n' + ",\n".join(events) + "\n]"
    parts = ([body] + meta) if meta_after else (meta + [body])
    return "{\n" + ",\n".join(parts) + "\n}\n"


def ts_of(ev):
    t = ev.get("ts")
    try:
        return decimal.Decimal(str(t))
    except (decimal.InvalidOperation, TypeError):
        return None


def window_piece(meta, spans, parsed, limit, anchor_cats=("kernel", "Kernel")):
    """Events in a time window around the first kernel (plus metadata
    events), as wide as fits in `limit` bytes."""
    timed = [(ts_of(e), i) for i, e in enumerate(parsed) if isinstance(e, dict) and ts_of(e) is not None]
    if not timed:
        return None
    anchor = next((ts_of(e) for e in parsed if isinstance(e, dict) and e.get("cat") in anchor_cats
                   and ts_of(e) is not None), min(t for t, _ in timed))
    metas = [i for i, e in enumerate(parsed) if isinstance(e, dict) and e.get("ph") == "M"][:24]

    def pick(delta):
        keep = set(metas)
        keep.update(i for t, i in timed if anchor - delta <= t <= anchor + delta)
        return [spans[i] for i in sorted(keep)]

    lo, hi = decimal.Decimal(0), decimal.Decimal(10) ** 7
    best = None
    for _ in range(40):
        mid = (lo + hi) / 2
        doc = wrap(meta, pick(mid))
        if len(doc.encode()) <= limit:
            best, lo = doc, mid
        else:
            hi = mid
    return best


def head_piece(meta, spans, limit, meta_after):
    evs = []
    for s in spans:
        if len(wrap(meta, evs + [s]).encode()) > limit:
            break
        evs.append(s)
    return wrap(meta, evs, meta_after) if evs else None


def read_trace(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="surrogateescape")


def pieces_of(text, name, rng):
    """[(name, doc text)] for one trace."""
    if len(text.encode("utf-8", errors="surrogateescape")) <= LIMIT:
        return [(name, text)]
    obj = json.loads(text)
    meta = small_meta(obj)
    spans, _, _ = event_spans(text)
    parsed = [json.loads(s) for s in spans]
    out = []
    h = head_piece(meta, spans, 16 * 1024, meta_after=rng.random() < 0.5)
    if h:
        out.append((name + ".head", h))
    w = window_piece(meta, spans, parsed, 48 * 1024)
    if w:
        out.append((name + ".win", w))
    return out


# ------------------------------------------------------------ hand-written

EDGE = {
    "bare_array": '[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2,"args":{"correlation":1}},'
                  '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0.5,"dur":1,'
                  '"args":{"correlation":1}}',
    "bom_escapes": '\ufeff{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a\\"b\\u00e9\\ud83d\\ude00","pid":1,'
                   '"tid":"stream 7 ","ts":"1.5","dur":1e1,"args":{"External id":"12","nested":[[[{}]]]}}],'
                   '"distributedInfo":{"rank":"3","world_size":8},"baseTimeNanoseconds":1700000000000000000}',
    "numbers": '{"traceEvents":[{"ph":"X","cat":"kernel","name":"n","pid":-0,"tid":7.0,"ts":123456789012.345,'
               '"dur":0.001,"args":{"correlation":9223372036854775807,"Bytes":1E3,"stream":7,"device":0,'
               '"Comms Id":10159970886766084423}},{"ph":"i","cat":"[memory]","name":"[memory]","pid":0,'
               '"tid":0,"ts":5,"args":{"Bytes":-512,"Total Allocated":1024,"Total Reserved":2048,'
               '"Device Type":1,"Device Id":0}}]}',
    "collectives": '{"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllGather_RING_LL(x)",'
                   '"pid":0,"tid":20,"ts":10,"dur":50,"args":{"correlation":4,"stream":20,"device":0,'
                   '"Collective name":"_allgather_base","In msg nelems":1024,"Out msg nelems":8192,'
                   '"Group size":8,"dtype":"BFloat16","Process Group Name":"0","Seq":3}},'
                   '{"ph":"X","cat":"cuda_sync","name":"Event Sync","pid":0,"tid":7,"ts":70,"dur":5,'
                   '"args":{"cuda_sync_kind":"Event Sync","wait_on_stream":20,'
                   '"wait_on_cuda_event_record_corr_id":4}},'
                   '{"ph":"M","name":"thread_name","pid":0,"tid":20,"args":{"name":"stream 20"}}]}',
    "steps": '{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,'
             '"ts":0,"dur":1000},{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,'
             '"ts":1000,"dur":1000},{"ph":"X","cat":"user_annotation","name":"FSDP::pre_forward (l.0)",'
             '"pid":1,"tid":1,"ts":10,"dur":20}]}',
}


# ------------------------------------------------------------ tracegen

def gen_docs(tmp):
    out = []
    tg = os.path.join(ROOT, "tools", "tracegen", "tracegen.py")
    for sc in GEN:
        p = os.path.join(tmp, sc + ".json")
        subprocess.run([sys.executable, tg, sc, "-o", p, "--steps", "1", "--layers", "2", "--seed", "1"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append(("gen_" + sc, read_trace(p)))
    p = os.path.join(tmp, "straggler.json")
    subprocess.run([sys.executable, tg, "straggler", "-o", p, "--ranks", "2", "--steps", "2", "--layers", "2",
                    "--seed", "1"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ranks = [read_trace(os.path.join(tmp, "straggler.rank%d.json" % r)) for r in range(2)]
    return out, ranks


def gen_piece(text, limit):
    """A generator trace cut to its first events in time (all of them start
    inside the window), as wide as fits."""
    obj = json.loads(text)
    meta = small_meta(obj)
    spans, _, _ = event_spans(text)
    parsed = [json.loads(s) for s in spans]
    t0 = min(ts_of(e) for e in parsed if ts_of(e) is not None)
    timed = [(ts_of(e), i) for i, e in enumerate(parsed) if ts_of(e) is not None]
    metas = [i for i, e in enumerate(parsed) if e.get("ph") == "M"]
    lo, hi = decimal.Decimal(0), decimal.Decimal(10) ** 8
    best = None
    for _ in range(40):
        mid = (lo + hi) / 2
        keep = sorted(set(metas) | {i for t, i in timed if t <= t0 + mid})
        doc = wrap(meta, [spans[i] for i in keep])
        if len(doc.encode()) <= limit:
            best, lo = doc, mid
        else:
            hi = mid
    return best


# ------------------------------------------------------------ fuzz_events encoding

def load_strings():
    src = open(os.path.join(HERE, "fuzz_events_tables.h")).read()
    block = src.split("BEGIN FZ_STRINGS")[1].split("END FZ_STRINGS")[0]
    return [json.loads('"%s"' % s) for s in re.findall(r'"((?:[^"\\]|\\.)*)"', block)]


PH = "XiMsfBECbenRPt"  # index 14 = absent, 15 = 'I' (see fuzz_events.c)
INT_FIELDS = ["pid", "tid", "ts", "dur", "correlation", "External id", "stream", "device", "Bytes",
              "Total Allocated", "Total Reserved", "Device Type", "Device Id", "In msg nelems",
              "Out msg nelems", "Group size", "Seq", "wait_on_stream", "wait_on_cuda_event_record_corr_id"]
STR_ARGS = ["Collective name", "dtype", "Process Group Name", "cuda_sync_kind", "name"]


def enc_int(v):
    if 0 <= v < 256:
        return bytes([0, v])
    if 0 <= v < 65536:
        return bytes([1]) + struct.pack("<H", v)
    if 0 <= v < 2 ** 32:
        return bytes([2]) + struct.pack("<I", v)
    return bytes([3]) + struct.pack("<q", max(-2 ** 63, min(2 ** 63 - 1, v)))


def enc_str(s, table):
    if s in table:
        return bytes([table.index(s)])
    b = s.encode("utf-8", errors="surrogateescape")[:65535]
    if len(b) <= 125:
        return bytes([0x80 + len(b)]) + b
    return bytes([0xFE]) + struct.pack("<H", len(b)) + b


def as_int(v, field):
    """The library's field rules, roughly (json_shim.cpp): exact integers."""
    if isinstance(v, bool) or v is None:
        return None
    if field in ("ts", "dur"):
        try:
            return int(decimal.Decimal(str(v)) * 1000)
        except (decimal.InvalidOperation, ValueError):
            return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v) if v.is_integer() and abs(v) < 2 ** 63 else None
    if isinstance(v, str):
        m = re.fullmatch(r"(?:stream )?(-?\d+) ?", v)
        return int(m.group(1)) if m and field in ("pid", "tid") else (int(v) if re.fullmatch(r"-?\d+", v) else None)
    return None


def enc_event(e, table):
    ph = e.get("ph")
    op = PH.index(ph) if isinstance(ph, str) and ph and ph[0] in PH else (15 if ph == "I" else 14)
    args = e.get("args") if isinstance(e.get("args"), dict) else {}
    mask = 0
    body = b""
    for f, key in enumerate(["cat", "name"]):
        if isinstance(e.get(key), str):
            mask |= 1 << f
            body += enc_str(e[key], table)
    for k, field in enumerate(INT_FIELDS):
        src = e if field in ("pid", "tid", "ts", "dur") else args
        v = src.get(field)
        if field == "External id" and v is None:
            v = args.get("external id")
        if field == "Bytes" and v is None:
            v = args.get("bytes")
        iv = as_int(v, field) if v is not None else None
        if iv is not None:
            mask |= 1 << (2 + k)
            body += enc_int(iv)
    for k, field in enumerate(STR_ARGS):
        v = args.get(field)
        if field == "name" and ph != "M":
            v = None
        if isinstance(v, str):
            mask |= 1 << (21 + k)
            body += enc_str(v, table)
    return bytes([op]) + struct.pack("<I", mask) + body


def enc_trace(text, table, rng, limit, rank_op=None):
    obj = json.loads(text)
    evs = obj.get("traceEvents", []) if isinstance(obj, dict) else obj
    out = bytearray()
    if isinstance(obj, dict):
        di = obj.get("distributedInfo") or {}
        rank, world = di.get("rank"), di.get("world_size")
        base = obj.get("baseTimeNanoseconds")
        if any(isinstance(x, int) for x in (rank, world, base)):
            out += b"\xF1"
            for x in (rank, world, base):
                out += enc_int(x) if isinstance(x, int) else bytes([4])  # SPECIAL[0] = ABSENT
    for i, e in enumerate(evs):
        if not isinstance(e, dict):
            continue
        b = enc_event(e, table)
        if len(out) + len(b) > limit:
            break
        out += b
        if i % 97 == 96:
            out += b"\xF3\x00" if rng.random() < 0.5 else b"\xF4\x00"
    return bytes(out)


# ------------------------------------------------------------ summaries (ctypes)

class Lib:
    def __init__(self, path):
        L = ctypes.CDLL(path)
        L.fsdpa_ctx_new.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        L.fsdpa_feed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        L.fsdpa_finish.argtypes = [ctypes.c_void_p]
        L.fsdpa_ctx_free.argtypes = [ctypes.c_void_p]
        L.fsdpa_summary_write.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.POINTER(ctypes.c_size_t)]
        L.fsdpa_summary_merge.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t),
                                          ctypes.c_size_t, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.POINTER(ctypes.c_size_t)]
        L.fsdpa_free.argtypes = [ctypes.c_void_p]
        self.L = L

    def _take(self, p, n):
        s = ctypes.string_at(p.value, n.value)
        self.L.fsdpa_free(p)
        return s

    def summary(self, doc, name):
        c = ctypes.c_void_p()
        assert self.L.fsdpa_ctx_new(ctypes.byref(c), None) == 0
        data = doc.encode("utf-8", errors="surrogateescape")
        self.L.fsdpa_feed(c, data, len(data))
        self.L.fsdpa_finish(c)
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        st = self.L.fsdpa_summary_write(c, name.encode(), ctypes.byref(p), ctypes.byref(n))
        s = self._take(p, n) if st == 0 else None
        self.L.fsdpa_ctx_free(c)
        return s

    def merge(self, sums):
        arr = (ctypes.c_char_p * len(sums))(*sums)
        lens = (ctypes.c_size_t * len(sums))(*[len(s) for s in sums])
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        st = self.L.fsdpa_summary_merge(arr, lens, len(sums), None, ctypes.byref(p), ctypes.byref(n))
        return self._take(p, n) if st == 0 else None


# ------------------------------------------------------------ main

def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", errors="surrogateescape")
    assert len(data) < 64 * 1024, (target, name, len(data))
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="path of libfsdpa.so of a build of this tree")
    ap.add_argument("--traces", default=os.path.join(ROOT, "..", "shared", "traces"))
    a = ap.parse_args()
    rng = random.Random(9)
    lib = Lib(a.lib)
    table = load_strings()
    for t in ["fuzz_feed", "fuzz_gzip", "fuzz_split", "fuzz_events", "fuzz_summary"]:
        d = os.path.join(HERE, "corpus", t)
        if os.path.isdir(d):
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))

    docs = []  # (name, text)
    for rel, name in REAL:
        p = os.path.join(a.traces, rel)
        if not os.path.exists(p):
            print("make_corpus: missing %s" % p, file=sys.stderr)
            continue
        text = read_trace(p)
        if name == "hta_not_kineto":
            docs.append((name, text))
            continue
        docs.extend(pieces_of(text, name, rng))
    with tempfile.TemporaryDirectory() as tmp:
        gen, ranks = gen_docs(tmp)
    for name, text in gen:
        docs.append((name, gen_piece(text, 48 * 1024)))
    rank_docs = [gen_piece(r, 24 * 1024) for r in ranks]
    docs.append(("gen_straggler.rank0", rank_docs[0]))
    docs.extend(sorted(EDGE.items()))

    for name, text in docs:
        write("fuzz_feed", name + ".json", text)

    # gzip: raw members (mode 0), raw in chunks (mode 3), plain compressed by the harness (1, 2)
    for i, (name, text) in enumerate(docs):
        raw = text.encode("utf-8", errors="surrogateescape")
        z = gzip.compress(raw, mtime=0)
        if len(z) < 60 * 1024:
            write("fuzz_gzip", name + ".m0.gz", bytes([0]) + z)
        if i % 3 == 0 and len(raw) < 16 * 1024:
            write("fuzz_gzip", name + ".m1", bytes([1 + 4 * rng.randrange(64)]) + raw)
        if i % 3 == 1 and len(raw) < 16 * 1024:
            write("fuzz_gzip", name + ".m2", bytes([2 + 4 * rng.randrange(64)]) + raw)
        if i % 4 == 2 and len(z) < 60 * 1024:
            write("fuzz_gzip", name + ".m3.gz", bytes([3 + 4 * rng.randrange(64)]) + z)
    for rel, name in REAL:  # real small .gz files as they are
        p = os.path.join(a.traces, rel)
        if p.endswith(".gz") and os.path.exists(p) and os.path.getsize(p) < 60 * 1024:
            with open(p, "rb") as f:
                write("fuzz_gzip", name + ".orig.gz", bytes([0]) + f.read())
    ev = docs[0][1].encode()
    two = gzip.compress(ev[: len(ev) // 2], mtime=0) + bytes(37) + gzip.compress(ev[len(ev) // 2:], mtime=0)
    write("fuzz_gzip", "two_members_padded.gz", bytes([0]) + two)
    bomb = gzip.compress(b'{"traceEvents":[' + b" " * (8 << 20) + b"]}", compresslevel=9, mtime=0)
    write("fuzz_gzip", "bomb_8MiB.gz", bytes([0]) + bomb)

    # split: header (cuts, tuning) + document
    for name, text in docs:
        raw = text.encode("utf-8", errors="surrogateescape")
        if len(raw) > 40 * 1024:
            continue
        ncut = rng.randrange(1, 8)
        hdr = bytes([ncut | rng.randrange(32) << 3])
        for _ in range(ncut):
            hdr += struct.pack("<H", rng.randrange(len(raw) + 1))
        write("fuzz_split", name + ".json", hdr + raw)

    # events: the encoded events of each document; two ranks for the straggler
    for name, text in docs:
        try:
            b = enc_trace(text, table, rng, 48 * 1024)
        except (ValueError, AttributeError):
            continue
        if len(b) > 16:
            write("fuzz_events", name + ".ev", b)
    r0 = enc_trace(rank_docs[0], table, rng, 24 * 1024)
    r1 = enc_trace(rank_docs[1], table, rng, 24 * 1024)
    write("fuzz_events", "gen_straggler.2ranks.ev", r0 + b"\xF0" + r1 + b"\xF2\x00\x00\x05\xF3\x00")

    # summaries written by the library: u16 cut + bytes
    sums = []
    for name, text in docs:
        if name in ("hta_not_kineto",):
            continue
        s = lib.summary(text, name)
        if s and len(s) < 40 * 1024:
            sums.append((name, s))
            write("fuzz_summary", name + ".sum", struct.pack("<H", 0) + s)
    s0, s1 = lib.summary(rank_docs[0], "r0"), lib.summary(rank_docs[1], "r1")
    if s0 and s1:
        write("fuzz_summary", "straggler.2way", struct.pack("<H", len(s0)) + s0 + s1)
        m = lib.merge([s0, s1])
        if m:
            write("fuzz_summary", "straggler.merged", struct.pack("<H", len(m) // 2) + m)
    for t in sorted(os.listdir(os.path.join(HERE, "corpus"))):
        d = os.path.join(HERE, "corpus", t)
        files = os.listdir(d)
        print("%-14s %3d files, %7d bytes" % (t, len(files), sum(os.path.getsize(os.path.join(d, f)) for f in files)))


if __name__ == "__main__":
    main()
