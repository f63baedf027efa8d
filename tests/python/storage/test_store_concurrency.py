"""Several OS processes storing whole runs into one database at once lose nothing, on
SQLite (WAL, a busy timeout, write transactions that take the lock at BEGIN) and on
PostgreSQL, including the creation of the schema by whichever process comes first."""
import os
import subprocess
import sys
import time

import pytest
import sqlalchemy as sa

from benchlab.storage.schema import metadata
from benchlab.storage.store import open_store
from conftest import REPO
from store_worker import expected_faults, expected_record

WORKER = REPO / "tests" / "python" / "store_worker.py"
UNITS = 30
RECORDS_PER_UNIT = 10


def start_workers(url: str, count: int, rendezvous, sqlite3_workers=()) -> list[subprocess.Popen]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(WORKER.parent)])}
    workers = [subprocess.Popen([sys.executable, str(WORKER), url, str(worker), str(UNITS), str(RECORDS_PER_UNIT),
                                 str(rendezvous), *(["sqlite3"] if worker in sqlite3_workers else [])],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
               for worker in range(count)]
    deadline = time.monotonic() + 120
    while len(list(rendezvous.glob("ready-*"))) < count:
        dead = [w for w in workers if w.poll() is not None]
        if dead or time.monotonic() > deadline:
            for w in workers:
                w.kill()
            pytest.fail("a worker did not open the store: " + "".join(w.communicate()[1] for w in dead or workers))
        time.sleep(0.01)
    (rendezvous / "go").touch()  # every process has opened the store: now they all write at once
    return workers


@pytest.mark.parametrize("count, writers", [(2, "sqlalchemy"), (4, "sqlalchemy"), (4, "mixed")])
def test_processes_storing_runs_at_once_lose_nothing(db_url, tmp_path, count, writers):
    """On SQLite the workers write through SQLAlchemy (an SQLite URL with options); with "mixed", half of
    them through sqlite3 alone (connection.SqliteConnection, as every command does into an SQLite file), into
    a store made before."""
    rendezvous = tmp_path / "rendezvous"
    rendezvous.mkdir()
    sqlite3_workers = ()
    if writers == "mixed":
        if not db_url.startswith("sqlite"):
            pytest.skip("sqlite3 writes SQLite files only")
        open_store(db_url).close()
        sqlite3_workers = range(1, count, 2)
    workers = start_workers(db_url, count, rendezvous, sqlite3_workers)
    finished = [w.communicate(timeout=600) for w in workers]
    assert [(w.returncode, err) for w, (_, err) in zip(workers, finished)] == [(0, "")] * count
    run_ids = [int(out) for out, _ in finished]
    assert sorted(run_ids) == list(range(1, count + 1))

    store = open_store(db_url)
    runs, records, faults, units = (metadata().tables[name] for name in ("runs", "records", "faults", "units"))
    engine = sa.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection:
        totals = [connection.execute(sa.select(sa.func.count()).select_from(table)).scalar()
                  for table in (runs, records, faults, units)]
        order = connection.execute(sa.select(records.c.run_id).order_by(records.c.id)).scalars().all()
    assert totals == [count, count * UNITS * RECORDS_PER_UNIT, count * UNITS // 5, count * UNITS]
    for worker, run_id in enumerate(run_ids):
        run, stored, stored_faults = store.load_run(run_id)
        assert (run["status"], run["exit_code"], run["context"], run["argv"]) == (
            "complete", 0, {"worker": worker}, ["worker", str(worker)])
        expected = [expected_record(worker, unit, index) for unit in range(UNITS) for index in range(RECORDS_PER_UNIT)]
        assert [(r.bench, r.param, r.samples, r.iterations, r.binary, r.reported, r.median) for r in stored] == [
            (r.bench, r.param, r.samples, r.iterations, r.binary, r.reported, r.median) for r in expected]
        assert stored_faults == [f for unit in range(UNITS) for f in expected_faults(worker, unit)]
    # How often consecutive records belong to different runs: the writes did interleave.
    switches = sum(1 for a, b in zip(order, order[1:]) if a != b)
    print(f"{count} processes on {engine.dialect.name}: {totals[1]} records, {switches} switches between runs")
    engine.dispose()
    store.close()
