"""lidx.spark on a real Spark: ``local-cluster[2,1,1024]`` (a master, two
executor JVMs and their Python workers, on 127.0.0.1), started once for
the module. Oracles: zcat / zstd -dc / cat for the rows, ripgrep for
counts, the lidx command line for time windows; nginx and moto's S3
server for remote files."""

import datetime as dt
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import require, require_module, run
from engines_data import make_files, oracle_lines

import lidx


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port, proc, what, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited before listening")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port}")


@pytest.fixture(scope="module")
def moto():
    require("moto_server")
    port = _free_port()
    proc = subprocess.Popen(
        ["moto_server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port, proc, "moto_server")
        env = {
            "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
            "AWS_ALLOW_HTTP": "true",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": "us-east-1",
        }
        os.environ.update(env)
        yield port, env
    finally:
        proc.kill()
        proc.wait()


def s3_put(port, bucket, key, data):
    for method, path, body in (("PUT", f"/{bucket}", b""), ("PUT", f"/{bucket}/{key}", data)):
        # urllib's default type is a form, which moto's server would parse.
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}{path}",
            data=body,
            method=method,
            headers={"Content-Type": "application/octet-stream"},
        )
        try:
            urllib.request.urlopen(req, timeout=20).read()
        except urllib.error.HTTPError as e:
            if e.code != 409:
                raise


