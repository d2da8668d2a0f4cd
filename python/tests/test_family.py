"""lidx.Family against a naive model of the files: the members' lines
kept in Python lists, numbered from 1 across the members oldest first, a
member's last line without a newline given one when a line follows it in
a read; times read by Python's datetime (conftest.line_times); errors and
their messages against the command line's (``lidx count -R``)."""

import datetime
import gzip
import os
import time

import pytest

import lidx
from conftest import iso, line_times, run

T0 = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z

# Oldest first: (name, lines, last line without a newline, first line
# without a stamp).
MEMBERS = [
    ("app.log.3.gz", 400, False, False),
    ("app.log.2", 300, True, False),
    ("app.log.1", 350, False, True),
    ("app.log", 200, False, False),
]


class Model:
    """The family as lists: member k's lines, and every line's global
    number (1-based), member, offset and time."""

    def __init__(self):
        self.members = []  # [(name, [bytes])]
        t = T0
        for k, (name, n, unterminated, bare_start) in enumerate(MEMBERS):
            lines = []
            for i in range(n):
                if (bare_start and i == 0) or i % 11 == 5:
                    line = f"    at frame {i} of member {k}\n"
                else:
                    t += 250_000_000 * (1 + i % 3)
                    line = f"{iso(t)} INFO m{k} line {i} {'x' * (i % 23)}\n"
                lines.append(line.encode())
            if unterminated:
                lines[-1] = lines[-1][:-1]
            self.members.append((name, lines))

    def write(self, d):
        for k, (name, lines) in enumerate(self.members):
            data = b"".join(lines)
            p = d / name
            p.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
            if k < len(self.members) - 1:
                # Rotated long ago: no wait for a writer to leave it alone.
                old = time.time() - 3600
                os.utime(p, (old, old))

    def bases(self, first_member=0):
        """(first_line, offset) of each member, 1-based lines."""
        out, line, off = [], 1, 0
        for _, lines in self.members:
            out.append((line, off))
            line += len(lines)
            off += sum(map(len, lines))
        return out

    def lines(self):
        """Every line, numbered from 1: (member, bytes as read alone)."""
        return [(k, l) for k, (_, lines) in enumerate(self.members) for l in lines]

    def read(self, first, last, present=1):
        """Lines first..last (1-based, both included) as a family read
        gives them: a member's unterminated last line gets a newline when
        a line follows it."""
        all_lines = [l for _, l in self.lines()]
        first = max(first, present)
        last = min(last, len(all_lines))
        out = [all_lines[g - 1] for g in range(first, last + 1)]
        return [l if l.endswith(b"\n") or i == len(out) - 1 else l + b"\n" for i, l in enumerate(out)]

    def times(self):
        """Every line's time, each member's own (a member's first line
        without a stamp has none)."""
        return [t for _, lines in self.members for t in line_times(lines)]


@pytest.fixture
def model():
    return Model()


@pytest.fixture
def live(tmp_path, model):
    d = tmp_path / "logs"
    d.mkdir()
    model.write(d)
    return d / "app.log"


def open_family(live, **kw):
    kw.setdefault("time", True)
    kw.setdefault("spacing", 1024)
    return lidx.Family(live, **kw)


def test_members_and_every_line(live, model):
    with open_family(live) as f:
        assert f.action == "numbered" and os.path.exists(f.manifest_path)
        n = sum(len(l) for _, l in model.members)
        assert (f.first_line, f.end_line, f.line_count, len(f)) == (1, n + 1, n, n)
        members = f.members
        assert [os.path.basename(m.path) for m in members] == [name for name, _ in model.members]
        for m, (first, off), (name, lines) in zip(members, model.bases(), model.members):
            assert (m.first_line, m.offset, m.line_count) == (first, off, len(lines))
            # The member's own Index, in its own numbers.
            assert m.index.line_count == len(lines)
            assert m.index.lines(1, -1) == lines
            assert m.index.is_gzip == name.endswith(".gz")
            assert m.index.action == "built"
        assert f.lines(1, -1) == model.read(1, n)
        offset = 0
        for g, (k, line) in enumerate(model.lines(), start=1):
            assert f.line(g) == line
            assert f.member_of(g) == k
            assert f.line_at(offset) == g and f.line_at(offset + len(line) - 1) == g
            offset += len(line)
        with pytest.raises(lidx.OutOfRangeError):
            f.line_at(offset)


def test_ranges_across_members(live, model):
    with open_family(live) as f:
        n = f.line_count
        b = [first for first, _ in model.bases()]
        for first, last in [
            (b[1] - 2, b[1] + 1),
            (b[2] - 1, b[2]),  # app.log.2's unterminated last line, then app.log.1's
            (b[2] - 1, b[2] - 1),  # alone: as it is
            (b[3] - 3, n + 50),
            (-5, -1),
            (1, 1),
            (n, n),
            (n + 1, n + 9),
        ]:
            want = model.read(first if first > 0 else n + 1 + first, last if last > 0 else n + 1 + last)
            assert f.lines(first, last) == want, (first, last)
        assert f.line(-1) == model.lines()[-1][1]
        assert f.member_of(-1) == len(MEMBERS) - 1
        with pytest.raises(lidx.InvalidArgumentError):
            f.lines(5, 4)
        with pytest.raises(lidx.InvalidArgumentError):
            f.line(0)
        with pytest.raises(lidx.OutOfRangeError, match="is past the end"):
            f.line(n + 1)
        with pytest.raises(lidx.OutOfRangeError, match="before the first line"):
            f.line(-(n + 1))


