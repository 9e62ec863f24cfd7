"""The maintainers' fresh-clone check: outputs this checkout lacks are compared by lock hash."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "maintainers"))
from check_fresh_clone import absent_outputs, lock_hash_diff, under  # noqa: E402


def test_outputs_are_compared_by_their_lock_hash():
    ours = {"a": {"outs": [{"path": "data/x", "md5": "1.dir"}, {"path": "reports/r.json",
                                                              "md5": "2"}]},
            "b": {"outs": [{"path": "models/m", "md5": "3.dir"}]}}
    theirs = {"a": {"outs": [{"path": "data/x", "md5": "1.dir"}, {"path": "reports/r.json",
                                                                "md5": "9"}]},
              "b": {"outs": [{"path": "models/m", "md5": "4.dir"}]}}
    assert lock_hash_diff(ours, theirs, ["data/x", "models/m"]) == ["models/m"]
    assert lock_hash_diff(ours, {}, ["data/x"]) == ["data/x"]  # an out the clone never wrote


def test_paths_under_an_output_folder():
    assert under("data/x/y.npy", ["data/x"]) and under("data/x", ["data/x/"])
    assert not under("data/xy/z", ["data/x"])


def test_absent_outputs_are_those_this_checkout_lacks():
    lock = {"s": {"outs": [{"path": "README.md"}, {"path": "data/never-checked-out-here"}]}}
    assert absent_outputs(lock, ["s"]) == ["data/never-checked-out-here"]
