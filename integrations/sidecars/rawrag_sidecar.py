"""
The shared part of rawrag's Python sidecars: a small HTTP server on 127.0.0.1 speaking rawrag's
memory protocol v1 (src/systems/http/protocol.ts, docs/memory-services.md "The protocol") in front
of one memory library, standard library only (Python 3.11).

    POST /add     {owner, add_id, messages[], turn_ids, session, date, timestamp, owner_speaker?, speakers?} -> {}
    POST /ready   {owner}                 -> {ready, state?}   (applies the owner's adds to the library)
    POST /search  {owner, query, limit}   -> {results: [{id, memory, score, date, turn_ids, add_id}]}
    POST /list    {owner}                 -> {memories: [...]}
    POST /delete  {owner}                 -> {deleted, removed: [what was removed, in words]}

Request bodies are checked as the protocol's zod schemas check them (a missing field, a wrong type
or an unknown field is a 422). The guarantees, and how they are kept:

- An add acknowledged once is never applied twice. Each accepted add is appended to the owner's
  journal (`<state>/owners/<owner>/journal.jsonl`, fsynced) before the reply; a repeated add_id is
  answered as done. The library is fed from the journal, in order, when rawrag says the owner's last
  add was sent (/ready) — the same calls in the same order as the authors' LoCoMo scripts make,
  which also add a whole conversation before asking anything. `meta.json` (written atomically) says
  how many journal entries the library holds; a sidecar killed while feeding the library leaves
  `applying` set, and the next /ready first wipes that owner's library data, then feeds it again,
  so the library never holds an add twice. A sidecar killed mid-ingest loses nothing: the journal
  is on disk, and a restarted sidecar on the same `--state` folder knows every add it acknowledged.
- A search before the owner is ready waits until it is (rawrag asks /ready first anyway).
- /delete removes the owner's library data (the adapter says what: files, collections, users) and
  the sidecar's own state of that owner, and says what it removed.
- /list shows the library's memories once the owner is ready, and before that one entry per
  accepted add (`pending: true`), so rawrag can see an add whose reply it lost.

An adapter (one per library, integrations/sidecars/<system>.py) subclasses `Adapter`; `main(Adapter)`
parses the command line (`--port 0` picks a free port; the first line on stdout is
`rawrag sidecar <system> listening on http://127.0.0.1:<port>`; the libraries' own prints go to stderr).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
import traceback
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional

PROTOCOL_VERSION = 1


class BadRequest(Exception):
    """A request body the protocol refuses (422), with the places that are wrong."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


# ---------------------------------------------------------------- request checks (protocol.ts, strict objects)

def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_object(body: Any, fields: dict[str, tuple[bool, Callable[[Any], bool], str]], where: str = "") -> list[str]:
    """Problems of `body` against `fields` (name -> (required, test, what it must be)); unknown keys are refused."""
    if not isinstance(body, dict):
        return [f"{where or '(top level)'}: expected an object"]
    problems = [f"{where}{k}: unrecognized key" for k in body if k not in fields]
    for name, (required, test, what) in fields.items():
        if name not in body:
            if required:
                problems.append(f"{where}{name}: required")
        elif not test(body[name]):
            problems.append(f"{where}{name}: expected {what}")
    return problems


def _str_list(v: Any) -> bool:
    return isinstance(v, list) and all(_is_str(x) for x in v)


