#!/usr/bin/env python3
"""Spark and Dask reading a gzip log: the engines' stock readers against
lidx's, in one run, on local clusters on 127.0.0.1.

    benches/engines.py [--text-bytes N] [--data DIR] [--runs R] [--only spark|dask]

(default: 4 GiB of text, ./bench-data, 3 runs). Needs the Python package
with its extras (``pip install './python[spark]' './python[dask]'``, built
in release: ``pip install`` without ``--profile dev``), Java 17+, pigz or
gzip, and the release command line (``cargo build --release``).

Generates the benchmarks' deterministic log (examples/genlog.rs, 50
stamped lines a second) and its ``gzip -6`` (pigz -6 when installed),
builds its sidecar with the time index (timed once), then:

1. Spark, ``local-cluster[2,1,2048]`` (two executors of one core each):
   a regex count (``rlike``) over the whole archive, stock
   ``spark.read.text`` (one task: a ``.gz`` does not split) against
   ``spark.read.format("lidx")`` (one task per partition), runs
   alternated; then a one-hour window, through pushed filters on
   ``time`` (``spark.sql.python.filterPushdown.enabled=true``), through
   the ``since``/``until`` options, and as full scans (lidx with
   ``pushdown=false``; stock with the stamp compared as a string).
2. Dask, ``LocalCluster(2 workers, 1 thread each, processes)``: the same
   count, ``dask.bag.read_text(blocksize=None)`` against
   ``lidx.dask.read_lines``, and the window (``since``/``until``) against
   a full scan.
3. Each lidx partition read alone in this process (the task's whole work:
   decode from its access point, split, Arrow batches): the per-partition
   cost, its skew, and from them a projection of the full-scan wall time
   on 16 and 64 cores (longest-first list scheduling of the measured
   costs, plus the measured planning time; a projection, not a
   measurement). The stock reader's single task cannot use more cores.

Every pair is checked to give the same answer, and the answers against
``lidx grep -c`` and ``lidx lines --since/--until``. Wall times are
medians of the runs; "busy" is the share of the machine's CPU time that
was not idle during a run (/proc/stat), so 100% means both cores.
"""

import argparse
import datetime as dt
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIDX = REPO / "target" / "release" / "lidx"
PATTERN = "ERROR.*timeout"


def cpu_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v), idle


def timed(fn):
    """(seconds, busy share, result) of fn()."""
    t0, i0 = cpu_ticks()
    s = time.perf_counter()
    r = fn()
    d = time.perf_counter() - s
    t1, i1 = cpu_ticks()
    busy = 1 - (i1 - i0) / max(t1 - t0, 1)
    return d, busy, r


def alternate(runs, *fns):
    """Runs fns in turn, runs times over; per fn the medians of (seconds,
    busy), and the answer (checked the same for all)."""
    results = [[] for _ in fns]
    for _ in range(runs):
        for fn, out in zip(fns, results):
            out.append(timed(fn))
    answers = {r[2] for rs in results for r in rs}
    if len(answers) != 1:
        sys.exit(f"engines.py: the answers differ: {[[r[2] for r in rs] for rs in results]}")
    med = lambda rs, i: statistics.median(r[i] for r in rs)  # noqa: E731
    return [(med(rs, 0), med(rs, 1)) for rs in results] + [answers.pop()]


def fmt_s(s):
    return f"{s:.2f} s" if s >= 1 else f"{s * 1000:.0f} ms"


def row(name, a, b, answer, tasks_a="", tasks_b=""):
    ratio = a[0] / b[0]
    print(
        f"| {name} | {fmt_s(a[0])} ({a[1]:.0%}){tasks_a} | {fmt_s(b[0])} ({b[1]:.0%}){tasks_b} "
        f"| {ratio:.1f}× | {answer:,} |"
    )


def iso(d):
    """A UTC datetime as ``--since`` takes it."""
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp(d):
    """A datetime as the log's stamps begin (19 characters, no zone)."""
    return d.strftime("%Y-%m-%dT%H:%M:%S")