@pytest.fixture(scope="module")
def nginx(tmp_path_factory):
    exe = shutil.which("nginx") or (os.path.exists("/usr/sbin/nginx") and "/usr/sbin/nginx")
    if not exe:
        require("nginx")
    d = tmp_path_factory.mktemp("nginx")
    (d / "www").mkdir()
    (d / "tmp").mkdir()
    port = _free_port()
    conf = d / "nginx.conf"
    conf.write_text(
        f"daemon off; master_process off; worker_processes 1; pid {d}/nginx.pid;\n"
        f"error_log {d}/error.log; events {{ worker_connections 256; }}\n"
        f"http {{ access_log off; client_body_temp_path {d}/tmp; proxy_temp_path {d}/tmp;\n"
        f"fastcgi_temp_path {d}/tmp; uwsgi_temp_path {d}/tmp; scgi_temp_path {d}/tmp;\n"
        f"server {{ listen 127.0.0.1:{port}; root {d}/www; }} }}\n"
    )
    proc = subprocess.Popen([exe, "-p", str(d), "-c", str(conf), "-e", str(d / "error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, proc, "nginx")
        yield port, d / "www"
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def files(tmp_path_factory, lidx_cli):
    return make_files(tmp_path_factory.mktemp("spark-data"), lidx_cli, lines=40_000)


@pytest.fixture(scope="module")
def spark(moto, tmp_path_factory):
    require("java")
    require_module("pyspark")
    from pyspark.sql import SparkSession

    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    _, env = moto
    b = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .appName("lidx-test")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.executor.memory", "512m")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.task.maxFailures", "4")
        .config("spark.local.dir", str(tmp_path_factory.mktemp("spark-local")))
    )
    for k, v in env.items():
        b = b.config(f"spark.executorEnv.{k}", v)
    session = b.getOrCreate()
    from lidx.spark import LidxDataSource

    session.dataSource.register(LidxDataSource)
    try:
        yield session
    finally:
        session.stop()


def tasks_of_last_job(spark, group):
    st = spark.sparkContext.statusTracker()
    stages = []
    for j in st.getJobIdsForGroup(group):
        info = st.getJobInfo(j)
        for s in info.stageIds:
            si = st.getStageInfo(s)
            if si is not None:
                stages.append(si.numTasks)
    return stages


def expected(path, binary=False):
    lines = oracle_lines(path)
    return [(i + 1, l if binary else l.decode("utf-8", "replace")) for i, l in enumerate(lines)]


def test_every_kind_of_file_through_spark_equals_the_oracle(spark, files):
    d = os.path.dirname(files["app.log"])
    df = (
        spark.read.format("lidx")
        .option("partitionBytes", "200000")
        .option("binary", "true")
        .load(d)
    )
    assert df.schema.simpleString() == "struct<path:string,line:bigint,text:binary,time:timestamp>"
    rows = df.select("path", "line", "text").collect()
    got = {}
    for r in rows:
        got.setdefault(r.path, []).append((r.line, bytes(r.text)))
    assert sorted(got) == sorted(str(p) for p in files.values())
    for name, p in files.items():
        assert sorted(got[str(p)]) == expected(p, binary=True), name
    # Text mode: invalid UTF-8 replaced, as Python decodes it.
    bad = files["invalid-utf8.log"]
    rows = spark.read.format("lidx").load(str(bad)).orderBy("line").collect()
    assert [(r.line, r.text) for r in rows] == expected(bad)


def test_a_gzip_file_becomes_many_tasks_and_counts_equal_ripgrep(spark, files):
    rg = require("rg")
    gz = files["app.gz"]
    idx = lidx.Index(gz, build=False)
    plan = idx.partitions(150_000)
    assert len(plan) >= 8
    df = spark.read.format("lidx").option("partitionBytes", "150000").load(str(gz))
    assert df.rdd.getNumPartitions() == len(plan)
    spark.sparkContext.setJobGroup("gz-count", "count")
    n = df.where(df.text.rlike("ERROR.*timeout")).count()
    spark.sparkContext.setJobGroup("other", "other")
    want = int(run(rg, "-z", "-c", "ERROR.*timeout", gz).stdout)
    assert n == want and n > 0
    assert len(plan) in tasks_of_last_job(spark, "gz-count")
    # A relative path names the file from the driver's working directory,
    # as Spark's own readers take it, though executors run elsewhere; the
    # path column holds it made absolute, as Spark's file sources show it.
    rel = os.path.relpath(gz)
    assert not os.path.isabs(rel)
    got = spark.read.format("lidx").option("partitionBytes", "150000").load(rel)
    assert got.where(got.text.rlike("ERROR.*timeout")).count() == want
    assert {r.path for r in got.select("path").distinct().collect()} == {os.path.abspath(gz)}


def test_time_windows_by_option_and_by_pushed_filter_equal_the_command_line(spark, files, lidx_cli):
    gz = files["multi.gz"]
    since, until = "2026-11-20T00:40:00Z", "2026-11-20T01:05:00Z"
    want = run(lidx_cli, "lines", "--since", since, "--until", until, gz).stdout.split(b"\n")[:-1]
    want = [w.decode() for w in want]
    assert len(want) > 100
    df = (
        spark.read.format("lidx")
        .option("partitionBytes", "100000")
        .option("since", since)
        .option("until", until)
        .load(str(gz))
    )
    assert [r.text for r in df.orderBy("line").collect()] == want
    whole = spark.read.format("lidx").option("partitionBytes", "100000").load(str(gz)).rdd.getNumPartitions()
    assert df.rdd.getNumPartitions() < whole / 3
    # Filters on time: with Spark's default the source loads and reads
    # everything; with pushdown on it reads a few partitions; the rows
    # are the same.
    lo = dt.datetime(2026, 11, 20, 0, 40, tzinfo=dt.timezone.utc)
    hi = dt.datetime(2026, 11, 20, 1, 5, tzinfo=dt.timezone.utc)
    from pyspark.sql import functions as F

    def window():
        d = spark.read.format("lidx").option("partitionBytes", "100000").load(str(gz))
        return d.where((F.col("time") >= F.lit(lo)) & (F.col("time") < F.lit(hi)))

    assert spark.conf.get("spark.sql.python.filterPushdown.enabled", "false") == "false"
    w = window()
    got = [r.text for r in w.orderBy("line").collect()]
    assert got == want
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        w = window()
        assert w.rdd.getNumPartitions() < whole / 3
        got = [r.text for r in w.orderBy("line").collect()]
        assert got == want
        # Line filters seek inside a file.
        d = spark.read.format("lidx").option("partitionBytes", "100000").load(str(gz))
        sel = d.where((F.col("line") >= 12_345) & (F.col("line") <= 12_400))
        assert sel.rdd.getNumPartitions() == 1
        lines = oracle_lines(gz)
        assert [r.text for r in sel.orderBy("line").collect()] == [l.decode() for l in lines[12_344:12_400]]
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")


def test_a_failed_task_is_retried_and_the_rows_stay_exact(spark, files):
    import pyarrow as pa

    gz = files["pigz.log.gz"]
    df = spark.read.format("lidx").option("partitionBytes", "150000").load(str(gz))
    assert df.rdd.getNumPartitions() > 2

    def fail_first_attempt(batches):
        from pyspark import TaskContext

        ctx = TaskContext.get()
        for i, b in enumerate(batches):
            if ctx.partitionId() == 1 and ctx.attemptNumber() == 0 and i == 0:
                raise RuntimeError("injected failure of task 1, attempt 0")
            yield b

    out = df.select("line", "text").mapInArrow(fail_first_attempt, "line long, text string")
    rows = sorted((r.line, r.text) for r in out.collect())
    assert rows == expected(gz)


def test_build_indexes_on_the_cluster_then_read(spark, files, tmp_path):
    d = tmp_path / "fresh"
    d.mkdir()
    for n in ("app.gz", "packed.zst", "crlf.log"):
        shutil.copy(files[n], d / n)
    from lidx.spark import build_indexes

    with pytest.raises(Exception, match="build_indexes"):
        spark.read.format("lidx").load(str(d)).count()
    shared = tmp_path / "shared"
    shared.mkdir()
    got = build_indexes(spark, str(d), sidecar_dir=str(shared), time=True)
    assert sorted(a for _, _, a in got) == ["built"] * 3
    assert not list(d.glob("*.lidx")) and len(list(shared.glob("*.lidx"))) == 3
    df = spark.read.format("lidx").option("sidecarDir", str(shared)).option("partitionBytes", "200000").load(str(d))
    assert df.count() == sum(len(oracle_lines(d / n)) for n in ("app.gz", "packed.zst", "crlf.log"))
    got = build_indexes(spark, str(d))
    assert {os.path.basename(s) for _, s, _ in got} == {n + ".lidx" for n in ("app.gz", "packed.zst", "crlf.log")}


def test_remote_files_over_http_and_s3(spark, files, nginx, moto):
    port, www = nginx
    for n in ("app.gz", "crlf.log"):
        shutil.copy(files[n], www / n)
        shutil.copy(str(files[n]) + ".lidx", www / (n + ".lidx"))
    urls = [f"http://127.0.0.1:{port}/{n}" for n in ("app.gz", "crlf.log")]
    df = spark.read.format("lidx").option("partitionBytes", "200000").load(urls)
    assert df.rdd.getNumPartitions() > 4
    got = sorted((r.path, r.line, r.text) for r in df.select("path", "line", "text").collect())
    want = sorted((u, i, t) for u, n in zip(urls, ("app.gz", "crlf.log")) for i, t in expected(files[n]))
    assert got == want
    # S3: objects without sidecars; build_indexes uploads them only when
    # asked, then a prefix is read as a directory.
    s3port, _ = moto
    for n in ("app.gz", "packed.zst"):
        s3_put(s3port, "logs", f"2026/{n}", files[n].read_bytes())
    from lidx.spark import build_indexes

    with pytest.raises(Exception, match="build_indexes|sidecar"):
        spark.read.format("lidx").load("s3://logs/2026/").count()
    built = build_indexes(spark, "s3://logs/2026/", upload=True)
    assert sorted(s for _, s, _ in built) == ["s3://logs/2026/app.gz.lidx", "s3://logs/2026/packed.zst.lidx"]
    df = spark.read.format("lidx").option("partitionBytes", "200000").load("s3://logs/2026/")
    assert df.rdd.getNumPartitions() > 4
    got = sorted((r.path, r.line, r.text) for r in df.select("path", "line", "text").collect())
    want = sorted(
        (f"s3://logs/2026/{n}", i, t) for n in ("app.gz", "packed.zst") for i, t in expected(files[n])
    )
    assert got == want
