"""lidx.merge (and the time queries of Index) against independent
oracles: each line's time read by Python's datetime (conftest.line_times),
the merge done by Python's heapq.merge (a k-way merge like lidx's: ties
in the order of the sources, a source read in its own order), and the
command line's ``lidx lines --merge``."""

import heapq
import itertools

import pytest

import lidx
from conftest import iso, line_times, run, split_lines
from test_family import T0, Model

MS = 1_000_000


def log(n, start_ms, step_ms, *, bare_head=0, bare_every=0, back=None, unterminated=False):
    """``n`` lines: ``bare_head`` lines without a stamp first, then stamps
    every ``step_ms`` from ``start_ms`` after T0 (every ``bare_every``-th
    line a continuation without one; lines ``back`` stamped 60 s earlier:
    a log whose times go back)."""
    lines, t = [], T0 + start_ms * MS
    for i in range(n):
        if i < bare_head or (bare_every and i % bare_every == bare_every - 1):
            lines.append(f"    continuation {i}\n".encode())
            continue
        s = t - 60_000 * MS if back and i in back else t
        lines.append(f"{iso(s)} {'WARN' if i % 5 == 0 else 'INFO'} event {i} {'y' * (i % 17)}\n".encode())
        t += step_ms * MS
    if unterminated:
        lines[-1] = lines[-1].rstrip(b"\n")
    return lines


@pytest.fixture
def logs(tmp_path):
    """a.log (6,000 lines: more than one batch), b.log (ties with a.log,
    a stretch going back in time, no final newline), and a family."""
    a = log(6000, 0, 700, bare_head=2, bare_every=13)
    b = log(5000, 100, 500, back=range(3000, 3040), unterminated=True)
    pa, pb = tmp_path / "a.log", tmp_path / "b.log"
    pa.write_bytes(b"".join(a))
    pb.write_bytes(b"".join(b))
    d = tmp_path / "fam"
    d.mkdir()
    model = Model()
    model.write(d)
    return {"a": (pa, a), "b": (pb, b), "fam": (d / "app.log", model)}


def stream(source, lines, times, first_line=1):
    """A source's records: (source, line_no, time, bytes)."""
    return [(source, first_line + i, t, l) for i, (l, t) in enumerate(zip(lines, times))]


def oracle(streams):
    """The merge, by heapq.merge: lines without a time first."""
    return list(heapq.merge(*streams, key=lambda r: (0, 0) if r[2] is None else (1, r[2])))


def file_stream(source, lines):
    return stream(source, lines, line_times(lines))


def family_stream(source, model):
    lines = [l for _, member in model.members for l in member]
    return stream(source, lines, model.times())


def test_files_and_a_family(logs):
    (pa, a), (pb, b), (live, model) = logs["a"], logs["b"], logs["fam"]
    with lidx.Index(pa, time=True) as ia, lidx.Index(pb, time=True) as ib, lidx.Family(live, time=True) as f:
        want = oracle([file_stream(0, b), family_stream(1, model), file_stream(2, a)])
        got = list(lidx.merge([ib, f, ia]))
        assert len(got) == len(want) == len(a) + len(b) + len(f)
        assert got == want
        # The same file twice: its lines twice; on ties (the two lines
        # without a time too), the first source first.
        got = list(lidx.merge((ia, ia)))
        assert got == oracle([file_stream(0, a), file_stream(1, a)])
        assert [r[:3] for r in got[:4]] == [(0, 1, None), (0, 2, None), (1, 1, None), (1, 2, None)]
        assert got[4][:2] == (0, 3) and got[5][:2] == (1, 3) and got[4][2] == got[5][2] == T0


