import sqlite3

from fingap.core.caches import seed_from_dvc_root


def _db(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(str(path)) as c:
        c.execute("CREATE TABLE t (k TEXT)")
        c.executemany("INSERT INTO t VALUES (?)", [(r,) for r in rows])
    c.close()


def _rows(path):
    with sqlite3.connect(str(path)) as c:
        out = [r[0] for r in c.execute("SELECT k FROM t ORDER BY k")]
    c.close()
    return out


def test_an_experiment_copy_starts_from_the_workspace_cache(tmp_path, monkeypatch):
    repo, copy = tmp_path / "repo", tmp_path / "repo/.dvc/tmp/exps/tmpabc"
    _db(repo / "data/cache/llm.sqlite", ["a", "b"])
    copy.mkdir(parents=True)
    monkeypatch.chdir(copy)
    monkeypatch.setenv("DVC_ROOT", str(repo))
    assert seed_from_dvc_root("data/cache/llm.sqlite")
    assert _rows(copy / "data/cache/llm.sqlite") == ["a", "b"]
    assert not (copy / "data/cache/llm.sqlite.seeding").exists()
    # an existing file is never replaced
    _db(repo / "data/cache/other.sqlite", ["x"])
    _db(copy / "data/cache/other.sqlite", ["y"])
    assert not seed_from_dvc_root("data/cache/other.sqlite")
    assert _rows(copy / "data/cache/other.sqlite") == ["y"]


def test_no_seeding_in_the_workspace_or_outside_dvc(tmp_path, monkeypatch):
    _db(tmp_path / "data/cache/llm.sqlite", ["a"])
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DVC_ROOT", raising=False)
    assert not seed_from_dvc_root("data/cache/missing.sqlite")  # a run by hand
    monkeypatch.setenv("DVC_ROOT", str(tmp_path))
    assert not seed_from_dvc_root("data/cache/missing.sqlite")  # the workspace itself
    assert not (tmp_path / "data/cache/missing.sqlite").exists()
    monkeypatch.setenv("DVC_ROOT", str(tmp_path / "elsewhere"))
    assert not seed_from_dvc_root("data/cache/missing.sqlite")  # nothing there to copy
