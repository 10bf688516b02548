"""The peer side of `waymark bench peer`: one case of the Python eventsourcing library on PostgreSQL.

    python peer_bench.py CASE --url CONNINFO [--seconds S] [--writers W] [--events N] [--batch B] [--page P]

CASE is one of
  single   one LocationReported per save(), one writer, for --seconds
  writers  as single, from --writers threads sharing one Application (pool of W connections), for --seconds
  batch    --events events in save()s of --batch aggregates with one new event each
  read     the whole notification log, notification_log.select(start, --page) until empty

The library's PostgreSQL recorder (eventsourcing.postgres) writes to the table `peerfleet_events` in
the database of --url, beside Waymark's own tables. The append cases register their vehicles first
(not timed) and then CHECKPOINT. Each run prints one JSON line on stdout; it exits 1 when the table
did not grow by exactly what the case saved (or, for read, when the log read is not the whole table).
The payload has the members of Waymark's BenchPayload (vehicle, trip, position with 7 decimals,
speed, heading, accuracy, odometer, time, status).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
import uuid

import psycopg
from psycopg.conninfo import conninfo_to_dict

TABLE = "peerfleet_events"
NAMESPACE = uuid.UUID("1f0e6c52-5d8b-4c55-9d6e-0f6c2a7b3e11")


def configure(url: str, pool_size: int) -> None:
    """Points the library's environment variables at the database of `url`."""
    parts = conninfo_to_dict(url)
    os.environ.update(
        PERSISTENCE_MODULE="eventsourcing.postgres",
        POSTGRES_DBNAME=str(parts.get("dbname", "postgres")),
        POSTGRES_HOST=str(parts.get("host", "localhost")),
        POSTGRES_PORT=str(parts.get("port", "5432")),
        POSTGRES_USER=str(parts.get("user", os.environ.get("USER", "postgres"))),
        POSTGRES_PASSWORD=str(parts.get("password", "unused")),  # the library insists on one
        POSTGRES_POOL_SIZE=str(pool_size),
        POSTGRES_MAX_OVERFLOW="0",
    )


# Imported after the helpers above so that a missing library fails with one clear line.
try:
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event
except ImportError as error:  # pragma: no cover - reported to the Swift side
    print(f"peer_bench: the eventsourcing library is missing ({error}); run scripts/peer-venv.sh", file=sys.stderr)
    sys.exit(2)


class Vehicle(Aggregate):
    @staticmethod
    def create_id(label: str) -> uuid.UUID:
        return uuid.uuid5(NAMESPACE, label)

    @event("Registered")
    def __init__(self, label: str) -> None:
        self.label = label
        self.reports = 0

    @event("LocationReported")
    def report_location(self, vehicle_id: str, trip_id: str, lat: float, lon: float, speed_kmh: float,
                        heading: int, accuracy_m: float, odometer_km: float, recorded_at: str, status: str) -> None:
        self.reports += 1


class PeerFleet(Application):
    log_section_size = 5000  # select() refuses a limit above the section size


