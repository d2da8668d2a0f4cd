"""lidx.dask on a real Dask cluster: ``LocalCluster(processes=True)``, two
worker processes on 127.0.0.1. Oracles: zcat / zstd -dc for the rows,
the lidx command line for time windows; a worker killed in the middle of
a job must not change a row."""

import os
import signal
import threading
import time

import pytest

from conftest import require_module, run
from engines_data import make_files, oracle_lines

import lidx


@pytest.fixture(scope="module")
def files(tmp_path_factory, lidx_cli):
    return make_files(tmp_path_factory.mktemp("dask-data"), lidx_cli, lines=40_000)


@pytest.fixture(scope="module")
def client():
    require_module("dask.dataframe")
    distributed = require_module("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=40,
    )
    c = distributed.Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def expected(path):
    return [(i + 1, l.decode("utf-8", "replace")) for i, l in enumerate(oracle_lines(path))]


def test_a_gzip_file_in_many_partitions_with_line_divisions(client, files):
    import lidx.dask

    gz = files["app.gz"]
    df = lidx.dask.read_lines(str(gz), partition_bytes=150_000)
    plan = lidx.Index(gz, build=False).partitions(150_000)
    assert df.npartitions == len(plan) >= 8
    assert df.divisions == tuple(p.first for p in plan) + (plan[-1].last,)
    pdf = df.compute()
    assert list(zip(pdf["line"], pdf["text"])) == expected(gz)
    assert set(pdf["path"]) == {str(gz)}
    assert str(pdf["time"].dtype) == "datetime64[us, UTC]"
    # .loc on line numbers reads the partitions that hold them.
    sel = df.loc[20_000:20_050]
    assert sel.npartitions <= 2
    assert list(sel.compute()["text"]) == [t for _, t in expected(gz)[19_999:20_050]]


def test_every_kind_of_file_and_a_time_window(client, files, lidx_cli):
    import lidx.dask

    d = os.path.dirname(files["app.log"])
    df = lidx.dask.read_lines(d, partition_bytes=200_000, binary=True)
    pdf = df.compute()
    for name, p in files.items():
        rows = pdf[pdf["path"] == str(p)]
        want = [(i + 1, l) for i, l in enumerate(oracle_lines(p))]
        assert list(zip(rows["line"], rows["text"])) == want, name
    since, until = "2026-11-20T00:40:00Z", "2026-11-20T01:05:00Z"
    gz = files["packed.zst"]
    want = run(lidx_cli, "lines", "--since", since, "--until", until, gz).stdout.split(b"\n")[:-1]
    win = lidx.dask.read_lines(str(gz), partition_bytes=100_000, since=since, until=until)
    whole = lidx.dask.read_lines(str(gz), partition_bytes=100_000)
    assert win.npartitions < whole.npartitions / 3
    assert [t.encode() for t in win.compute()["text"]] == want and want


def _slow(pdf):
    time.sleep(0.4)
    return pdf


def test_a_worker_killed_mid_job_does_not_change_a_row(client, files):
    import lidx.dask

    gz = files["bgzf.log.gz"]
    df = lidx.dask.read_lines(str(gz), partition_bytes=100_000)
    assert df.npartitions >= 8
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    killed = []

    def kill_soon():
        time.sleep(1.0)
        os.kill(victim, signal.SIGKILL)
        killed.append(time.monotonic())

    killer = threading.Thread(target=kill_soon)
    killer.start()
    pdf = df.map_partitions(_slow).compute()
    done = time.monotonic()
    killer.join()
    # The worker died while the job ran (its nanny started another).
    assert killed and killed[0] < done
    assert victim not in client.run(os.getpid).values()
    assert list(zip(pdf["line"], pdf["text"])) == expected(gz)


def test_build_indexes_as_dask_tasks(client, files, tmp_path):
    import shutil

    import lidx.dask

    for n in ("app.gz", "notail.log"):
        shutil.copy(files[n], tmp_path / n)
    with pytest.raises(lidx.NoSidecarError, match="build_indexes"):
        lidx.dask.read_lines(str(tmp_path))
    got = lidx.dask.build_indexes(str(tmp_path), time=True)
    assert sorted(a for _, _, a in got) == ["built", "built"]
    df = lidx.dask.read_lines(str(tmp_path), partition_bytes=200_000)
    assert len(df) == len(oracle_lines(tmp_path / "app.gz")) + len(oracle_lines(tmp_path / "notail.log"))
