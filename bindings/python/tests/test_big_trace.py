"""A multi-MB trace fed in 4 KiB chunks: same report as the CLI, and every
byte the context allocated is given back (counted through fsdpa_allocator)."""
import os
import unittest

import fsdpa

from . import support

CHUNK = 4096


class BigTraceTest(unittest.TestCase):
    def test_chunks_and_frees(self):
        path = support.big_trace()
        support.skip_unless(path, "multi-MB trace")
        alloc = fsdpa.CountingAllocator()
        feeds = 0
        seen = []
        with fsdpa.Analyzer(path, _allocator=alloc) as a, open(path, "rb") as f:
            while True:
                b = f.read(CHUNK)
                if not b:
                    break
                a.feed(b)
                feeds += 1
                if feeds % 64 == 0:   # queries between feeds see the events so far
                    seen.append(a.stats().kernels)
                    a.timeline()
            a.finish()
            st = a.stats()
            mine = a.report("json")
            held = alloc.live_bytes
        print(f"\n# {path}: {feeds} feeds of {CHUNK} B, {st.input_bytes} B in, "
              f"{st.json_bytes} B JSON, {st.events} events, {st.memory_bytes} B held by the "
              f"context (allocator saw {held} B live, peak {alloc.peak_bytes} B, "
              f"{alloc.calls} calls); after close: {alloc.live_bytes} B in "
              f"{alloc.live_blocks} blocks")
        self.assertGreater(st.json_bytes, 4 * 1024 * 1024, "not a multi-MB trace")
        self.assertGreater(st.events, 0)
        self.assertEqual(st.input_bytes, os.path.getsize(path))
        self.assertEqual((alloc.live_bytes, alloc.live_blocks), (0, 0))
        self.assertEqual(seen, sorted(seen))
        self.assertTrue(any(0 < k < st.kernels for k in seen), (seen, st.kernels))
        self.assertEqual(support.without_paths(mine),
                         support.without_paths(support.cli_report(path)))


if __name__ == "__main__":
    unittest.main()
