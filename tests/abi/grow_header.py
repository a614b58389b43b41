#!/usr/bin/env python3
"""Writes a copy of the public header in which every struct that starts with
`size_t size;` has one more field at its end, for the test-only build of the
library in tests/abi/: a caller compiled against the real header is then a
caller of an older release, whose structs are smaller than the library's.

  grow_header.py IN OUT
"""
import re
import sys

FIELD = "  uint64_t grown_;  /* test only: a field callers of the real header do not know */\n"


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    # `typedef struct fsdpa_x {` + `size_t size;` ... up to its own `} fsdpa_x;`
    sized = re.compile(r"(typedef struct (fsdpa_\w+) \{\n  size_t size;.*?\n)(\} \2;)", re.S)
    want = len(re.findall(r"typedef struct fsdpa_\w+ \{\n  size_t size;", text))
    text, n = sized.subn(lambda m: m.group(1) + FIELD + m.group(3), text)
    if n == 0 or n != want:
        sys.exit("grow_header.py: grew %d of %d size-first structs in %s" % (n, want, src))
    guard = "#define FSDPA_FSDPA_H\n"
    if guard not in text:
        sys.exit("grow_header.py: no include guard in %s" % src)
    # lets a file that must see the real header refuse this one
    text = text.replace(guard, guard + "#define FSDPA_TEST_GROWN_HEADER 1\n", 1)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
