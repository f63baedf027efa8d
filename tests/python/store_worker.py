"""One OS process that stores a whole run, for test_store_concurrency.py:

    python store_worker.py URL WORKER UNITS RECORDS_PER_UNIT RENDEZVOUS_DIR [sqlite3]

It opens the store (an SQLite file through SQLAlchemy, by a URL with options, or with `sqlite3`
through sqlite3 as every command does) (all workers open a new database at once), says it is ready, waits for
the test's go, then stores begin_run / add_unit x UNITS / finish_run and prints the run id.
The records and faults it writes follow from (WORKER, unit, index), so the test can check
every value that came back.
"""
import sys
import time
from pathlib import Path

from benchlab.records import Fault, Record
from benchlab.storage.store import open_store


def expected_record(worker: int, unit: int, index: int) -> Record:
    return Record(bench=f"w{worker}-u{unit}-r{index}", param=unit * 1000 + index, counter="time", unit="ns",
                  samples=[worker * 100.0 + unit + index / 100 + i for i in range(8)], iterations=1000 + unit,
                  platform="native", binary=f"worker{worker}", format="jsonl",
                  reported={"worker": worker, "unit": unit})


def expected_faults(worker: int, unit: int) -> list[Fault]:
    return [Fault(f"worker{worker}", "native", f"exit status {unit}", [f"w{worker} u{unit}"])] if unit % 5 == 0 else []


def main() -> None:
    url, worker, units, per_unit, rendezvous = sys.argv[1], *map(int, sys.argv[2:5]), Path(sys.argv[5])
    through_sqlalchemy = url.startswith("sqlite:///") and sys.argv[6:] != ["sqlite3"]
    store = open_store(url + "?timeout=60" if through_sqlalchemy else url)
    (rendezvous / f"ready-{worker}").touch()
    while not (rendezvous / "go").exists():
        time.sleep(0.002)
    run_id = store.begin_run(["worker", str(worker)], ["native"], {"worker": worker})
    for unit in range(units):
        store.add_unit(run_id, [expected_record(worker, unit, index) for index in range(per_unit)],
                       expected_faults(worker, unit),
                       {"binary": f"worker{worker}", "platform": "native", "sweep": {"flag": "unit", "value": str(unit)}})
        # A moment between units, as running one takes: without it, SQLite's busy handler,
        # which sleeps between its tries, lets one tight loop keep the lock to its end.
        time.sleep(0.002)
    store.finish_run(run_id, "complete", 0)
    print(run_id)


if __name__ == "__main__":
    main()
