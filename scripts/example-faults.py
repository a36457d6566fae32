#!/usr/bin/env python3
"""Database faults against a server example's real executable and a real
PostgreSQL server (scripts/postgres.sh), each an automated check:

  down-at-start      the database is down: the start fails within its
                     timeout with one error naming the pool and the chain
                     waiting on it, the process exits 1, nothing is served.
  restart-under-load the database is stopped and started again under load:
                     requests during the outage get a 503 naming the
                     database, the server recovers by itself, and no request
                     started after the first success fails.
  slow-query         a row held by another session past the request budget
                     (a transaction sleeping in pg_sleep): that request gets
                     its 503 within the budget, others are served meanwhile.
  graceful-shutdown  SIGTERM under load: the request in flight finishes
                     (200), then the store closes, then the pool; the
                     process exits 0 and its sessions leave pg_stat_activity.

  scripts/example-faults.py BINARY [CHECK...]

The database: WEAVEDI_POSTGRES_DIR and WEAVEDI_POSTGRES_URL (printed by
`scripts/postgres.sh start`) and WEAVEDI_POSTGRES_DATABASE (default todos).
Both examples take the same options and serve the same routes, so one
harness checks both. Standard library only.
"""
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTROL = os.path.join(ROOT, "scripts", "postgres.sh")
PG_DIR = os.environ.get("WEAVEDI_POSTGRES_DIR", "/tmp/weavedi-postgres")
PG_URL = os.environ.get("WEAVEDI_POSTGRES_URL", "postgres://weavedi@127.0.0.1:54329")
DATABASE = os.environ.get("WEAVEDI_POSTGRES_DATABASE", "todos")
DATABASE_URL = f"{PG_URL}/{DATABASE}"


class CheckFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def log(message):
    print(f"  {time.strftime('%H:%M:%S')} {message}", flush=True)


def control(*args):
    subprocess.run([CONTROL, args[0], PG_DIR, *args[1:]], check=True)


def psql(sql):
    out = subprocess.run(
        [CONTROL, "psql", PG_DIR, DATABASE, "-t", "-A", "-c", sql], check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, timeout=10.0):
    """(status, body, seconds); status None and body the error when no
    HTTP response came."""
    started = time.monotonic()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read().decode(), time.monotonic() - started
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), time.monotonic() - started
    except Exception as error:  # refused, reset, timed out
        return None, repr(error), time.monotonic() - started


class Server:
    def __init__(self, binary, *options):
        self.port = free_port()
        self.stderr_path = f"/tmp/weavedi-faults-{os.getpid()}-{self.port}.log"
        self.stderr = open(self.stderr_path, "w")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--database-url", DATABASE_URL, *options],
            stdout=subprocess.DEVNULL,
            stderr=self.stderr,
        )

    def wait_until_serving(self, within=30.0):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            expect(self.process.poll() is None, f"the server exited ({self.process.returncode}):\n{self.log()}")
            status, _, _ = request(self.port, "GET", "/health", timeout=1.0)
            if status == 200:
                return
            time.sleep(0.1)
        raise CheckFailed(f"the server did not serve within {within} s:\n{self.log()}")

    def log(self):
        self.stderr.flush()
        with open(self.stderr_path) as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.stderr.close()
        os.unlink(self.stderr_path)


class Load:
    """Threads sending GET /todos/1 in a loop, each result recorded with
    when its request started and ended."""

    def __init__(self, port, threads=4, path="/todos/1", timeout=10.0):
        self.port, self.path, self.timeout = port, path, timeout
        self.results = []  # (started, ended, status, body)
        self.lock = threading.Lock()
        self.running = True
        self.threads = [threading.Thread(target=self.run) for _ in range(threads)]
        for thread in self.threads:
            thread.start()

    def run(self):
        while self.running:
            started = time.monotonic()
            status, body, _ = request(self.port, "GET", self.path, timeout=self.timeout)
            with self.lock:
                self.results.append((started, time.monotonic(), status, body))
            if status is None:
                time.sleep(0.01)

    def stop(self):
        self.running = False
        for thread in self.threads:
            thread.join()
        return self.results


class InBackground(threading.Thread):
    """One request sent from a thread of its own: join(), then .result."""

    def __init__(self, port, method, path):
        super().__init__()
        self.args_ = (port, method, path)
        self.result = None
        self.start()

    def run(self):
        self.result = request(*self.args_)


