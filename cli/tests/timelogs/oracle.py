#!/usr/bin/env python3
"""The oracle of the timelogs corpus: each line's own time stamp, read
independently of lidx.

For every log in this directory it writes `expected/NAME.times` (one line
per log line: the line's own stamp in UTC nanoseconds since the epoch, or
`-` when the line has no stamp of its own) and `cases.tsv` (file, the lidx
arguments that build its time index, the modification time to give the
file first, and the format name `lidx info --json` should report, or `-`).

    python3 oracle.py                  # write cases.tsv and expected/*.times
    python3 oracle.py --check          # compare them with what is written
    python3 oracle.py --csv LOGHUB     # also cross-check each loghub excerpt
                                       # against LOGHUB/X/X_2k.log_structured.csv

The readers below are written from the formats' descriptions (see
NOTICE.md), not from lidx's code: calendar arithmetic is Howard Hinnant's
days-from-civil, every stamp is read in UTC (the corpus is indexed with
`--tz UTC`), and stamps without a year get one from the file's modification
time: the latest year in which the first stamp is not after the mtime plus
one day; each later stamp the year (the last one's, or one either side)
that puts it closest to the stamp before it. Only a line's first 512 bytes
are looked at. The `--csv` cross-check reads the loghub parsers' Date/Time
columns with Python's datetime, a second path to the same instants.

Nothing here calls lidx; the Rust test (cli/tests/it/timelogs.rs) reads
only the files this writes.
"""

import csv
import datetime
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NS = 1_000_000_000
HEAD = 512
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

# Lines the readers were unsure of, printed at the end.
NOTES = []


def note(name, lineno, what):
    NOTES.append(f"{name}:{lineno}: {what}")


# ---------------------------------------------------------------- calendar

def leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def month_len(y, m):
    return [31, 29 if leap(y) else 28, 31, 30, 31, 30,
            31, 31, 30, 31, 30, 31][m - 1]


def valid(y, mo, d, h=0, mi=0, s=0):
    return (1 <= mo <= 12 and 1 <= d <= month_len(y, mo)
            and 0 <= h < 24 and 0 <= mi < 60 and 0 <= s < 60)


def days_from_civil(y, m, d):
    """Days since 1970-01-01 (Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def utc_ns(y, mo, d, h, mi, s, ns=0, offset_s=0):
    """The instant of a wall-clock time at UTC offset `offset_s`."""
    if not valid(y, mo, d, h, mi, s):
        return None
    secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s
    return (secs - offset_s) * NS + ns


def year_of(t_ns):
    days = (t_ns // NS) // 86400
    y = 1970 + days // 366
    while days_from_civil(y + 1, 1, 1) <= days:
        y += 1
    return y


def frac_ns(digits):
    """Nanoseconds of a decimal fraction's digits (beyond 9 cut off)."""
    if not digits:
        return 0
    return int((digits + "000000000")[:9])


def weekday(y, mo, d):
    return DAYS[(days_from_civil(y, mo, d) + 3) % 7]  # 1970-01-01: Thu


def parse_mtime(text):
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z", text)
    y, mo, d, h, mi, s = map(int, m.groups())
    return utc_ns(y, mo, d, h, mi, s) // NS


# ----------------------------------------------------------------- readers
# Each takes a line's first 512 bytes (str, latin-1) and returns its stamp:
# nanoseconds, a (month, day, h, m, s, ns) tuple for formats without a
# year, or None.

def read_epoch_field(field_index):
    """Epoch seconds in the given whitespace-separated field (loghub's
    HPC: `<LogId> <Node> <Component> <State> <Time> ...`; BGL and
    Thunderbird: `<Label> <Timestamp> ...`), checked to be the first field
    that is a plausible epoch time (10 digits)."""
    def read(line, name, lineno):
        fields = line.split()
        if len(fields) <= field_index:
            return None
        f = fields[field_index]
        if not re.fullmatch(r"\d{10}", f):
            return None
        for i, g in enumerate(fields[:field_index]):
            if re.fullmatch(r"\d{9,10}", g):
                note(name, lineno, f"field {i + 1} ({g}) also looks like "
                                   "epoch seconds")
        return int(f) * NS
    return read