class Payloads:
    """Location reports shaped like BenchPayload.location: Berlin-ish coordinates, 7 decimals."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def next(self, vehicle: int, sequence: int) -> dict:
        r = self.random
        return dict(
            vehicle_id=f"veh-{vehicle}", trip_id=f"trip-{vehicle}-{sequence}",
            lat=round(52.3 + r.randint(0, 3_000_000) / 1e7, 7), lon=round(13.1 + r.randint(0, 6_000_000) / 1e7, 7),
            speed_kmh=r.randint(0, 1200) / 10, heading=r.randint(0, 359), accuracy_m=4.2, odometer_km=123456.7,
            recorded_at="2026-05-20T12:34:56.789Z", status="in_service")


def rows(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as connection:
        return connection.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0]


def checkpoint(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CHECKPOINT")


def register(app: PeerFleet, prefix: str, count: int) -> list[Vehicle]:
    """`count` new vehicles, saved 500 at a time (not timed)."""
    vehicles = [Vehicle(f"{prefix}-{n}") for n in range(count)]
    for start in range(0, count, 500):
        app.save(*vehicles[start:start + 500])
    return vehicles


def appends(args: argparse.Namespace) -> dict:
    writers = args.writers if args.case == "writers" else 1
    configure(args.url, pool_size=max(1, writers))
    app = PeerFleet()  # creates the table on first use
    run = uuid.uuid4().hex[:8]
    vehicle_count = 10_000 if args.case == "batch" else 64 * writers  # as Waymark's cases: 64 streams per writer
    vehicles = register(app, f"{args.case}-{run}", vehicle_count)
    checkpoint(args.url)
    before = rows(args.url)
    cpu0 = time.process_time()
    if args.case == "batch":
        payloads = Payloads(101)
        started = time.perf_counter()
        done = 0
        while done < args.events:
            size = min(args.batch, args.events - done)
            chunk = [vehicles[(done + i) % vehicle_count] for i in range(size)]
            for i, vehicle in enumerate(chunk):
                vehicle.report_location(**payloads.next(done + i, 1 + (done + i) // vehicle_count))
            app.save(*chunk)
            done += size
        elapsed = time.perf_counter() - started
        count = done
    else:
        deadline_s = args.seconds
        counts = [0] * writers
        barrier = threading.Barrier(writers + 1)
        failures: list[str] = []

        def writer(index: int) -> None:
            mine = vehicles[index::writers]
            payloads = Payloads(200 + index)
            barrier.wait()
            stop = started_at[0] + deadline_s
            n = 0
            try:
                while time.perf_counter() < stop:
                    vehicle = mine[n % len(mine)]
                    vehicle.report_location(**payloads.next(index, n))
                    app.save(vehicle)
                    n += 1
            except Exception as error:  # reported below; the outcome check fails the run
                failures.append(f"writer {index}: {error!r}")
            counts[index] = n

        started_at = [0.0]
        threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
        for thread in threads:
            thread.start()
        started_at[0] = time.perf_counter()
        barrier.wait()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started_at[0]
        count = sum(counts)
        if failures:
            print("peer_bench: " + "; ".join(failures), file=sys.stderr)
            sys.exit(1)
    cpu = time.process_time() - cpu0
    app.close()
    after = rows(args.url)
    result = dict(case=args.case, writers=writers, events=count, seconds=round(elapsed, 6),
                  rows_before=before, rows_after=after, client_cpu_us_per_event=round(cpu / max(1, count) * 1e6, 1))
    if after - before != count:
        print(f"peer_bench: {TABLE} grew by {after - before} rows, expected exactly {count}", file=sys.stderr)
        print(json.dumps(result))
        sys.exit(1)
    return result


def read(args: argparse.Namespace) -> dict:
    configure(args.url, pool_size=1)
    app = PeerFleet()
    in_table = rows(args.url)
    cpu0 = time.process_time()
    started = time.perf_counter()
    count, start, last = 0, 1, 0
    while True:
        page = app.notification_log.select(start, args.page)
        if not page:
            break
        count += len(page)
        last = page[-1].id
        start = last + 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu0
    app.close()
    result = dict(case="read", events=count, seconds=round(elapsed, 6), rows_before=in_table, rows_after=in_table,
                  last_notification_id=last, client_cpu_us_per_event=round(cpu / max(1, count) * 1e6, 1))
    if count != in_table:
        print(f"peer_bench: read {count} notifications, the table holds {in_table}", file=sys.stderr)
        print(json.dumps(result))
        sys.exit(1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=["single", "writers", "batch", "read"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--page", type=int, default=5000)
    args = parser.parse_args()
    result = read(args) if args.case == "read" else appends(args)
    result["library"] = f"eventsourcing {version('eventsourcing')}, psycopg {psycopg.__version__}"
    print(json.dumps(result), flush=True)


def version(package: str) -> str:
    from importlib.metadata import version as installed
    return installed(package)


if __name__ == "__main__":
    main()