MESSAGE_FIELDS = {
    "role": (True, lambda v: v in ("user", "assistant"), "'user' or 'assistant'"),
    "content": (True, _is_str, "a string"),
    "speaker": (False, _is_str, "a string"),
    "text": (False, _is_str, "a string"),
    "captions": (False, _str_list, "a list of strings"),
    "turn_id": (False, _is_str, "a string"),
}
ADD_FIELDS = {
    "owner": (True, lambda v: _is_str(v) and v != "", "a non-empty string"),
    "add_id": (True, lambda v: _is_str(v) and v != "", "a non-empty string"),
    "messages": (True, lambda v: isinstance(v, list) and len(v) > 0, "a non-empty list"),
    "turn_ids": (True, _str_list, "a list of strings"),
    "session": (True, _is_str, "a string"),
    "date": (True, lambda v: v is None or _is_str(v), "a string or null"),
    "timestamp": (True, lambda v: v is None or _is_int(v), "an integer or null"),
    "owner_speaker": (False, lambda v: v is None or _is_str(v), "a string or null"),
    "speakers": (False, _str_list, "a list of strings"),
}
SEARCH_FIELDS = {
    "owner": (True, lambda v: _is_str(v) and v != "", "a non-empty string"),
    "query": (True, _is_str, "a string"),
    "limit": (True, lambda v: _is_int(v) and v > 0, "a positive integer"),
}
OWNER_FIELDS = {"owner": (True, lambda v: _is_str(v) and v != "", "a non-empty string")}


def check_add(body: Any) -> dict:
    problems = _check_object(body, ADD_FIELDS)
    if not problems:
        for i, m in enumerate(body["messages"]):
            problems += _check_object(m, MESSAGE_FIELDS, f"messages.{i}.")
            # A sidecar formats turns as its library's authors do: it needs the raw turn, not rawrag's rendering.
            if isinstance(m, dict):
                problems += [f"messages.{i}.{k}: required by this sidecar (the raw turn)" for k in ("speaker", "text", "turn_id") if k not in m]
    if problems:
        raise BadRequest(problems)
    return body


def check(body: Any, fields: dict) -> dict:
    problems = _check_object(body, fields)
    if problems:
        raise BadRequest(problems)
    return body


# ---------------------------------------------------------------- small helpers adapters share

def iso_of(timestamp: Optional[int]) -> Optional[str]:
    """rawrag's Unix seconds of a benchmark date (read as UTC) as a naive ISO time, e.g. 2023-05-08T13:56:00."""
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).replace(tzinfo=None).isoformat()


def write_json_atomic(path: str, value: Any) -> None:
    """Writes `value` so that a kill leaves either the old file or the new one, never half of it."""
    tmp = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_json(path: str, default: Any) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return default


