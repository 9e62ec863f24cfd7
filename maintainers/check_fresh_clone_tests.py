"""How long `make test` takes on a fresh clone (the issue's target: 15 minutes on 2 cores).

Clones the repository's HEAD into a temporary folder, clears fingap's user cache (the
de-quantized GGUF) so nothing from an earlier run helps, and runs CI's own command
(`.ci/run`, i.e. `make test`: set-up, ruff, pytest) with pytest's durations on. Writes the
wall time of the whole command and of pytest, the pass count and the slowest tests to
`reports/benchmarks.json` -> `test_suite`.

    python maintainers/check_fresh_clone_tests.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from fingap.core.caches import user_cache_dir
from fingap.core.io import update_json_section
from fingap.ingestion.corpus import locate_corpus

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reports/benchmarks.json"


def parse_pytest(log: str) -> dict:
    """Pass/fail counts, pytest's own seconds and the --durations table from its output."""
    out: dict = {}
    summaries = [line for line in log.splitlines()
                 if re.search(r"\d+ (passed|failed)\b.* in [\d.]+s", line)]
    if summaries:  # pytest's last line: "1 failed, 354 passed, 1 warning in 861.80s (0:14:21)"
        last = summaries[-1]
        for word in ("passed", "failed", "error", "skipped", "deselected"):
            m = re.search(rf"(\d+) {word}", last)
            out[word] = int(m.group(1)) if m else 0
        out["pytest_seconds"] = float(re.search(r" in ([\d.]+)s", last).group(1))
    out["slowest"] = [{"seconds": float(m.group(1)), "phase": m.group(2), "test": m.group(3)}
                      for m in re.finditer(r"^([\d.]+)s (setup|call|teardown)\s+(\S+)$", log,
                                           re.MULTILINE)]
    return out


def main() -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.strip()
    shutil.rmtree(user_cache_dir(), ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "fingap"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        # the clone is not beside ../shared/financebench, so name the corpus (the tests that
        # read real PDFs would skip otherwise; the e2e test drops the variable itself)
        env = dict(os.environ, CI="true", PYTEST_ADDOPTS="--durations=15",
                   FINANCEBENCH_DIR=str(locate_corpus(root=ROOT)))
        t0 = time.perf_counter()
        p = subprocess.run(["bash", ".ci/run"], cwd=clone, env=env, capture_output=True,
                           text=True)
        seconds = time.perf_counter() - t0
    log = p.stdout + p.stderr
    result = {"commit": commit, "command": "bash .ci/run (make test) in a fresh clone",
              "exit_code": p.returncode, "total_seconds": round(seconds, 1),
              "total_minutes": round(seconds / 60, 2), "target_minutes": 15,
              "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": f"{os.cpu_count()} CPU cores"} | parse_pytest(log)
    update_json_section(OUT, "test_suite", result)
    print({k: v for k, v in result.items() if k != "slowest"})
    if p.returncode != 0:
        print(log[-5000:])
        raise SystemExit(p.returncode)


if __name__ == "__main__":
    main()
