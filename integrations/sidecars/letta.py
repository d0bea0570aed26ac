"""
Starts Letta's own V1 server for rawrag: `letta server --host 127.0.0.1 --port PORT`, run in this
process through the `letta` command's own entry point (letta.main:app), with

- its data under the state folder: HOME = <state>/home, so letta 0.11.7's ~/.letta (its config and
  SQLite database, letta/constants.py) is <state>/home/.letta (LETTA_DIR names the same folder);
  no Postgres URI (LETTA_PG_URI set empty, and the user's own ~/.letta/pg_uri is not read);
- its OpenAI provider at OPENAI_BASE_URL (set by rawrag to the configured OpenAI-compatible
  endpoint; the file embeddings go there);
- on SQLite, the one column whose default only Postgres reads (archives_agents.created_at, the
  literal "now()") given SQL's now(), so archival inserts work (sqlite_archive_link_default);
- nothing downloaded: tiktoken's encodings come seeded in TIKTOKEN_CACHE_DIR (rawrag), and the
  start-up's `nltk.download("punkt_tab")` (letta/server/rest_api/app.py, a best-effort step that
  only warns when it fails) is answered without the network: it is replaced by a function that
  downloads nothing and says so on stderr.

    python3 integrations/sidecars/letta.py --port 0 --state DIR

`--port 0` picks a free port. The first line on stdout, printed once the server answers
GET /v1/health/, is `rawrag letta listening on http://127.0.0.1:PORT (state DIR)`; Letta's own
output goes to stderr. SIGTERM stops the server (uvicorn's own shutdown).

rawrag then talks to Letta's REST API directly (src/systems/letta/client.ts): this script adds no
route of its own.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import time
import urllib.request

# This file is named letta.py: its own folder must not shadow the `letta` package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def announce_when_up(host: str, port: int, state: str, stdout, timeout_s: float = 600.0) -> None:
    """Prints the address on the real stdout once GET /v1/health/ answers (the server is listening and its database ready)."""
    url = f"http://{host}:{port}"
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/v1/health/", timeout=5) as r:
                health = json.loads(r.read().decode("utf-8") or "{}")
            sys.stderr.write(f"rawrag: Letta {health.get('version', '?')} answers at {url}\n")
            stdout.write(f"rawrag letta listening on {url} (state {state})\n")
            stdout.flush()
            return
        except Exception:
            time.sleep(0.5)
    sys.stderr.write(f"rawrag: Letta did not answer {url}/v1/health/ within {timeout_s:.0f} s\n")


def no_download(*args, **kwargs) -> bool:
    sys.stderr.write(f"rawrag: nltk.download{args!r} not run (offline: nothing is downloaded)\n")
    return False


def sqlite_archive_link_default() -> None:
    """
    letta 0.11.7 declares `archives_agents.created_at` with `server_default="now()"`, a literal
    string (letta/orm/archives_agents.py): Postgres evaluates it, SQLite stores the text `now()`,
    and reading the row back fails ("Invalid isoformat string: 'now()'"), so an agent's first
    archival insert (POST /v1/agents/{id}/archival-memory, which links the agent to its default
    archive) fails with HTTP 400 on SQLite. Before the tables are made, that one column's default
    becomes SQL's own now() (CURRENT_TIMESTAMP on SQLite), as every other table's created_at
    (letta/orm/base.py). A database made before this runs keeps the literal default.
    """
    from sqlalchemy import DefaultClause, func
    from letta.orm.archives_agents import ArchivesAgents

    ArchivesAgents.__table__.c.created_at.server_default = DefaultClause(func.now())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="letta.py", description="Letta's V1 server (letta server) for rawrag, offline, on SQLite")
    parser.add_argument("--port", type=int, default=8283, help="port on 127.0.0.1 (0: a free one, printed on the first line)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--state", required=True, help="folder of the server's data (<state>/home/.letta)")
    args = parser.parse_args(argv)
    state = os.path.abspath(args.state)
    # letta 0.11.7 keeps its config and SQLite database in ~/.letta (letta/constants.py LETTA_DIR is
    # `~/.letta`, not read from the environment): HOME is the state folder's `home`, so the server's
    # data is <state>/home/.letta (LETTA_DIR, read by later releases, names the same folder).
    home = os.path.join(state, "home")
    letta_dir = os.path.join(home, ".letta")
    os.makedirs(letta_dir, exist_ok=True)
    os.environ["HOME"] = home
    os.environ["LETTA_DIR"] = letta_dir
    os.environ.setdefault("LETTA_PG_URI", "")
    # The server writes openapi_letta.json into its working directory: the state folder, not rawrag's.
    os.chdir(state)
    port = args.port or free_port(args.host)
    stdout = sys.stdout
    # Letta prints freely; stdout's first line is the address, for whoever started it.
    sys.stdout = sys.stderr

    import nltk  # noqa: E402  (imported before Letta's app, so its start-up finds the replacement)

    nltk.download = no_download
    sqlite_archive_link_default()
    threading.Thread(target=announce_when_up, args=(args.host, port, state, stdout), daemon=True).start()
    from letta.main import app  # noqa: E402  (the `letta` command)

    app(["server", "--host", args.host, "--port", str(port)], standalone_mode=True)


if __name__ == "__main__":
    main()