def test_time_queries(live, model):
    times = model.times()
    bases = model.bases()
    with open_family(live) as f:

        def first_at(t):
            for g, x in enumerate(times, start=1):
                if x is not None and x >= t:
                    return g
            return None

        def time_range(since, until):
            # Each member's own range, joined.
            lo = hi = None
            for k, (_, lines) in enumerate(model.members):
                b = bases[k][0]
                own = times[b - 1 : b - 1 + len(lines)]
                s = 0 if since is None else next((i for i, x in enumerate(own) if x is not None and x >= since), len(own))
                e = len(own) if until is None else max((i + 1 for i, x in enumerate(own) if x is not None and x < until), default=0)
                if e > s:
                    lo = b + s if lo is None else min(lo, b + s)
                    hi = b + e - 1 if hi is None else max(hi, b + e - 1)
            return None if lo is None else (lo, hi)

        stamped = sorted({x for x in times if x is not None})
        probes = [T0 - 1, T0, stamped[0], stamped[0] + 1, stamped[len(stamped) // 3], stamped[-1], stamped[-1] + 1]
        for t in probes:
            assert f.line_at_time(t) == first_at(t), t
            # The same instant as a string and as a datetime.
            assert f.line_at_time(iso(t)) == first_at(t - t % 1_000_000)
            dt = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(microseconds=t // 1000)
            assert f.line_at_time(dt) == first_at(t - t % 1000)
            for u in probes + [None]:
                assert f.time_range(t, u) == time_range(t, u), (t, u)
        assert f.time_range() == time_range(None, None) == (1, f.line_count)
        assert f.time_range(None, stamped[100]) == time_range(None, stamped[100])
        with pytest.raises(lidx.InvalidArgumentError):
            f.line_at_time("not a time")
        with pytest.raises(TypeError):
            f.line_at_time(1.5)


def test_oldest_deleted_keeps_the_numbers(live, model):
    with open_family(live) as f:
        before = f.lines(1, -1)
    (live.parent / "app.log.3.gz").unlink()
    with lidx.Family(live) as f:
        assert f.action == "updated"
        gone = len(model.members[0][1])
        n = gone + f.line_count
        assert (f.first_line, f.end_line) == (gone + 1, n + 1)
        assert [m.first_line for m in f.members] == [b for b, _ in model.bases()[1:]]
        assert f.lines(1, n) == before[gone:] == model.read(1, n, present=gone + 1)
        assert f.line(gone + 1) == model.lines()[gone][1]
        with pytest.raises(lidx.OutOfRangeError, match="was rotated away"):
            f.line(gone)
        with pytest.raises(lidx.OutOfRangeError, match="was rotated away"):
            f.member_of(1)
        with pytest.raises(lidx.OutOfRangeError, match="was rotated away"):
            f.line_at(0)
        assert f.lines(1, gone) == []
        # Times still answer, without the members' time options given again.
        assert f.line_at_time(T0) == gone + 1


def test_a_missing_member_is_a_family_error(live, model, lidx_cli):
    open_family(live).close()
    (live.parent / "app.log.2").rename(live.parent.parent / "moved")
    with pytest.raises(lidx.FamilyError) as e:
        lidx.Family(live)
    msg = str(e.value)
    assert "app.log.2" in msg and "missing" in msg and isinstance(e.value, lidx.Error)
    # The command line's message, exactly.
    p = run(lidx_cli, "count", "-R", live, check=False)
    assert p.returncode == 2 and p.stderr.decode() == f"lidx: {msg}\n"
    with lidx.Family(live, renumber=True) as f:
        assert f.action == "renumbered" and f.first_line == 1
        kept = model.members[0][1] + model.members[2][1] + model.members[3][1]
        assert f.line_count == len(kept)
        assert f.line(1) == kept[0]


def test_build_progress_and_cancel(live):
    with pytest.raises(lidx.NoSidecarError):
        lidx.Family(live, build=False)
    seen = []

    def stop(done, total):
        seen.append((done, total))
        return False

    with pytest.raises(lidx.CancelledError):
        lidx.Family(live, progress=stop)
    assert len(seen) == 1
    assert not os.path.exists(str(live) + ".family.lidx")
    seen.clear()
    with lidx.Family(live, progress=lambda d, t: seen.append((d, t))) as f:
        total = sum(os.path.getsize(m.path) for m in f.members)
    assert seen and seen[-1] == (total, total)
    assert all(a[0] <= b[0] and a[1] == total for a, b in zip(seen, seen[1:]))
    # Fresh now: build=False opens it.
    with lidx.Family(live, build=False) as f:
        assert f.action == "opened" and f.members[0].index.action == "opened"


def test_close_and_arguments(live, tmp_path):
    f = open_family(live)
    member = f.members[1].index
    assert repr(f).startswith('<lidx.Family "') and "4 members" in repr(f)
    with f:
        pass
    assert f.closed and member.closed and "closed" in repr(f)
    for call in (lambda: f.lines(1, 2), lambda: f.members, lambda: len(f), lambda: member.line_count):
        with pytest.raises(ValueError, match="closed"):
            call()
    with pytest.raises(lidx.NotFoundError) as e:
        lidx.Family(tmp_path / "nowhere" / "app.log")
    assert "nowhere" in str(e.value)
    with pytest.raises(lidx.InvalidArgumentError):
        lidx.Family("https://example.com/app.log")
    with pytest.raises(lidx.InvalidArgumentError):
        lidx.Family(live, time_format="no-such-format")
    # Without a time index, time queries say how to get one.
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "x.log").write_bytes(b"one\ntwo\n")
    with lidx.Family(plain / "x.log") as g:
        assert g.lines(1, -1) == [b"one\n", b"two\n"]
        with pytest.raises(lidx.InvalidArgumentError, match="no time index"):
            g.line_at_time(0)
