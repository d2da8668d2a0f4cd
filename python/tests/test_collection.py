"""lidx.Collection against independent oracles: the sources' lines one
after the other (Python lists), and merged by time by Python's
heapq.merge on each line's time as Python's datetime reads it (the
oracle of test_merge); each line of the whole traced back to its source
and number, and each source's line found in the whole."""

import pytest

import lidx
from test_family import T0
from test_merge import family_stream, file_stream, logs, oracle  # noqa: F401 (a fixture)

MS = 1_000_000


def terminated(line):
    return line if line.endswith(b"\n") else line + b"\n"


def check(c, records):
    """The whole is `records` ((source, line_no, time, bytes) in order)."""
    assert len(c) == c.line_count == len(records)
    assert c.lines(1, -1) == [terminated(r[3]) for r in records]
    for k, (src, n, _, line) in enumerate(records, start=1):
        assert c.origin(k) == (src, n), k
        assert c.line_of(src, n) == k, (src, n)
    # A sample of single lines, from both ends.
    for k in [1, 2, len(records) // 2, len(records)]:
        assert c.line(k) == terminated(records[k - 1][3])
        assert c.line(k - len(records) - 1) == c.line(k)
    assert c.lines(-3, -1) == [terminated(r[3]) for r in records[-3:]]


def test_merged_and_in_turn(logs):
    (pa, a), (pb, b), (live, model) = logs["a"], logs["b"], logs["fam"]
    with lidx.Index(pa, time=True) as ia, lidx.Index(pb, time=True) as ib, lidx.Family(live, time=True) as f:
        sa, sb, sf = file_stream(2, a), file_stream(0, b), family_stream(1, model)
        c = lidx.Collection([ib, f, ia], merge=True)
        assert c.merged
        check(c, oracle([sb, sf, sa]))
        assert "3 sources merged by time" in repr(c)
        # In turn: b's lines, the family's, a's.
        c = lidx.Collection([ib, f, ia])
        assert not c.merged
        check(c, sb + sf + sa)


def test_a_time_window_merges_and_keeps_each_sources_lines_of_it(logs):
    (pa, a), (pb, b) = logs["a"], logs["b"]
    since, until = 1000 * MS, 900_000 * MS
    with lidx.Index(pa, time=True) as ia, lidx.Index(pb, time=True) as ib:
        since, until = T0 + since, T0 + until

        def kept(records):
            ts = [r[2] for r in records]
            lo = next(i for i, t in enumerate(ts) if t is not None and t >= since)
            hi = max(i + 1 for i, t in enumerate(ts) if t is not None and t < until)
            return records[lo:hi]

        want = oracle([kept(file_stream(0, a)), kept(file_stream(1, b))])
        c = lidx.Collection([ia, ib], since=since, until=until)
        assert c.merged
        check(c, want)
        # Outside the window: the first line of that source after it.
        first_a = next(r for r in want if r[0] == 0)
        assert c.line_of(0, 1) == want.index(first_a) + 1
        assert c.line_of(0, len(a)) is None


def test_a_time_is_found_in_every_source(logs):
    (pa, a), (live, model) = logs["a"], logs["fam"]
    with lidx.Index(pa, time=True) as ia, lidx.Family(live, time=True) as f:
        records = oracle([file_stream(0, a), family_stream(1, model)])
        c = lidx.Collection([ia, f], merge=True)
        for t in [T0 - 1, T0, T0 + 700 * MS + 1, T0 + 1_500_000 * MS, T0 + 10**15]:
            # Each source's first line at or after t, and the earliest of
            # them in the whole.
            firsts = []
            for src in (0, 1):
                k = next((k for k, r in enumerate(records) if r[0] == src and r[2] is not None and r[2] >= t), None)
                if k is not None:
                    firsts.append(k + 1)
            assert c.line_at_time(t) == (min(firsts) if firsts else None), t


def test_bad_sources(logs):
    (pa, a), (pb, b), (live, _) = logs["a"], logs["b"], logs["fam"]
    with lidx.Index(pa, time=True) as ia, lidx.Index(pb) as plain, lidx.Family(live) as f:
        with pytest.raises(TypeError, match=r"sources\[1\]"):
            lidx.Collection([ia, "b.log"])
        with pytest.raises(TypeError, match="family member"):
            lidx.Collection([f.members[0].index])
        with pytest.raises(lidx.InvalidArgumentError, match="at least one"):
            lidx.Collection([])
        # A merge needs every source's time index; in turn, none does.
        with pytest.raises(lidx.InvalidArgumentError, match="time"):
            lidx.Collection([ia, plain], merge=True)
        c = lidx.Collection([plain, ia])
        assert len(c) == len(a) + len(b)
        with pytest.raises(lidx.InvalidArgumentError, match="time=True"):
            lidx.Collection([plain, ia], since=0)
        with pytest.raises(lidx.InvalidArgumentError):
            lidx.Collection([plain]).line_at_time(0)
        with pytest.raises(lidx.OutOfRangeError):
            c.line(len(c) + 1)
        with pytest.raises(lidx.OutOfRangeError):
            c.origin(-len(c) - 1)
        with pytest.raises(lidx.InvalidArgumentError):
            c.origin(0)
        with pytest.raises(lidx.OutOfRangeError):
            c.line_of(2, 1)
    # The collection keeps its sources' indexes: closed, they still read.
    assert c.line(1) == terminated(open(pb, "rb").readline())


def test_grep_searches_the_whole(logs):
    import re

    (pa, a), (live, model) = logs["a"], logs["fam"]
    with lidx.Index(pa, time=True) as ia, lidx.Family(live, time=True) as f:
        for merge in (True, False):
            c = lidx.Collection([ia, f], merge=merge)
            whole = c.lines(1, -1)
            offsets = [0]
            for line in whole:
                offsets.append(offsets[-1] + len(line))
            for pattern, kw in [(r"WARN event \d*5 ", {}), ("frame 1", {"ignore_case": True}), ("INFO", {"invert_match": True})]:
                rx = re.compile(pattern.encode(), re.I if kw.get("ignore_case") else 0)
                invert = kw.get("invert_match", False)
                want = [
                    (k + 1, offsets[k], line)
                    for k, line in enumerate(whole)
                    if bool(rx.search(line.rstrip(b"\n"))) != invert
                ]
                assert want, pattern
                assert list(c.grep(pattern, **kw)) == want, (merge, pattern)
            # A range of the whole, and a count.
            assert list(c.grep("event", (100, 200), max_count=3)) == [
                (k + 1, offsets[k], whole[k]) for k in range(99, 200) if b"event" in whole[k]
            ][:3]