def wait_for_lock_holder(within=10.0):
    """Until another session holds a row lock on todos (the held
    transaction in pg_sleep)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()") != "0":
            return
        time.sleep(0.05)
    raise CheckFailed("the session holding the row did not start")


def hold_row(seconds):
    """A session that locks todo 1 and sleeps with it, as a slow writer does."""
    return subprocess.Popen(
        [
            CONTROL,
            "psql",
            PG_DIR,
            DATABASE,
            "-c",
            f"BEGIN; SELECT id FROM todos WHERE id = 1 FOR UPDATE; SELECT pg_sleep({seconds}); COMMIT;",
        ],
        stdout=subprocess.DEVNULL,
    )


def sessions():
    return int(psql("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'todo-api%'"))


def check_down_at_start(binary):
    control("stop")
    try:
        timeout_ms = 2000
        started = time.monotonic()
        server = Server(binary, "--start-timeout-ms", str(timeout_ms))
        try:
            served = False
            while server.process.poll() is None and time.monotonic() - started < 30:
                status, _, _ = request(server.port, "GET", "/health", timeout=0.5)
                served = served or status is not None
                time.sleep(0.05)
            elapsed = time.monotonic() - started
            expect(server.process.poll() is not None, "the server was still running 30 s after a start without a database")
            output = server.log()
            log(f"exit {server.process.returncode} after {elapsed:.1f} s; stderr: {output.strip().splitlines()[-1]}")
            expect(server.process.returncode == 1, f"exit status {server.process.returncode}, not 1:\n{output}")
            expect(not served, "a request was answered during a failed start")
            # The start timeout plus the process's own start and exit.
            expect(elapsed < timeout_ms / 1000 + 5, f"the failed start took {elapsed:.1f} s (timeout {timeout_ms} ms)")
            lines = output.splitlines()
            starts = [i for i, line in enumerate(lines) if line.startswith("error:")]
            expect(len(starts) == 1, f"expected one error, got {len(starts)}:\n{output}")
            error = "\n".join(lines[starts[0]:])
            # The pool's own reason, and the store named as waiting on it.
            for needed in ["DatabasePool", "cannot connect to", "TodoStore"]:
                expect(needed in error, f"the error does not say '{needed}':\n{error}")
        finally:
            server.stop()
    finally:
        control("resume")


def check_restart_under_load(binary):
    server = Server(binary, "--request-budget-ms", "1000")
    try:
        server.wait_until_serving()
        load = Load(server.port)
        time.sleep(1.5)
        down_at = time.monotonic()
        control("stop")
        time.sleep(3)
        control("resume")
        up_at = time.monotonic()
        time.sleep(6)
        results = load.stop()
        before = [r for r in results if r[1] < down_at]
        expect(before and all(r[2] == 200 for r in before), "requests failed before the database went down")
        statuses = {}
        for r in results:
            statuses[r[2]] = statuses.get(r[2], 0) + 1
        log(f"{len(results)} requests: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items(), key=str)))
        unexpected = [r for r in results if r[2] not in (200, 503)]
        expect(not unexpected, f"responses other than 200 and 503: {unexpected[:3]}")
        outage = [r for r in results if r[2] == 503]
        expect(outage, "no request saw the outage (no 503)")
        expect(all("database" in r[3] for r in outage), f"a 503 does not name the database: {outage[0][3]}")
        slowest = max(r[1] - r[0] for r in results)
        expect(slowest < 1.0 + 2.0, f"a request took {slowest:.1f} s with a 1 s budget")
        recovered = [r for r in results if r[0] >= up_at and r[2] == 200]
        expect(recovered, "no request succeeded after the database came back")
        first_success = min(r[1] for r in recovered)
        log(f"outage {up_at - down_at:.1f} s; first success {first_success - up_at:.2f} s after the database came back")
        after = [r for r in results if r[0] >= first_success]
        failed_after = [r for r in after if r[2] != 200]
        expect(after and not failed_after, f"{len(failed_after)} of {len(after)} requests failed after recovery: {failed_after[:3]}")
        expect(first_success - up_at < 5.0, f"recovery took {first_success - up_at:.1f} s")
    finally:
        server.stop()


def check_slow_query(binary):
    budget_ms = 1000
    server = Server(binary, "--request-budget-ms", str(budget_ms))
    try:
        server.wait_until_serving()
        holder = hold_row(4)
        try:
            wait_for_lock_holder()
            held = InBackground(server.port, "POST", "/todos/1/done")
            time.sleep(0.2)
            others = [request(server.port, "GET", "/todos/2") for _ in range(5)]
            others.append(request(server.port, "GET", "/todos"))
            held.join()
            status, body, seconds = held.result
            log(f"held row: {status} after {seconds:.2f} s ({body.strip()[:80]}); others: {[o[0] for o in others]}, slowest {max(o[2] for o in others):.2f} s")
            expect(status == 503 and "did not answer within" in body, f"the held request got {status}: {body}")
            expect(budget_ms / 1000 - 0.05 <= seconds < budget_ms / 1000 + 1.0, f"the held request took {seconds:.2f} s")
            expect(all(o[0] == 200 for o in others), f"other requests failed while one was held: {others}")
            expect(max(o[2] for o in others) < 0.5, "other requests waited for the held one")
        finally:
            holder.wait(timeout=30)
        status, body, _ = request(server.port, "POST", "/todos/1/done")
        expect(status == 200 and '"done":true' in body.replace(" ", ""), f"after the row was released: {status} {body}")
        psql("UPDATE todos SET done = false WHERE id = 1")
    finally:
        server.stop()


def check_graceful_shutdown(binary):
    server = Server(binary, "--request-budget-ms", "5000")
    try:
        server.wait_until_serving()
        expect(sessions() > 0, "the server holds no session in pg_stat_activity")
        load = Load(server.port, threads=2, timeout=10.0)
        holder = hold_row(1.5)
        wait_for_lock_holder()
        in_flight = InBackground(server.port, "POST", "/todos/1/done")
        time.sleep(0.3)
        terminated_at = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        in_flight.join()
        holder.wait(timeout=30)
        server.process.wait(timeout=30)
        exited_after = time.monotonic() - terminated_at
        load_results = load.stop()
        status, body, seconds = in_flight.result
        log(f"in flight at SIGTERM: {status} after {seconds:.2f} s; exit {server.process.returncode} {exited_after:.2f} s after SIGTERM")
        expect(status == 200 and '"done":true' in body.replace(" ", ""), f"the request in flight got {status}: {body}")
        expect(server.process.returncode == 0, f"exit status {server.process.returncode}:\n{server.log()}")
        # Started before SIGTERM: served. Started after: served, refused at
        # the socket, or a 503 saying the server is stopping.
        before = [r for r in load_results if r[0] < terminated_at]
        expect(before and all(r[2] == 200 for r in before if r[1] < terminated_at), "requests failed before SIGTERM")
        server_errors = [r for r in load_results if r[2] is not None and r[2] >= 500 and not (r[0] >= terminated_at - 0.05 and r[2] == 503 and "stopping" in r[3])]
        expect(not server_errors, f"requests under load got 5xx during shutdown: {server_errors[:3]}")
        lines = server.log().splitlines()

        def position(text):
            found = [i for i, line in enumerate(lines) if text in line]
            expect(len(found) == 1, f"'{text}' logged {len(found)} times:\n" + "\n".join(lines))
            return found[0]

        expect(position("store closed") < position("pool closed"), "the pool closed before the store:\n" + "\n".join(lines))
        left = sessions()
        log(f"sessions in pg_stat_activity after exit: {left}")
        expect(left == 0, f"{left} sessions of the server left in pg_stat_activity")
        psql("UPDATE todos SET done = false WHERE id = 1")
    finally:
        server.stop()


CHECKS = {
    "down-at-start": check_down_at_start,
    "restart-under-load": check_restart_under_load,
    "slow-query": check_slow_query,
    "graceful-shutdown": check_graceful_shutdown,
}


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) >= 2 else 2
    binary = sys.argv[1]
    names = sys.argv[2:] or list(CHECKS)
    failed = []
    for name in names:
        if name not in CHECKS:
            print(f"example-faults: no check '{name}' (have: {', '.join(CHECKS)})", file=sys.stderr)
            return 2
        print(f"{os.path.basename(binary)}: {name}", flush=True)
        started = time.monotonic()
        try:
            CHECKS[name](binary)
            print(f"  passed ({time.monotonic() - started:.1f} s)", flush=True)
        except CheckFailed as error:
            print(f"  FAILED: {error}", flush=True)
            failed.append(name)
    if failed:
        print(f"example-faults: {len(failed)} of {len(names)} checks failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"example-faults: {len(names)} of {len(names)} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
