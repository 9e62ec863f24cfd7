"""Same outputs from changed code, shown on the tiny e2e project before ``dvc commit -f``.

Builds the e2e test's tiny project (its corpus, one-layer MiniLM and parameters) from the code
of an earlier commit (``--old``), runs ``dvc repro STAGE...`` there, then puts the working
tree's code, dvc.yaml and params.yaml (with the same e2e parameters) in its place and runs
``dvc repro STAGE...`` again, so every stage whose code or definition changed reruns. Each
output of the named stages is then compared byte for byte; a JSON report field by field with
its wall times and run ids left out; a Markdown report's changed lines are printed, to be read
(it prints wall times). Exits 1 when anything else differs or a named stage did not rerun.

    python maintainers/check_tiny_identical.py --old HEAD train_page_scorer_hn \
        studies/dvc.yaml:train_page_scorer_hn_windows

(a stage of the studies pipeline is named by its DVC address, studies/dvc.yaml:NAME).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.conftest import append_statement_page, make_corpus  # noqa: E402
from tests.test_pipeline_e2e import one_layer_minilm, write_tiny_params  # noqa: E402

CODE = ("dvc.yaml", "params.yaml", "studies/dvc.yaml", "studies/params.yaml", "stages",
        "src", "annotations")
VOLATILE = ("mlflow_run_id", "measured_at", "generated_at")  # and keys of seconds, minutes, rates


def sh(cmd: list[str], cwd: Path, env: dict | None = None) -> str:
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p.stdout + p.stderr


def put_code(proj: Path, source: Path, tiny_model: Path, overrides: list[str]) -> None:
    for name in CODE:
        target = proj / name
        if target.is_dir():
            shutil.rmtree(target)
        if (source / name).is_dir():
            shutil.copytree(source / name, target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        elif (source / name).exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source / name, target)
        elif target.exists():  # (a file the other commit does not have)
            target.unlink()
    write_tiny_params(proj, tiny_model, overrides)


def stable_json(value):
    if isinstance(value, dict):
        return {k: stable_json(v) for k, v in value.items()
                if k not in VOLATILE and "seconds" not in k and "minutes" not in k
                and not k.endswith("_per_s")}
    if isinstance(value, list):
        return [stable_json(v) for v in value]
    return value


def fingerprint(proj: Path, stages: list[str], skip: list[str] = ()) -> dict[str, str]:
    """{path: digest} of every file the stages output (per dvc.lock), but the out paths in
    ``skip``; JSON without its volatile fields."""
    lock = {}
    for name in ("dvc.lock", "studies/dvc.lock"):  # the product's and the studies' stages
        if (proj / name).exists():
            lock |= yaml.safe_load((proj / name).read_text())["stages"]
    out = {}
    for stage in stages:
        for o in lock[stage.rsplit(":", 1)[-1]].get("outs", []):
            if o["path"] in skip:
                continue
            path = proj / o["path"]
            files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
            for f in files:
                data = f.read_bytes()
                if f.suffix == ".json":
                    data = json.dumps(stable_json(json.loads(data)), sort_keys=True).encode()
                out[str(f.relative_to(proj))] = hashlib.sha256(data).hexdigest()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stages", nargs="+")
    ap.add_argument("--old", default="HEAD", help="the commit whose code made the outputs")
    ap.add_argument("--keep", action="store_true", help="keep the project (path printed)")
    ap.add_argument("--set", nargs="*", default=[], metavar="SECTION.KEY=VALUE",
                    help="parameters over the e2e ones, in both runs (e.g. doc2query.per_doc=0)")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="fingap-identical-"))
    old_code = root / "old"
    old_code.mkdir()
    present = [name for name in CODE if subprocess.run(
        ["git", "cat-file", "-e", f"{args.old}:{name}"], cwd=ROOT).returncode == 0]
    archive = subprocess.run(["git", "archive", args.old, *present], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old_code)], input=archive, check=True)
    proj = root / "proj"
    proj.mkdir()
    shutil.copy(ROOT / ".gitignore", proj / ".gitignore")
    corpus = make_corpus(root / "shared" / "financebench")
    append_statement_page(corpus / "pdfs" / "ACME_2022_10K.pdf")
    tiny = one_layer_minilm(root / "minilm_1layer")
    env = {**os.environ, "DVC_NO_ANALYTICS": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("MLFLOW_TRACKING_URI", None)
    env.pop("FINANCEBENCH_DIR", None)
    # each run imports the project's own copy of the library, not the editable install (the
    # working tree): without this, the "old" run ran the new library and only stages/ and
    # dvc.yaml were really compared
    env["PYTHONPATH"] = str(proj / "src")
    put_code(proj, old_code, tiny, args.set)
    imported = sh([sys.executable, "-c", "import fingap; print(fingap.__file__)"], proj, env)
    if not Path(imported.strip()).is_relative_to(proj / "src"):
        raise SystemExit(f"the project imports fingap from {imported.strip()}, not {proj / 'src'}")
    for cmd in (["git", "init", "-q"], ["git", "config", "user.email", "t@example.com"],
                ["git", "config", "user.name", "identical"], ["dvc", "init", "-q"],
                ["git", "add", "-A"], ["git", "commit", "-qm", "old"]):
        sh(cmd, proj, env)
    sh(["dvc", "repro", *args.stages], proj, env)
    before = fingerprint(proj, args.stages)
    saved = {p: (proj / p).read_text() for p in before if p.endswith((".md", ".json"))}
    put_code(proj, ROOT, tiny, args.set)
    log = sh(["dvc", "repro", *args.stages], proj, env)
    reran = sorted({line.split("'")[1] for line in log.splitlines()
                    if line.startswith("Running stage '")})
    after = fingerprint(proj, args.stages)
    differ = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    for path in differ:  # show how a text report differs (a wall time is not a difference)
        if path in saved and path.endswith(".md"):
            old, new = saved[path].splitlines(), (proj / path).read_text().splitlines()
            for a, b in zip(old, new, strict=False):
                if a != b:
                    print(f"{path}:\n  - {a}\n  + {b}")
    print(json.dumps({"old": args.old, "stages": args.stages, "reran": reran,
                      "files_compared": len(before), "differ": differ}, indent=1))
    if args.keep:
        print(f"project kept at {proj}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    # a Markdown report prints wall times: its changed lines are shown above to be read
    sys.exit(1 if [p for p in differ if not p.endswith(".md")]
             or not set(args.stages) <= set(reran) else 0)


if __name__ == "__main__":
    main()
