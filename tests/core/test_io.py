import os
import signal
import subprocess
import sys

from fingap.core.io import atomic_path, read_jsonl, write_json, write_jsonl

SLOW_WRITER = """
import sys, time
from fingap.core.io import write_jsonl
def rows():
    for i in range(1000):
        if i == 5:
            print("writing", flush=True)
            time.sleep(60)
        yield {"i": i}
write_jsonl(sys.argv[1], rows())
"""


def test_killed_writer_leaves_old_output_intact_and_no_partial_file(tmp_path):
    target = tmp_path / "out.jsonl"
    write_jsonl(target, [{"i": -1}])
    p = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(target)],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "writing"
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert read_jsonl(target) == [{"i": -1}]  # the reader never sees a half-written file
    assert list(tmp_path.glob(".out.jsonl.*.tmp"))  # the killed writer's temp file
    write_jsonl(target, [{"i": 1}])
    assert read_jsonl(target) == [{"i": 1}]
    assert not list(tmp_path.glob(".out.jsonl.*.tmp"))  # cleaned by the next writer


def test_failed_write_keeps_previous_file(tmp_path):
    target = tmp_path / "x.json"
    write_json(target, {"a": 1})
    try:
        with atomic_path(target) as tmp:
            tmp.write_text("partial")
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert target.read_text().strip().startswith("{")
    assert not list(tmp_path.glob(".x.json.*.tmp"))


def test_outputs_get_normal_permissions(tmp_path):
    write_json(tmp_path / "m.json", {})
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "m.json").stat().st_mode & 0o777 == 0o666 & ~umask


def test_update_json_section_keeps_other_sections(tmp_path):
    from fingap.core.io import read_json, update_json_section

    path = tmp_path / "bench.json"
    update_json_section(path, "a", {"x": 1})
    update_json_section(path, "b", 2)
    update_json_section(path, "a", {"x": 3})
    assert read_json(path) == {"a": {"x": 3}, "b": 2}