def folder_name(owner: str) -> str:
    """A file-system-safe folder for an owner id, unique per id."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", owner)[:80]
    return f"{safe}-{hashlib.sha256(owner.encode()).hexdigest()[:10]}"


# ---------------------------------------------------------------- one owner's state

class Owner:
    """One owner's journal of accepted adds, how many of them the library holds, and files the adapter keeps."""

    def __init__(self, root: str, owner_id: str):
        self.id = owner_id
        self.dir = os.path.join(root, "owners", folder_name(owner_id))
        self.lib_dir = os.path.join(self.dir, "lib")
        # `lock` guards the journal and meta (held briefly); `library` is held while the library works on this owner.
        self.lock = threading.RLock()
        self.library = threading.RLock()
        self.ready_event = threading.Event()
        self.worker: Optional[threading.Thread] = None
        self.error: Optional[str] = None
        self.progress = ""
        self.journal: list[dict] = []
        self.add_ids: set[str] = set()
        self.meta = {"owner": owner_id, "applied": 0, "applying": False}
        self.restored = False
        if os.path.isdir(self.dir):
            self._load()
        if self.ready():
            self.ready_event.set()

    @property
    def exists(self) -> bool:
        return os.path.isdir(self.dir)

    def _load(self) -> None:
        self.meta = read_json(os.path.join(self.dir, "meta.json"), self.meta)
        path = os.path.join(self.dir, "journal.jsonl")
        if not os.path.exists(path):
            return
        good = 0
        with open(path, "rb") as f:
            data = f.read()
        for line in data.split(b"\n"):
            if not line.endswith(b"}") and line.strip():
                break  # a torn last line: its add was never acknowledged
            if line.strip():
                add = json.loads(line)
                self.journal.append(add)
                self.add_ids.add(add["add_id"])
            good += len(line) + 1
        if good < len(data):
            with open(path, "r+b") as f:
                f.truncate(min(good, len(data)))

    def ready(self) -> bool:
        return not self.meta.get("applying") and self.meta.get("applied", 0) == len(self.journal)

    def save_meta(self) -> None:
        os.makedirs(self.dir, exist_ok=True)
        write_json_atomic(os.path.join(self.dir, "meta.json"), self.meta)

    def append(self, add: dict) -> None:
        """Journals one accepted add durably (before rawrag is told it is done)."""
        os.makedirs(self.dir, exist_ok=True)
        if not os.path.exists(os.path.join(self.dir, "meta.json")):
            self.save_meta()
        with open(os.path.join(self.dir, "journal.jsonl"), "a", encoding="utf-8") as f:
            f.write(json.dumps(add, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.journal.append(add)
        self.add_ids.add(add["add_id"])
        self.ready_event.clear()

    def turns(self, adds: Optional[list[dict]] = None) -> list[dict]:
        """The journal's turns in order, each with its add's session, date, timestamp, add_id and speakers."""
        out = []
        for add in self.journal if adds is None else adds:
            for m in add["messages"]:
                out.append({
                    "speaker": m["speaker"],
                    "text": m["text"],
                    "captions": m.get("captions", []),
                    "turn_id": m["turn_id"],
                    "role": m["role"],
                    "content": m["content"],
                    "session": add["session"],
                    "date": add["date"],
                    "timestamp": add["timestamp"],
                    "add_id": add["add_id"],
                })
        return out

    def speakers(self) -> list[str]:
        """The conversation's speakers: as the benchmark lists them (speaker_a first), else in order of first turn."""
        for add in self.journal:
            if add.get("speakers"):
                return list(add["speakers"])
        seen: list[str] = []
        for t in self.turns():
            if t["speaker"] not in seen:
                seen.append(t["speaker"])
        return seen

    def read(self, name: str, default: Any) -> Any:
        return read_json(os.path.join(self.dir, name), default)

    def write(self, name: str, value: Any) -> None:
        os.makedirs(self.dir, exist_ok=True)
        write_json_atomic(os.path.join(self.dir, name), value)


# ---------------------------------------------------------------- the adapter a library implements

class Adapter:
    """One library behind the protocol. Subclasses set `system` and implement the five methods."""

    system = "library"
    #: The library keeps process-wide state (one collection, one client): its calls are serialised over every owner.
    one_at_a_time = False

    def __init__(self, args: argparse.Namespace, state_dir: str):
        self.args = args
        self.state_dir = state_dir

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """The adapter's own flags (each documented deviation is one)."""

    def apply(self, owner: Owner, adds: list[dict]) -> None:
        """Feeds these journaled adds (the owner's next ones, in order) to the library."""
        raise NotImplementedError

    def finish(self, owner: Owner) -> None:
        """After the owner's adds: whatever the authors' script does before asking (finalize, flush and drain, index)."""

    def reset(self, owner: Owner) -> None:
        """Wipes the owner's library data (recovery from a kill while feeding the library)."""
        raise NotImplementedError

    def restore(self, owner: Owner) -> None:
        """A restarted sidecar re-opens a ready owner's library state (an in-memory library reloads it)."""

    def search(self, owner: Owner, query: str, limit: int) -> list[dict]:
        raise NotImplementedError

    def memories(self, owner: Owner) -> list[dict]:
        raise NotImplementedError

    def delete(self, owner: Owner) -> list[str]:
        """Removes the owner's library data; returns what was removed, in words."""
        raise NotImplementedError

    def close(self) -> None:
        """The sidecar stops (SIGTERM, Ctrl-C): stop what the adapter started (a private database server)."""

    def turns_by_key(self, owner: Owner, key: Callable[[dict], Any]) -> dict:
        """turn records grouped by a key (the text a library stores), for mapping memories back to turns."""
        out: dict = {}
        for t in owner.turns():
            out.setdefault(key(t), []).append(t)
        return out


def memory(id: str, text: str, *, score: Optional[float] = None, date: Optional[str] = None, turns: Optional[list[dict]] = None) -> dict:
    """A protocol memory; `turns` are the journal's turn records it came from (turn_ids, add_id)."""
    turns = turns or []
    add_ids = sorted({t["add_id"] for t in turns})
    return {
        "id": id,
        "memory": text,
        "score": score,
        "date": date,
        "turn_ids": [t["turn_id"] for t in turns],
        "add_id": add_ids[0] if len(add_ids) == 1 else None,
    }


# ---------------------------------------------------------------- the server

class Sidecar:
    def __init__(self, adapter: Adapter, state_dir: str, search_wait: float):
        self.adapter = adapter
        self.state_dir = state_dir
        self.search_wait = search_wait
        self.owners: dict[str, Owner] = {}
        self.owners_lock = threading.Lock()
        # One lock for the library when it keeps process-wide state; else one per owner.
        self.library_lock = threading.RLock()

    def owner(self, owner_id: str) -> Owner:
        with self.owners_lock:
            o = self.owners.get(owner_id)
            if o is None:
                o = Owner(self.state_dir, owner_id)
                self.owners[owner_id] = o
            return o

    def _library(self, owner: Owner):
        return self.library_lock if self.adapter.one_at_a_time else owner.library

    # -- calls

    def add(self, body: dict) -> dict:
        add = check_add(body)
        owner = self.owner(add["owner"])
        with owner.lock:
            if add["add_id"] in owner.add_ids:
                return {}  # done before (its reply was lost): never twice
            owner.append(add)
        return {}

    def ready(self, body: dict) -> dict:
        owner = self.owner(check(body, OWNER_FIELDS)["owner"])
        with owner.lock:
            if owner.error:
                error, owner.error = owner.error, None
                raise RuntimeError(f"feeding {self.adapter.system} failed: {error}")
            if owner.ready():
                self._restore(owner)
                return {"ready": True}
            self._start(owner)
            return {"ready": False, "state": owner.progress or "feeding the library"}

    def search(self, body: dict) -> dict:
        b = check(body, SEARCH_FIELDS)
        owner = self.owner(b["owner"])
        if not owner.exists:
            return {"results": []}
        self._await(owner)
        with self._library(owner):
            self._restore(owner)
            results = self.adapter.search(owner, b["query"], b["limit"])
        return {"results": results[: b["limit"]]}

    def list(self, body: dict) -> dict:
        owner = self.owner(check(body, OWNER_FIELDS)["owner"])
        if not owner.exists:
            return {"memories": []}
        with owner.lock:
            applied = owner.meta.get("applied", 0) if not owner.meta.get("applying") else 0
            pending = owner.journal[applied:]
            feeding = owner.worker is not None
        held: list[dict] = []
        if applied > 0 and not feeding:
            with self._library(owner):
                self._restore(owner)
                held = self.adapter.memories(owner)
        return {"memories": held + [self._pending(a) for a in pending]}

    def delete(self, body: dict) -> dict:
        owner = self.owner(check(body, OWNER_FIELDS)["owner"])
        worker = owner.worker
        if worker is not None:
            worker.join()
        with self._library(owner), owner.lock:
            if not owner.exists:
                return {"deleted": 0, "removed": []}
            held = len(self.adapter.memories(owner)) if owner.meta.get("applied", 0) and not owner.meta.get("applying") else 0
            removed = self.adapter.delete(owner)
            removed.append(f"the sidecar's journal of {len(owner.journal)} accepted adds ({owner.dir})")
            shutil.rmtree(owner.dir, ignore_errors=True)
        with self.owners_lock:
            self.owners.pop(owner.id, None)
        return {"deleted": held, "removed": removed}

    # -- feeding the library

    @staticmethod
    def _pending(add: dict) -> dict:
        text = " / ".join(f"{m['speaker']}: {m['text']}" for m in add["messages"])
        return {
            "id": f"pending:{add['add_id']}",
            "memory": f"(accepted, not yet in the library) {text}",
            "date": add["date"],
            "turn_ids": add["turn_ids"],
            "add_id": add["add_id"],
            "pending": True,
        }

    def _restore(self, owner: Owner) -> None:
        if not owner.restored and owner.meta.get("applied", 0) > 0 and owner.ready():
            self.adapter.restore(owner)
        owner.restored = True

    def _start(self, owner: Owner) -> None:
        if owner.worker is None:
            owner.worker = threading.Thread(target=self._feed, args=(owner,), daemon=True)
            owner.worker.start()

    def _await(self, owner: Owner) -> None:
        with owner.lock:
            if owner.ready():
                return
            self._start(owner)
        if not owner.ready_event.wait(self.search_wait):
            raise TimeoutError(f"owner '{owner.id}' is still being fed to {self.adapter.system} ({owner.progress})")
        if owner.error:
            raise RuntimeError(owner.error)

    def _feed(self, owner: Owner) -> None:
        try:
            with self._library(owner):
                while True:
                    with owner.lock:
                        start, end = owner.meta.get("applied", 0), len(owner.journal)
                        if owner.meta.get("applying"):
                            # Killed (or failed) while feeding: what the library holds of this owner is unknown.
                            owner.progress = "wiping an interrupted feed"
                            self.adapter.reset(owner)
                            start = 0
                        if start == end and not owner.meta.get("applying"):
                            break
                        owner.meta.update({"applied": start, "applying": True})
                        owner.save_meta()
                        adds = owner.journal[start:end]
                    owner.progress = f"feeding {sum(len(a['messages']) for a in adds)} turns ({start}..{end} of the adds)"
                    self.adapter.apply(owner, adds)
                    owner.progress = "finishing (" + self.adapter.system + ")"
                    self.adapter.finish(owner)
                    with owner.lock:
                        owner.meta.update({"applied": end, "applying": False})
                        owner.save_meta()
                        owner.restored = True
            owner.progress = "ready"
        except Exception as e:  # reported by the next /ready, retried after it
            traceback.print_exc(file=sys.stderr)
            owner.error = f"{type(e).__name__}: {e}"
        finally:
            with owner.lock:
                owner.worker = None
                if owner.ready() or owner.error:
                    owner.ready_event.set()


def _handler(sidecar: Sidecar, key: Optional[str]):
    routes = {"/add": sidecar.add, "/ready": sidecar.ready, "/search": sidecar.search, "/list": sidecar.list, "/delete": sidecar.delete}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: Any) -> None:  # quiet: rawrag keeps its own record
            pass

        def _reply(self, status: int, value: Any) -> None:
            data = json.dumps(value, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply(405, {"detail": "every call is a POST"})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            route = routes.get(self.path.split("?")[0])
            if route is None:
                return self._reply(404, {"detail": "Not Found"})
            if key and self.headers.get("authorization") != f"Bearer {key}":
                return self._reply(401, {"detail": "missing or wrong Authorization: Bearer key"})
            version = self.headers.get("x-rawrag-memory-protocol")
            if version is not None and version != str(PROTOCOL_VERSION):
                return self._reply(422, {"detail": [f"x-rawrag-memory-protocol: this sidecar speaks version {PROTOCOL_VERSION}, not {version}"]})
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                return self._reply(422, {"detail": ["(top level): the body is not JSON"]})
            try:
                self._reply(200, route(body))
            except BadRequest as e:
                self._reply(422, {"detail": e.problems})
            except TimeoutError as e:
                self._reply(503, {"detail": str(e)})
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                self._reply(500, {"detail": f"{type(e).__name__}: {e}"})

    return Handler


def installed_checkout() -> Optional[str]:
    """The source checkout `rawrag systems install NAME --source DIR` installed this sidecar's library
    from, read from the install record beside the environment the sidecar runs in
    (<systems dir>/<system>/installed.json, the venv being <systems dir>/<system>/venv); None if none."""
    record = os.path.join(os.path.dirname(sys.prefix), "installed.json")
    source = read_json(record, {}).get("source", {}) if os.path.exists(record) else {}
    return source.get("dir") if isinstance(source, dict) and source.get("kind") == "checkout" else None


def import_from_checkout(source: Optional[str]) -> Optional[str]:
    """Puts a library's checkout first on sys.path (a library its authors run from the checkout, not
    installed as a package): `--source DIR`, else the checkout it was installed from. Returns it."""
    source = source or installed_checkout()
    if source:
        sys.path.insert(0, os.path.abspath(source))
    return source


def rawrag_cache_dir(env: Optional[dict] = None) -> str:
    """rawrag's cache folder, found as rawrag finds it (src/providers/cache.ts resolveCacheDir)."""
    env = os.environ if env is None else env
    if env.get("RAWRAG_CACHE_DIR"):
        return os.path.abspath(env["RAWRAG_CACHE_DIR"])
    if env.get("XDG_CACHE_HOME"):
        return os.path.join(os.path.abspath(env["XDG_CACHE_HOME"]), "rawrag")
    return os.path.join(os.path.expanduser("~"), ".cache", "rawrag")


def default_state_dir(system: str, env: Optional[dict] = None) -> str:
    """Where a sidecar keeps its state when no --state is given: under rawrag's cache, the folder a
    sidecar rawrag starts for you uses (`<cache>/sidecars/<system>`), never the current folder."""
    return os.path.join(rawrag_cache_dir(env), "sidecars", system.lower())


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main(adapter_class: type[Adapter], argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(
        prog=f"{adapter_class.system.lower()}.py",
        description=f"{adapter_class.system} behind rawrag's memory protocol v1 (docs/memory-services.md)",
    )
    parser.add_argument("--port", type=int, default=8787, help="port on 127.0.0.1 (0: a free one, printed on the first line)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--state",
        default=None,
        help="folder of the sidecar's state and the library's data (default: <rawrag's cache>/sidecars/<system>, "
        "the cache being RAWRAG_CACHE_DIR, else $XDG_CACHE_HOME/rawrag, else ~/.cache/rawrag); "
        "a restarted sidecar on the same folder keeps every add it acknowledged",
    )
    parser.add_argument("--key-env", default="RAWRAG_SIDECAR_KEY", help="environment variable of the Bearer key rawrag sends (unset: none needed)")
    parser.add_argument("--search-wait", type=float, default=3600.0, help="seconds a search waits for its owner to be fed to the library")
    adapter_class.add_arguments(parser)
    args = parser.parse_args(argv)
    state_dir = os.path.abspath(args.state) if args.state else default_state_dir(adapter_class.system)
    os.makedirs(os.path.join(state_dir, "owners"), exist_ok=True)
    stdout = sys.stdout
    # The libraries print freely; stdout's first line is the sidecar's address, for whoever started it.
    with contextlib.redirect_stdout(sys.stderr):
        adapter = adapter_class(args, state_dir)
        sidecar = Sidecar(adapter, state_dir, args.search_wait)
        server = ThreadingHTTPServer((args.host, args.port), _handler(sidecar, os.environ.get(args.key_env) or None))
        server.daemon_threads = True
    port = server.server_address[1]
    stdout.write(f"rawrag sidecar {adapter_class.system} listening on http://{args.host}:{port} (state {state_dir})\n")
    stdout.flush()
    sys.stdout = sys.stderr
    # SIGTERM ends the sidecar as Ctrl-C does, so the adapter's close() runs (Python's default would skip it).
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        adapter.close()