def tasks(n, what="task"):
    return f", {n} {what}" + ("" if n == 1 else "s")


def make_data(size, data):
    data.mkdir(parents=True, exist_ok=True)
    text = data / f"engines-{size}.log"
    gz = data / f"engines-{size}.log.gz"
    if not text.exists():
        subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "genlog"], cwd=REPO, check=True)
        subprocess.run([str(REPO / "target/release/examples/genlog"), str(text), str(size)], check=True)
    if not gz.exists():
        tool = ["pigz", "-6", "-c"] if shutil.which("pigz") else ["gzip", "-6", "-c"]
        with open(str(gz) + ".tmp", "wb") as out:
            subprocess.run(tool + [str(text)], stdout=out, check=True)
        os.rename(str(gz) + ".tmp", gz)
    return text, gz


def cli(*args):
    return subprocess.run([str(LIDX), *map(str, args)], capture_output=True, check=True).stdout


def window_of(gz, count):
    """A one-hour window, whole hours, around the archive's middle line."""
    mid = cli("lines", gz, count // 2).decode()
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d)", mid)
    start = dt.datetime.strptime(m.group(1), "%Y-%m-%dT%H").replace(tzinfo=dt.timezone.utc)
    return start, start + dt.timedelta(hours=1)


def lpt(costs, cores):
    """The makespan of costs on cores, longest first to the least loaded."""
    loads = [0.0] * cores
    for c in sorted(costs, reverse=True):
        i = loads.index(min(loads))
        loads[i] += c
    return max(loads)


class Tracked:
    """A Spark query whose last run's jobs can be found again: each run
    tags its jobs with the group, and remembers which were there before."""

    def __init__(self, spark, group, fn):
        self.spark, self.group, self.fn = spark, group, fn
        self.before = set()

    def __call__(self):
        sc = self.spark.sparkContext
        self.before = set(sc.statusTracker().getJobIdsForGroup(self.group))
        sc.setJobGroup(self.group, self.group)
        try:
            return self.fn()
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)

    def last_run_tasks(self):
        """The run times (s) of the tasks of the widest stage of the last
        run (of two as wide, the longer: the scan, not the final
        aggregation), from Spark's REST API. Under adaptive execution a
        query runs several jobs: all of the run's are looked at."""
        import json
        from urllib.request import urlopen

        sc = self.spark.sparkContext
        st = sc.statusTracker()
        best = []
        for job in set(st.getJobIdsForGroup(self.group)) - self.before:
            for stage in st.getJobInfo(job).stageIds:
                url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/stages/{stage}/0/taskList?length=100000"
                try:
                    with urlopen(url, timeout=30) as r:
                        got = [t["taskMetrics"]["executorRunTime"] / 1000 for t in json.load(r)
                               if t.get("status") == "SUCCESS"]
                except OSError:
                    continue  # a skipped stage (its output reused) has no attempt
                if (len(got), sum(got)) > (len(best), sum(best)):
                    best = got
        return best


