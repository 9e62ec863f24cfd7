"""Did `make repro` on a fresh clone reproduce the workspace's pipeline outputs?

A new user's run (the README's first command, in a fresh clone with an empty DVC cache and
empty side caches) is compared with this workspace, stage by stage, for every stage the clone
has run since it started (those with a timing record of this run): each output file byte for
byte; a JSON report without its wall times, rates and run ids (as
``check_tiny_identical.py`` compares them); a SQLite side cache by its rows, without their
write times. Also sums the stage time the clone recorded in ``reports/timings/`` since it
started. Writes
``reports/fresh_clone.json``.

    git clone . ../fresh && (cd ../fresh && FINGAP_CACHE_DIR=$(mktemp -d) make repro)
    python maintainers/check_fresh_clone.py --clone ../fresh --started 2026-11-25T06:16:02Z
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "maintainers"))
from check_tiny_identical import fingerprint  # noqa: E402

from fingap.core.timings import TIMINGS_DIR, read_records  # noqa: E402

OUT = ROOT / "reports/fresh_clone.json"
# what a run's clock writes beyond a JSON report's wall times (``fingerprint`` drops those):
# a side cache's write times, a duration in a model card or a Markdown table
TIMESTAMP_COLUMNS = {"created", "created_at", "measured_at", "updated_at"}
TIME_HEADER = re.compile(r"\b(seconds|minutes|hours|min|s)\b", re.IGNORECASE)
DURATION = re.compile(r"\b\d+(\.\d+)? ?(s|sec|seconds?|minutes?|min|hours?)\b")


def head(repo: Path) -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo,
                          capture_output=True, text=True, check=True).stdout.strip()


def stage_seconds(clone: Path, since: datetime) -> dict[str, float]:
    """{stage: seconds} of the timing records the clone wrote at or after ``since``."""
    return {stage: rec["seconds"] for stage, rec in read_records(clone / TIMINGS_DIR).items()
            if datetime.fromisoformat(rec["measured_at"]) >= since}


def _clock_line(x: str, y: str, above: list[str]) -> bool:
    """A changed line equal to the other once its durations are cut out, or a table row whose
    changed cells all sit in columns headed by a unit of time."""
    if DURATION.search(x) and DURATION.sub("", x) == DURATION.sub("", y):
        return True
    if not (x.startswith("|") and y.startswith("|")):
        return False
    # the header is the line above the nearest |---| separator
    header = next((above[j - 1] for j in range(len(above) - 1, 0, -1)
                   if above[j].startswith(("|-", "|:"))), None)
    cells_x, cells_y = x.split("|"), y.split("|")
    if header is None or len(cells_x) != len(cells_y):
        return False
    names = header.split("|")
    changed = [i for i, (c, d) in enumerate(zip(cells_x, cells_y, strict=True)) if c != d]
    return all(i < len(names) and TIME_HEADER.search(names[i]) for i in changed)


def _sqlite_rows(path: Path) -> dict[str, list[tuple]]:
    """Every table's rows, sorted, without the columns that stamp when a row was written."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out = {}
        for t in tables:
            cols = [r[1] for r in db.execute(f'PRAGMA table_info("{t}")')
                    if r[1] not in TIMESTAMP_COLUMNS]
            names = ", ".join(f'"{c}"' for c in cols)
            out[t] = sorted(db.execute(f'SELECT {names} FROM "{t}"').fetchall())
    return out


def only_clock_differs(a: Path, b: Path) -> bool:
    """True when two files differ only in what the clock wrote (durations, a side cache's
    write times and page layout)."""
    if a.suffix == ".sqlite":
        return _sqlite_rows(a) == _sqlite_rows(b)
    if a.suffix == ".md":
        old, new = a.read_text().splitlines(), b.read_text().splitlines()
        return len(old) == len(new) and all(
            x == y or _clock_line(x, y, old[:i]) for i, (x, y) in enumerate(zip(old, new,
                                                                               strict=True)))
    return False


def stage_outs(lock: dict, stage: str) -> list[dict]:
    return lock.get(stage, {}).get("outs", [])


def absent_outputs(lock: dict, stages: list[str]) -> list[str]:
    """The out paths of ``stages`` that this checkout does not hold."""
    return [o["path"] for s in stages for o in stage_outs(lock, s)
            if not (ROOT / o["path"]).exists()]


def under(path: str, roots: list[str]) -> bool:
    return any(path == r.rstrip("/") or path.startswith(r.rstrip("/") + "/") for r in roots)