def read_yymmdd(line, name, lineno):
    m = re.match(r"(\d{2})(\d{2})(\d{2}) (\d{2})(\d{2})(\d{2}) ", line)
    if not m:
        return None
    yy, mo, d, h, mi, s = map(int, m.groups())
    return utc_ns(2000 + yy, mo, d, h, mi, s)


def read_yy_slash(line, name, lineno):
    m = re.match(r"(\d{2})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})\b", line)
    if not m:
        return None
    yy, mo, d, h, mi, s = map(int, m.groups())
    return utc_ns(2000 + yy, mo, d, h, mi, s)


ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?"
    r"(Z|[+-]\d{2}:?\d{2})?")


def iso_value(text):
    """An ISO 8601 date and time at the start of `text` (zoneless: UTC)."""
    m = ISO.match(text)
    if not m:
        return None
    y, mo, d, h, mi = map(int, m.groups()[:5])
    s = int(m.group(6) or 0)
    ns = frac_ns(m.group(7))
    off = 0
    z = m.group(8)
    if z and z != "Z":
        sign = -1 if z[0] == "-" else 1
        digits = z[1:].replace(":", "")
        off = sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return utc_ns(y, mo, d, h, mi, s, ns, off)


def read_iso_start(line, name, lineno):
    """`2015-10-18 18:01:47,978` at the start of the line (Hadoop,
    Zookeeper, Windows's `2016-09-28 04:30:30,` with no fraction)."""
    return iso_value(line)


def read_openstack(line, name, lineno):
    """loghub's OpenStack: `<Logrecord> <Date> <Time> ...`; the log
    record's name (`nova-api.log.1.2017-05-16_13:53:08`) is not a stamp."""
    first, sep, rest = line.partition(" ")
    if not sep:
        return None
    if ISO.match(first):
        note(name, lineno, "the first field reads as ISO 8601")
    return iso_value(rest)


def read_syslog(line, name, lineno):
    m = re.match(r"([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2})\b", line)
    if not m or m.group(1) not in MONTHS:
        return None
    mo = MONTHS.index(m.group(1)) + 1
    d, h, mi, s = int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))
    return (mo, d, h, mi, s, 0)


def read_android(line, name, lineno):
    """`03-17 16:13:38.811` (`%m-%d %H:%M:%S%.f`)."""
    m = re.match(r"(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d+)", line)
    if not m:
        return None
    mo, d, h, mi, s = map(int, m.groups()[:5])
    return (mo, d, h, mi, s, frac_ns(m.group(6)))


def read_proxifier(line, name, lineno):
    """`[10.30 16:49:06]` (`[%m.%d %H:%M:%S]`)."""
    m = re.match(r"\[(\d{2})\.(\d{2}) (\d{2}):(\d{2}):(\d{2})\]", line)
    if not m:
        return None
    mo, d, h, mi, s = map(int, m.groups())
    return (mo, d, h, mi, s, 0)


def read_glog(line, name, lineno):
    """`I0517 15:04:22.619632` (a level letter, then `%m%d %H:%M:%S%.f`)."""
    m = re.match(r"[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d+)", line)
    if not m:
        return None
    mo, d, h, mi, s = map(int, m.groups()[:5])
    return (mo, d, h, mi, s, frac_ns(m.group(6)))


def read_healthapp(line, name, lineno):
    """`20171223-22:15:29:606`: the last field is an integer count of
    milliseconds (`:7` is 7 ms, `:60` 60 ms)."""
    m = re.match(r"(\d{4})(\d{2})(\d{2})-(\d{2}):(\d{2}):(\d{2}):(\d{1,3})(?!\d)", line)
    if not m:
        return None
    y, mo, d, h, mi, s, ms = map(int, m.groups())
    return utc_ns(y, mo, d, h, mi, s, ms * 1_000_000)


