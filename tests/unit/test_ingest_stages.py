"""The ingest stage clock: wall and CPU per stage, a nested stage counted once."""

from __future__ import annotations

import time

from attest.ingest.stages import StageClock


def spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_nested_stage_is_counted_as_itself_only():
    clock, timings = StageClock(), {}
    with clock.measure("write", timings):
        spin(0.02)
        with clock.measure("reasoner"):
            spin(0.05)
    assert clock.cpu["reasoner"] >= 0.05 and 0.02 <= clock.cpu["write"] < 0.045
    assert clock.wall["write"] < timings["write"]  # the document's own timing keeps the whole block
    assert timings["write"] >= clock.wall["write"] + clock.wall["reasoner"] - 1e-6


def test_waiting_costs_wall_time_not_cpu():
    clock = StageClock()
    with clock.measure("shacl"):
        time.sleep(0.05)
    assert clock.wall["shacl"] >= 0.05 and clock.cpu["shacl"] < 0.02
