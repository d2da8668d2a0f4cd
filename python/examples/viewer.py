"""A viewer's loop over lidx, written from the package's docstrings: open a
text file or a ``.gz`` (building its sidecar on first use, with progress),
jump to a line, page forward and back, map a scrollbar position to a line,
search the region after the cursor, and follow the file as it grows.

    python viewer.py FILE [--goto N] [--page 20] [--search REGEX]
                          [--scroll 0.5] [--follow SECONDS]

Each step prints a header line (``== ...``) then the lines it shows as
``NUMBER<TAB>TEXT``.
"""

import argparse
import sys
import time

import lidx


def show(first, lines):
    for n, line in enumerate(lines, first):
        sys.stdout.buffer.write(b"%d\t%s" % (n, line if line.endswith(b"\n") else line + b"\n"))


def progress(done, total):
    print(f"\rindexing: {done * 100 // max(total, 1)}%", end="", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--goto", type=int, default=1, help="line to jump to (from 1; -1: the last)")
    ap.add_argument("--page", type=int, default=20, help="lines per page")
    ap.add_argument("--search", help="a regex to find after the cursor")
    ap.add_argument("--scroll", type=float, help="a scrollbar position, 0 to 1")
    ap.add_argument("--follow", type=float, default=0, help="seconds to follow the file")
    args = ap.parse_args()

    try:
        idx = lidx.Index(args.file, progress=progress if sys.stderr.isatty() else None)
    except lidx.Error as e:  # the command line's message
        sys.exit(f"viewer: {e}")
    with idx:
        total = idx.line_count
        print(f"== {args.file}: {total} lines, {idx.size} bytes of text ({idx.action})")

        # Jump, then page forward and back: a page is one read, however far.
        top = args.goto if args.goto > 0 else max(total + 1 + args.goto, 1)
        print(f"== goto {top}")
        show(top, idx.lines(top, top + args.page - 1))
        nxt = min(top + args.page, max(total - args.page + 1, 1))
        print(f"== page down: {nxt}")
        show(nxt, idx.lines(nxt, nxt + args.page - 1))
        prev = max(nxt - args.page, 1)
        print(f"== page up: {prev}")
        show(prev, idx.lines(prev, prev + args.page - 1))

        # A scrollbar position is a byte offset; its line is one lookup.
        if args.scroll is not None and idx.size:
            offset = min(int(args.scroll * idx.size), idx.size - 1)
            n = idx.line_at(offset)
            print(f"== scroll {args.scroll:g}: byte {offset} is in line {n}")
            show(n, idx.lines(n, n + args.page - 1))

        # Search after the cursor: the first match from the current page on.
        if args.search:
            hits = idx.grep(args.search, lines=(prev, None), max_count=1)
            hit = next(hits, None)
            hits.close()
            print(f"== search {args.search!r} from line {prev}: {'line %d' % hit[0] if hit else 'not found'}")
            if hit:
                show(hit[0], [hit[2]])

        # Follow: new complete lines as the file grows (tail -f).
        if args.follow > 0:
            print("== follow")
            follower = idx.follow()
            deadline = time.monotonic() + args.follow
            while time.monotonic() < deadline:
                for n, line in follower.poll():
                    show(n, [line])
                sys.stdout.flush()
                time.sleep(0.1)


if __name__ == "__main__":
    main()