def read_ctime(line, name, lineno):
    """Apache's `[Sun Dec 04 04:47:44 2005]`; the weekday is checked."""
    m = re.match(r"\[([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) "
                 r"(\d{2}):(\d{2}):(\d{2}) (\d{4})\]", line)
    if not m or m.group(2) not in MONTHS:
        return None
    mo = MONTHS.index(m.group(2)) + 1
    d, h, mi, s, y = (int(m.group(i)) for i in range(3, 8))
    if valid(y, mo, d) and weekday(y, mo, d) != m.group(1):
        note(name, lineno, f"weekday {m.group(1)} is not {weekday(y, mo, d)}")
    return utc_ns(y, mo, d, h, mi, s)


KEYED = re.compile(r'"(?:time|ts)"\s*:\s*|(?:^|(?<=[\s{,]))time=')
EPOCH_UNITS = {10: 1, 13: 1_000, 16: 1_000_000, 19: 1_000_000_000}


def epoch_value(text):
    """10 digits: seconds (a fraction may follow); 13: ms; 16: µs; 19: ns."""
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?", text)
    if not m or len(m.group(1)) not in EPOCH_UNITS:
        return None
    per_s = EPOCH_UNITS[len(m.group(1))]
    whole = int(m.group(1))
    unit_ns = NS // per_s
    return whole * unit_ns + int(frac_ns(m.group(2)) * unit_ns // NS)


def read_keyed(line, name, lineno):
    """A `"time":…`, `"ts":…` or `time=…` key anywhere in the first 512
    bytes; its value an ISO 8601 string or an epoch number (quoted or
    not)."""
    hits = list(KEYED.finditer(line))
    if len(hits) > 1:
        note(name, lineno, f"{len(hits)} time keys; the first is read")
    if not hits:
        return None
    rest = line[hits[0].end():]
    if rest.startswith('"'):
        end = rest.find('"', 1)
        if end < 0:
            note(name, lineno, "time value cut at 512 bytes")
            return None
        value = rest[1:end]
    else:
        value = re.match(r"[^\s,}\]]*", rest).group(0)
        if len(line) == HEAD and hits[0].end() + len(value) == HEAD:
            note(name, lineno, "time value cut at 512 bytes")
    t = epoch_value(value)
    if t is None:
        t = iso_value(value)
        if t is not None and ISO.match(value).end() != len(value):
            note(name, lineno, f"trailing text after the stamp in {value!r}")
    if t is None:
        note(name, lineno, f"time key with no stamp: {value!r}")
    return t


# ------------------------------------------------------------------- cases
# (file, lidx arguments, mtime, format lidx should name, reader)
UTC = "--tz UTC"
CASES = [
    ("HPC_2k.log", f"{UTC} --time-format '%s'", "2006-04-21T00:00:00Z", "-",
     read_epoch_field(4)),
    ("BGL_2k.log", f"{UTC} --time-format '%s'", "2005-06-15T00:00:00Z", "-",
     read_epoch_field(1)),
    ("Thunderbird_2k.log", f"{UTC} --time-format '%s'", "2005-11-10T00:00:00Z", "-",
     read_epoch_field(1)),
    ("HDFS_2k.log", UTC, "2008-11-11T12:00:00Z", "auto:yymmdd", read_yymmdd),
    ("Spark_2k.log", UTC, "2017-06-09T21:00:00Z", "auto:yy-slash", read_yy_slash),
    ("Hadoop_2k.log", UTC, "2015-10-18T19:00:00Z", "auto:iso8601", read_iso_start),
    ("Zookeeper_2k.log", UTC, "2015-08-01T00:00:00Z", "auto:iso8601", read_iso_start),
    ("Windows_2k.log", UTC, "2016-09-28T05:00:00Z", "auto:iso8601", read_iso_start),
    ("OpenStack_2k.log", UTC, "2017-05-16T14:00:00Z", "auto:iso8601", read_openstack),
    # syslog: the real year is 2005 (the log's ftpd lines say "Fri Jun 17
    # ... 2005"); mtime just after the excerpt's last line.
    ("Linux_2k.log", UTC, "2005-06-22T14:00:00Z", "auto:syslog", read_syslog),
    # 2017 (the kernel's "RTC: Maintenance 2017/7/1" lines).
    ("Mac_2k.log", UTC, "2017-07-02T14:00:00Z", "auto:syslog", read_syslog),
    # Year unknown; the full log runs 28 days from Dec 10: an mtime in the
    # January after puts Dec 10 in the year before.
    ("OpenSSH_2k.log", UTC, "2016-01-07T00:00:00Z", "auto:syslog", read_syslog),
    # Year unknown.
    ("Android_2k.log", f"{UTC} --time-format '%m-%d %H:%M:%S%.f'",
     "2017-03-17T17:00:00Z", "-", read_android),
    # Year unknown; an mtime in the January after (Oct 30 goes to 2016).
    ("Proxifier_2k.log", f"{UTC} --time-format '[%m.%d %H:%M:%S]'",
     "2017-01-15T00:00:00Z", "-", read_proxifier),
    ("HealthApp_2k.log", f"{UTC} --time-format '%Y%m%d-%H:%M:%S:%3f'",
     "2017-12-24T00:00:00Z", "-", read_healthapp),
    ("Apache_2k.log", UTC, "2005-12-05T00:00:00Z", "auto:ctime", read_ctime),
    ("lnav_logfile_bunyan.0", UTC, "2023-03-24T15:00:00Z", "auto:keyed", read_keyed),
    # `caddy  | {"level":"info","ts":1761019822.3152757,...`: docker
    # compose's prefix, then a JSON line with epoch seconds.
    ("lnav_logfile_caddy_log.0", UTC, "2025-10-21T04:30:00Z", "auto:keyed", read_keyed),
    ("lnav_logfile_pino.0", UTC, "2025-04-24T23:00:00Z", "auto:keyed", read_keyed),
    # These three also have an ISO 8601 stamp in their first 64 bytes:
    # detected as keyed or as iso8601, the times are the same.
    ("lnav_logfile_logfmt.0", UTC, "2021-09-15T22:00:00Z", "-", read_keyed),
    ("lnav_logfile_nextcloud.0", UTC, "2023-10-16T02:00:00Z", "-", read_keyed),
    ("lnav_logfile_json.json", UTC, "2013-09-06T23:00:00Z", "-", read_keyed),
    # Year unknown; mtime the day lnav added the file (2016-06-30).
    ("lnav_logfile_glog.0", f"{UTC} --time-format '%m%d %H:%M:%S%.f'",
     "2016-06-30T00:00:00Z", "-", read_glog),
]


def read_lines(path):
    data = open(path, "rb").read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def first_year(stamp, mtime):
    """The latest year in which the first stamp is not after mtime + 1 day."""
    mo, d, h, mi, s, ns = stamp
    ym = year_of(mtime * NS)
    for y in range(ym + 1, ym - 8, -1):
        t = utc_ns(y, mo, d, h, mi, s, ns)
        if t is not None and t <= (mtime + 86400) * NS:
            return y
    raise ValueError(f"no year for {stamp}")


def stamps(name, reader, mtime):
    times = []
    prev = None  # (time, year) of the last stamped line, for yearless stamps
    for lineno, raw in enumerate(read_lines(os.path.join(HERE, name)), 1):
        line = raw[:HEAD].decode("latin-1")
        st = reader(line, name, lineno)
        if isinstance(st, tuple):
            mo, d, h, mi, s, ns = st
            if prev is None:
                y = first_year(st, mtime)
                t = utc_ns(y, mo, d, h, mi, s, ns)
            else:
                pt, py = prev
                cands = [(abs(c - pt), c, y) for y in (py - 1, py, py + 1)
                         if (c := utc_ns(y, mo, d, h, mi, s, ns)) is not None]
                if not cands:
                    note(name, lineno, "no year makes this a valid date")
                    times.append(None)
                    continue
                _, t, y = min(cands)
            prev = (t, y)
            st = t
        times.append(st)
    return times


def render(times):
    return "".join("-\n" if t is None else f"{t}\n" for t in times)


def cases_tsv():
    rows = ["# file\targs (lidx index --time ARGS FILE)\tmtime (UTC)\t"
            "format in `lidx info --json` (- unchecked)\n"]
    for name, args, mtime, fmt, _ in CASES:
        rows.append(f"{name}\t{args}\t{mtime}\t{fmt}\n")
    return "".join(rows)


# --------------------------------------------------- loghub cross-check
CSV_STAMP = {
    # name: (columns joined by a space, strptime format or a function)
    "HPC": (["Time"], "epoch"),
    "BGL": (["Timestamp"], "epoch"),
    "Thunderbird": (["Timestamp"], "epoch"),
    "HDFS": (["Date", "Time"], "%y%m%d %H%M%S"),
    "Spark": (["Date", "Time"], "%y/%m/%d %H:%M:%S"),
    "Hadoop": (["Date", "Time"], "%Y-%m-%d %H:%M:%S,%f"),
    "Zookeeper": (["Date", "Time"], "%Y-%m-%d %H:%M:%S,%f"),
    "Windows": (["Date", "Time"], "%Y-%m-%d %H:%M:%S"),
    "OpenStack": (["Date", "Time"], "%Y-%m-%d %H:%M:%S.%f"),
    "Linux": (["Month", "Date", "Time"], "%b %d %H:%M:%S"),
    "Mac": (["Month", "Date", "Time"], "%b %d %H:%M:%S"),
    "OpenSSH": (["Date", "Day", "Time"], "%b %d %H:%M:%S"),
    "Android": (["Date", "Time"], "%m-%d %H:%M:%S.%f"),
    "Proxifier": (["Time"], "%m.%d %H:%M:%S"),
    "HealthApp": (["Time"], "healthapp"),
    "Apache": (["Time"], "%a %b %d %H:%M:%S %Y"),
}


def csv_instant(kind, fmt, value, year):
    if fmt == "epoch":
        return int(value) * NS
    if fmt == "healthapp":
        head, ms = value.rsplit(":", 1)
        dt = datetime.datetime.strptime(head, "%Y%m%d-%H:%M:%S")
        dt += datetime.timedelta(milliseconds=int(ms))
    else:
        if "%Y" not in fmt and "%y" not in fmt:
            value, fmt = f"{year} {value}", f"%Y {fmt}"
        dt = datetime.datetime.strptime(value, fmt)
    dt = dt.replace(tzinfo=datetime.timezone.utc)
    delta = dt - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return (delta.days * 86400 + delta.seconds) * NS + delta.microseconds * 1000


def check_csv(loghub):
    bad = 0
    for name, _, _, _, _ in CASES:
        kind = name.split("_2k")[0]
        if kind not in CSV_STAMP:
            continue
        cols, fmt = CSV_STAMP[kind]
        path = os.path.join(loghub, kind, f"{kind}_2k.log_structured.csv")
        rows = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
        times = [None if t == "-" else int(t) for t in
                 open(os.path.join(HERE, "expected", name + ".times")).read().split()]
        lines = read_lines(os.path.join(HERE, name))
        for i, t in enumerate(times):
            row = rows[i]
            assert int(row["LineId"]) == i + 1
            value = " ".join(row[c] for c in cols)
            year = year_of(t) if t is not None else 1970
            want = csv_instant(kind, fmt, value, year)
            if want != t:
                bad += 1
                print(f"{name}:{i + 1}: oracle {t}, structured CSV {value!r} = {want}")
            # The row is this line: its content is in it.
            content = row["Content"].strip()
            if content and content.encode() not in lines[i]:
                print(f"{name}:{i + 1}: CSV content not in the line: {content[:60]!r}")
                bad += 1
        print(f"{name}: {len(times)} lines checked against {kind}_2k.log_structured.csv")
    return bad


def main(argv):
    check = "--check" in argv
    outputs = {os.path.join(HERE, "cases.tsv"): cases_tsv()}
    for name, _, mtime, _, reader in CASES:
        times = stamps(name, reader, parse_mtime(mtime))
        outputs[os.path.join(HERE, "expected", name + ".times")] = render(times)
        n = sum(t is not None for t in times)
        print(f"{name}: {len(times)} lines, {n} stamped, "
              f"{len(set(t for t in times if t is not None))} distinct stamps")
    failed = 0
    for path, text in outputs.items():
        if check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                print(f"differs: {path}")
                failed += 1
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    if "--csv" in argv:
        failed += check_csv(argv[argv.index("--csv") + 1])
    for n in NOTES:
        print("note:", n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