def spark_section(gz, runs, want_count, since, until, want_window):
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    from lidx.spark import LidxDataSource

    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    t = time.perf_counter()
    spark = (
        SparkSession.builder.master("local-cluster[2,1,2048]")
        .appName("lidx-bench")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.port", "4040")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.executor.memory", "2g")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.python.filterPushdown.enabled", "true")
        .getOrCreate()
    )
    spark.dataSource.register(LidxDataSource)
    spark.sparkContext.setLogLevel("ERROR")
    print(f"Spark {spark.version} up in {time.perf_counter() - t:.1f} s.\n")
    path = str(gz)
    stock = lambda: spark.read.text(path)  # noqa: E731
    lidx = lambda **o: spark.read.options(**o).format("lidx").load(path)  # noqa: E731
    n_stock = stock().rdd.getNumPartitions()
    n_lidx = lidx().rdd.getNumPartitions()

    print("| Spark, 2 executors × 1 core | stock `spark.read.text` | `format(\"lidx\")` | ratio | rows |")
    print("|---|---:|---:|---:|---:|")
    stock_rlike = Tracked(spark, "stock-rlike", lambda: stock().where(F.col("value").rlike(PATTERN)).count())
    lidx_rlike = Tracked(spark, "lidx-rlike", lambda: lidx().where(F.col("text").rlike(PATTERN)).count())
    a, b, n = alternate(runs, stock_rlike, lidx_rlike)
    assert n == want_count, (n, want_count)
    row(f"`rlike '{PATTERN}'` count, whole archive", a, b, n, tasks(n_stock), tasks(n_lidx))
    projection = (a, b, stock_rlike.last_run_tasks(), lidx_rlike.last_run_tasks())

    lo, hi = since, until
    first19 = F.substring("value", 1, 19)
    lo_s, hi_s = stamp(lo), stamp(hi)
    in_window = (F.col("time") >= F.lit(lo)) & (F.col("time") < F.lit(hi))
    n_pushed = lidx().where(in_window).rdd.getNumPartitions()
    n_options = lidx(since=iso(lo), until=iso(hi)).rdd.getNumPartitions()
    full, scan, pushed, options, n = alternate(
        runs,
        lambda: stock().where((first19 >= lo_s) & (first19 < hi_s)).count(),
        lambda: lidx(pushdown="false").where(in_window).count(),
        lambda: lidx().where(in_window).count(),
        lambda: lidx(since=iso(lo), until=iso(hi)).count(),
    )
    assert n == want_window, (n, want_window)
    row("one hour: stock full scan vs lidx, filters pushed", full, pushed, n, tasks(n_stock), tasks(n_pushed))
    row("one hour: lidx full scan (`pushdown=false`) vs pushed", scan, pushed, n, tasks(n_lidx), tasks(n_pushed))
    row("one hour: lidx full scan vs options `since`/`until`", scan, options, n, tasks(n_lidx), tasks(n_options))
    print()
    a, b, stock_tasks, lidx_tasks = projection
    med = statistics.median(lidx_tasks)
    print(f"The regex count's tasks as Spark ran them (executor run time, last run): stock 1 task of "
          f"{fmt_s(stock_tasks[0])}; lidx {len(lidx_tasks)} tasks, median {fmt_s(med)}, min "
          f"{fmt_s(min(lidx_tasks))}, max {fmt_s(max(lidx_tasks))} (skew max/median {max(lidx_tasks) / med:.2f}), "
          f"sum {fmt_s(sum(lidx_tasks))}.\n")
    # Projection: the job's wall time less its tasks' makespan on these 2
    # executors (planning, scheduling, the final aggregation), plus the
    # makespan of the same tasks on N executors.
    over_a, over_b = a[0] - lpt(stock_tasks, 2), b[0] - lpt(lidx_tasks, 2)
    print("| executors (1 core each) | stock (one task) | lidx | ratio |")
    print("|---:|---:|---:|---:|")
    for cores in (2, 16, 64):
        pa_, pb = over_a + lpt(stock_tasks, cores), over_b + lpt(lidx_tasks, cores)
        kind = "measured" if cores == 2 else "projected"
        print(f"| {cores} ({kind}) | {fmt_s(pa_)} | {fmt_s(pb)} | {pa_ / pb:.1f}× |")
    print()
    spark.stop()


