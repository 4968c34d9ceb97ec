"""The ledger's SQLite schema as an ordered list of forward migrations (design §4.1).

`PRAGMA user_version` holds how many migrations a file has applied. A migration is never edited once released:
new needs append a new step, so a file written by any older freshpass opens with any newer one.
"""

from __future__ import annotations

# Each entry is one migration, applied in order inside a single write transaction.
MIGRATIONS: tuple[str, ...] = (
    # 1: events, per-(root, kind) heads, content manifests of non-git roots, nudges.
    """
    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at REAL NOT NULL,            -- epoch seconds when recorded
        started_at REAL NOT NULL,
        finished_at REAL NOT NULL,
        duration REAL NOT NULL,
        session TEXT NOT NULL DEFAULT '',
        actor TEXT NOT NULL DEFAULT '',      -- who ran it: terminal, editor, agent, server, ci
        cwd TEXT NOT NULL DEFAULT '',
        root TEXT NOT NULL,
        command TEXT NOT NULL,               -- the command line as typed
        canonical_command TEXT NOT NULL,
        approved INTEGER NOT NULL DEFAULT 0,
        kind TEXT NOT NULL,
        scope TEXT NOT NULL,
        status TEXT NOT NULL,                -- passed | failed
        exit_code INTEGER,
        reason TEXT,
        output_head TEXT NOT NULL DEFAULT '',
        output_tail TEXT NOT NULL DEFAULT '',
        output_omitted INTEGER NOT NULL DEFAULT 0,
        tests_passed INTEGER,
        tests_failed INTEGER,
        tests_skipped INTEGER,
        content_id TEXT NOT NULL,            -- the root's content at the start of the run
        stale_at_record INTEGER NOT NULL DEFAULT 0,  -- content changed while it ran: never fresh
        details TEXT                         -- JSON, e.g. the phases of `freshpass verify`
    );
    -- The status query: newest evidence per (root, kind) for one content id, and newest per (root, kind).
    CREATE INDEX events_fresh ON events (root, content_id, kind, id) WHERE stale_at_record = 0;
    CREATE INDEX events_root_kind ON events (root, kind, id);
    CREATE INDEX events_root ON events (root, id);
    CREATE INDEX events_created ON events (created_at);

    -- The newest event of each (root, kind): what a current status can point at, so retention never deletes it.
    CREATE TABLE heads (
        root TEXT NOT NULL,
        kind TEXT NOT NULL,
        event_id INTEGER NOT NULL,
        PRIMARY KEY (root, kind)
    ) WITHOUT ROWID;

    -- File manifests of non-git roots, so changed_paths can be computed against an old content id.
    CREATE TABLE manifests (
        content_id TEXT PRIMARY KEY,
        root TEXT NOT NULL,
        created_at REAL NOT NULL,
        manifest BLOB NOT NULL               -- zlib-compressed JSON {relative path: digest}
    );

    CREATE TABLE nudges (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at REAL NOT NULL,
        session TEXT NOT NULL,
        root TEXT NOT NULL,
        baseline INTEGER                     -- id of the root's newest fresh passing evidence, or NULL
    );
    CREATE INDEX nudges_budget ON nudges (session, root, baseline);
    CREATE INDEX nudges_created ON nudges (created_at);
    """,
    # 2: how a receipt was observed (watched | reported | unconfirmed); the starts of agents' tool calls.
    """
    ALTER TABLE events ADD COLUMN observed TEXT NOT NULL DEFAULT 'watched';

    -- The content a root had when an agent's pre-tool hook saw a shell call start, keyed by the call's id; taken
    -- (and deleted) by its post-tool report, pruned by age and count.
    CREATE TABLE starts (
        call TEXT PRIMARY KEY,               -- session and tool_use_id
        created_at REAL NOT NULL,
        root TEXT NOT NULL,
        content_id TEXT                      -- NULL: the start was seen, its content could not be read
    ) WITHOUT ROWID;
    CREATE INDEX starts_created ON starts (created_at);
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)