def lock_hash_diff(ours: dict, theirs: dict, paths: list[str]) -> list[str]:
    """The out paths among ``paths`` whose hash differs between two dvc.lock stage maps."""
    def hashes(lock: dict) -> dict[str, str | None]:
        return {o["path"]: o.get("md5") for s in lock for o in stage_outs(lock, s)}
    mine, clone = hashes(ours), hashes(theirs)
    return sorted(p for p in paths if mine.get(p) != clone.get(p))


def metrics_diff(ours: Path, theirs: Path) -> dict:
    """The clone's PageRec@5 rows against ours: how many are equal, the largest move, and
    fingap best's row in both (a clone on another CPU may round bf16 differently)."""
    if not (ours.exists() and theirs.exists()):
        return {}
    a, b = json.loads(ours.read_text()), json.loads(theirs.read_text())
    rows = [(m, c) for m, conds in a.items() if isinstance(conds, dict)
            for c, row in conds.items() if isinstance(row, dict) and "PageRec@5" in row]
    moves = {f"{m}/{c}": round(b[m][c]["PageRec@5"] - a[m][c]["PageRec@5"], 4)
             for m, c in rows if m in b and c in b[m]}
    changed = {k: v for k, v in moves.items() if v != 0}
    best = {c: [a["fingap_best"][c]["PageRec@5"], b["fingap_best"][c]["PageRec@5"]]
            for c in ("standard", "oracle_doc")} if "fingap_best" in a and "fingap_best" in b \
        else {}
    return {"rows": len(moves), "identical": len(moves) - len(changed),
            "largest_moves": dict(sorted(changed.items(), key=lambda kv: -abs(kv[1]))[:8]),
            "fingap_best_ours_theirs": best}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clone", type=Path, required=True)
    ap.add_argument("--started", required=True, help="when make repro started (ISO 8601, UTC)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    clone = args.clone.resolve()
    since = datetime.fromisoformat(args.started.replace("Z", "+00:00"))
    ours = yaml.safe_load((ROOT / "dvc.lock").read_text())["stages"]
    # the clone's dvc.lock is git's copy until a stage rewrites its entry, so a stage counts
    # as run when it wrote its timing record in this run
    seconds = stage_seconds(clone, since)
    done = [s for s in ours if s in seconds]
    unknown = sorted(set(seconds) - set(ours))
    if unknown:
        raise SystemExit(f"stages of the clone unknown here: {unknown}")
    # an output this checkout does not hold (a new machine: DVC's cache empty, data/ and
    # models/ never checked out) is compared by the hash git's dvc.lock records for it
    lock_only = absent_outputs(ours, done)
    # the timing records are the run's own diary, never the same twice
    theirs = {p: d for p, d in fingerprint(clone, done).items()
              if not p.startswith(f"{TIMINGS_DIR}/") and not under(p, lock_only)}
    mine = fingerprint(ROOT, done, skip=lock_only)
    differ = sorted(p for p in theirs if mine.get(p) != theirs[p])
    by_hash = lock_hash_diff(ours, yaml.safe_load((clone / "dvc.lock").read_text())["stages"],
                             lock_only)
    clock = [p for p in differ if (ROOT / p).exists() and only_clock_differs(ROOT / p, clone / p)]
    report = {
        "clone_commit": head(clone), "workspace_commit": head(ROOT),
        "started_at": args.started, "checked_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "stages_finished": len(done), "stages_in_pipeline": len(ours),
        "stages_not_finished": [s for s in ours if s not in done],
        "stage_minutes": round(sum(seconds.values()) / 60, 1),
        "slowest_stage_minutes": {s: round(v / 60, 1) for s, v in
                                  sorted(seconds.items(), key=lambda kv: -kv[1])[:12]},
        "files_compared": len(theirs),
        # JSON counts as identical without its wall times, rates and run ids
        "files_identical": len(theirs) - len(differ),
        "files_differing_only_in_durations_or_timestamps": clock,
        "files_differing": [p for p in differ if p not in clock],
    }
    report["retrieval_rows"] = metrics_diff(ROOT / "reports/metrics.json",
                                            clone / "reports/metrics.json")
    if lock_only:
        report["outputs_compared_by_lock_hash"] = {
            "why": "not in this checkout (DVC cache empty): the clone's dvc.lock hash against "
                   "git's, so an output with a wall time inside (a model card) differs too",
            "compared": len(lock_only), "identical": len(lock_only) - len(by_hash),
            "differing": by_hash}
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