def dask_section(gz, runs, want_count, since, until, want_window):
    import dask.bag as db
    from distributed import Client, LocalCluster

    import lidx.dask

    t = time.perf_counter()
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    client = Client(cluster)
    print(f"Dask LocalCluster up in {time.perf_counter() - t:.1f} s.\n")
    path = str(gz)
    rx = re.compile(PATTERN)
    bag = lambda: db.read_text(path, blocksize=None)  # noqa: E731
    n_stock = bag().npartitions
    n_lidx = lidx.dask.read_lines(path).npartitions
    print("| Dask, 2 workers × 1 thread | stock `read_text(blocksize=None)` | `lidx.dask.read_lines` | ratio | rows |")
    print("|---|---:|---:|---:|---:|")
    a, b, n = alternate(
        runs,
        lambda: int(bag().filter(lambda s: rx.search(s) is not None).count().compute()),
        lambda: int(lidx.dask.read_lines(path).text.str.contains(PATTERN, regex=True).sum().compute()),
    )
    assert n == want_count, (n, want_count)
    row("regex count, whole archive", a, b, n, tasks(n_stock, "partition"), tasks(n_lidx, "partition"))
    lo_s, hi_s = stamp(since), stamp(until)
    w = lidx.dask.read_lines(path, since=iso(since), until=iso(until))
    a, b, n = alternate(
        runs,
        lambda: int(bag().filter(lambda s: lo_s <= s[:19] < hi_s).count().compute()),
        lambda: len(lidx.dask.read_lines(path, since=iso(since), until=iso(until))),
    )
    assert n == want_window, (n, want_window)
    row("one hour: stock full scan vs `since`/`until`", a, b, n, tasks(n_stock, "partition"), tasks(w.npartitions, "partition"))
    print()
    client.close()
    cluster.close()


def partition_costs(gz, runs):
    from lidx import _engines

    t = time.perf_counter()
    tasks = _engines.plan([str(gz)])
    planning = time.perf_counter() - t
    costs = []
    for task in tasks:
        best = None
        for _ in range(max(1, runs - 1)):
            s = time.perf_counter()
            for _b in _engines.read_task(task):
                pass
            d = time.perf_counter() - s
            best = d if best is None else min(best, d)
        costs.append(best)
    med = statistics.median(costs)
    print(f"## Partitions ({len(tasks)} of about 128 MiB of text; each read alone, warm, best of {max(1, runs - 1)})\n")
    print(f"planning {fmt_s(planning)}; per partition: median {fmt_s(med)}, min {fmt_s(min(costs))}, "
          f"max {fmt_s(max(costs))} (skew max/median {max(costs) / med:.2f}); sum {fmt_s(sum(costs))}.\n")
    print("| cores | projected wall time of a full read (longest first, planning included) |")
    print("|---:|---:|")
    for cores in (1, 2, 16, 64):
        print(f"| {cores} | {fmt_s(planning + lpt(costs, cores))} |")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--text-bytes", type=int, default=4 << 30)
    ap.add_argument("--data", default="bench-data")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=["spark", "dask", "partitions"])
    args = ap.parse_args()
    if not LIDX.exists():
        subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "lidx-cli"], cwd=REPO, check=True)
    text, gz = make_data(args.text_bytes, Path(args.data).resolve())
    sidecar = Path(str(gz) + ".lidx")
    if not sidecar.exists():
        s = time.perf_counter()
        cli("index", "-q", "--time", "--tz", "UTC", gz)
        print(f"(sidecar built in {time.perf_counter() - s:.1f} s)", file=sys.stderr)
    count = int(cli("count", gz))
    want_count = int(cli("grep", "-c", PATTERN, gz) or b"0")
    since, until = window_of(gz, count)
    want_window = cli("lines", "--since", iso(since), "--until", iso(until), gz).count(b"\n")
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"Model name:\s*(.*)", cpu)
    print(f"# lidx on Spark and Dask — {dt.date.today()}, {os.cpu_count()} cores, {model.group(1) if model else ''}\n")
    print(f"Source: {text.stat().st_size:,} bytes of text, {count:,} lines; gzip -6 {gz.stat().st_size:,} bytes; "
          f"sidecar {sidecar.stat().st_size:,} bytes. Regex `{PATTERN}`: {want_count:,} lines; "
          f"window {iso(since)} – {iso(until)}: {want_window:,} lines.\n")
    print("Wall time, median of runs alternated, (busy share of the 2 cores).\n")
    if args.only in (None, "spark"):
        spark_section(gz, args.runs, want_count, since, until, want_window)
    if args.only in (None, "dask"):
        dask_section(gz, args.runs, want_count, since, until, want_window)
    if args.only in (None, "partitions"):
        partition_costs(gz, args.runs)


if __name__ == "__main__":
    main()
