"""bench/common.py's process readings (bench/scale.py --cpu, bench/named_queries.py): CPU of every thread, a gone process, children."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux /proc only")


def _common():
    path = Path(__file__).resolve().parents[2] / "bench" / "common.py"
    spec = importlib.util.spec_from_file_location("bench_common", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_process_cpu_counts_the_time_of_its_other_threads():
    common = _common()
    spun, done = threading.Event(), threading.Event()

    def spin() -> None:  # 50 ms of CPU, then stays alive until read: an ended thread takes its time with it
        end = time.thread_time() + 0.05
        while time.thread_time() < end:
            pass
        spun.set()
        done.wait(10)

    before = common.process_cpu_ns(os.getpid())
    worker = threading.Thread(target=spin)
    worker.start()
    assert spun.wait(10)
    after = common.process_cpu_ns(os.getpid())
    done.set()
    worker.join()
    assert after - before >= 50_000_000


def test_a_process_that_is_gone_has_no_cpu_reading():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert _common().process_cpu_ns(child.pid) is None


def test_child_pids_lists_the_children_of_a_process_and_no_others():
    common = _common()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        mine = common.child_pids(os.getpid())
        assert child.pid in mine
        assert os.getpid() not in mine
        assert child.pid not in common.child_pids(child.pid)  # a process is not its own child
    finally:
        child.kill()
        child.wait()
    assert child.pid not in common.child_pids(os.getpid())  # reaped: gone from /proc