def test_since_and_until(logs):
    (pa, a), (pb, b), (live, model) = logs["a"], logs["b"], logs["fam"]
    ta, tb = line_times(a), line_times(b)

    def kept(records, since, until, groups):
        # Each group (a file, or a family member) keeps the lines from its
        # first at or after `since` to its last before `until`; a family
        # keeps the span of its members' ranges.
        lo = hi = None
        for g in groups:
            ts = [r[2] for r in records[g.start : g.stop]]
            s = next((i for i, t in enumerate(ts) if t is not None and t >= since), len(ts)) if since is not None else 0
            e = max((i + 1 for i, t in enumerate(ts) if t is not None and t < until), default=0) if until is not None else len(ts)
            if e > s:
                lo = g.start + s if lo is None else min(lo, g.start + s)
                hi = g.start + e if hi is None else max(hi, g.start + e)
        return [] if lo is None else records[lo:hi]

    starts = [first - 1 for first, _ in model.bases()] + [sum(len(m) for _, m in model.members)]
    members = [range(s, e) for s, e in zip(starts, starts[1:])]
    with lidx.Index(pa, time=True) as ia, lidx.Index(pb, time=True) as ib, lidx.Family(live, time=True) as f:
        for since, until in [
            (T0 + 1000 * MS, T0 + 900_000 * MS),
            (None, T0 + 60_000 * MS),
            (T0 + 2_000_000 * MS, None),
            (T0 + 1_500_000 * MS, T0 + 1_500_001 * MS),
            (T0 + 10**15, None),
            # Instants that are stamps of both files (a tie), and a bound
            # equal to a stamp: at or after `since`, before `until`.
            (T0 + 2100 * MS, T0 + 2100 * MS + 1),
            (T0 + 2100 * MS, T0 + 7000 * MS),
        ]:
            sa, sb = file_stream(0, a), file_stream(1, b)
            sf = family_stream(2, model)
            want = oracle(
                [
                    kept(sa, since, until, [range(0, len(a))]),
                    kept(sb, since, until, [range(0, len(b))]),
                    kept(sf, since, until, members),
                ]
            )
            assert list(lidx.merge([ia, ib, f], since=since, until=until)) == want, (since, until)
            # The same instants as strings (of whole milliseconds).
            if since is not None and until is not None and since % MS == until % MS == 0:
                assert list(lidx.merge([ia, ib, f], since=iso(since), until=iso(until))) == want
        # One index's time queries, against the oracle.
        for t in [T0 - 1, T0, T0 + 700 * MS, T0 + 700 * MS + 1, T0 + 3_000_000 * MS, T0 + 10**15]:
            first = next((i + 1 for i, x in enumerate(ta) if x is not None and x >= t), None)
            assert ia.line_at_time(t) == first
            r = kept(sb, t, t + 30_000 * MS, [range(0, len(b))])
            assert ib.time_range(t, t + 30_000 * MS) == ((r[0][1], r[-1][1]) if r else None)
        assert ia.time_range() == (1, len(a))
        assert ib.time_range(until=T0) is None


def test_stopping_early(logs):
    (pa, a), (pb, b) = logs["a"], logs["b"]
    want = oracle([file_stream(0, a), file_stream(1, b)])
    with lidx.Index(pa, time=True) as ia, lidx.Index(pb, time=True) as ib:
        m = lidx.merge([ia, ib])
        assert iter(m) is m
        # Across the first batch.
        assert list(itertools.islice(m, 5000)) == want[:5000]
        assert next(m) == want[5000]
        m.close()
        assert list(m) == []
        for line in lidx.merge([ia, ib]):
            break
        assert line == want[0]
        assert list(lidx.merge([])) == []


def test_bad_sources(logs, tmp_path):
    (pa, _), (pb, _) = logs["a"], logs["b"]
    with lidx.Index(pa, time=True) as ia, lidx.Index(pb) as plain:
        with pytest.raises(lidx.InvalidArgumentError) as e:
            lidx.merge([ia, plain])
        assert str(e.value).startswith("sources[1]: ") and "b.log" in str(e.value) and "time=True" in str(e.value)
        with pytest.raises(lidx.InvalidArgumentError, match="time=True"):
            plain.line_at_time(T0)
        with pytest.raises(lidx.InvalidArgumentError, match="time=True"):
            plain.time_range()
        with pytest.raises(TypeError, match=r"sources\[1\]"):
            lidx.merge([ia, "b.log"])
        with pytest.raises(TypeError):
            lidx.merge(ia)
        with pytest.raises(lidx.InvalidArgumentError):
            lidx.merge([ia], since="yesterday-ish")
        with pytest.raises(TypeError):
            lidx.merge([ia], since=1.5)
        with pytest.raises(lidx.InvalidArgumentError):
            lidx.merge([ia], until=2**64)
    with pytest.raises(ValueError, match="closed"):
        lidx.merge([ia])
    (live, _) = logs["fam"]
    f = lidx.Family(live)
    with pytest.raises(lidx.InvalidArgumentError, match="time=True"):
        lidx.merge([f])
    f.close()
    with pytest.raises(ValueError, match="closed"):
        lidx.merge([f])


def test_agrees_with_the_command_line(logs, lidx_cli):
    (pa, a), (pb, b) = logs["a"], logs["b"]
    with lidx.Index(pa, time=True) as ia, lidx.Index(pb, time=True) as ib:
        got = list(lidx.merge([ia, ib]))
    names = [str(pa).encode(), str(pb).encode()]
    want = b"".join(
        names[s] + b":" + str(n).encode() + b":" + (l if l.endswith(b"\n") else l + b"\n")
        for s, n, _, l in got
    )
    out = run(lidx_cli, "lines", "--merge", "-n", pa, pb).stdout
    assert split_lines(out) == split_lines(want)
