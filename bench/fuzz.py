"""Longer schemathesis run against a live server's OpenAPI schema: no 5xx (but designed 503s), schema-conformant.

    .venv/bin/python bench/fuzz.py [--examples 300] [--url http://127.0.0.1:8000]

Without --url it starts the app on a free loopback port over a fresh data directory (writes need a token the
fuzzer does not have, so the run exercises validation and reads; tests/e2e/test_fuzz_api.py is the bounded version).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    import schemathesis
    from hypothesis import HealthCheck, Phase, given
    from hypothesis import settings as hypothesis_settings
    from schemathesis.checks import response_schema_conformance

    from tests.conftest import LiveServer
    from tests.test_fuzz_api import fuzz_settings, no_server_error

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300, help="generated cases per operation")
    parser.add_argument("--url", help="fuzz an already running server instead")
    args = parser.parse_args()
    statuses: Counter = Counter()

    def record(ctx, response, case) -> None:
        statuses[(case.method.upper(), case.path, response.status_code)] += 1

    def run(url: str) -> list[str]:
        api = schemathesis.openapi.from_url(f"{url}/openapi.json")
        failures = []
        for result in api.get_all_operations():
            operation = result.ok()

            @given(case=operation.as_strategy())
            @hypothesis_settings(max_examples=args.examples, deadline=None, database=None,
                                 phases=[Phase.explicit, Phase.generate, Phase.shrink],
                                 suppress_health_check=list(HealthCheck))
            def exercise(case):
                case.call_and_validate(base_url=url, checks=[record, no_server_error, response_schema_conformance],
                                       timeout=60)

            started = time.monotonic()
            try:
                exercise()
                outcome = "ok"
            except (Exception, BaseExceptionGroup) as exc:
                outcome = "FAILED"
                failures.append(f"{operation.method.upper()} {operation.path}:\n{exc}")
            codes = sorted((s, n) for (m, p, s), n in statuses.items() if m == operation.method.upper()
                           and p == operation.path)
            print(f"{outcome:6} {operation.method.upper():6} {operation.path:28} {time.monotonic() - started:6.1f} s  "
                  f"statuses {dict(codes)}", flush=True)
        return failures

    if args.url:
        failures = run(args.url.rstrip("/"))
    else:
        with tempfile.TemporaryDirectory(prefix="attest-fuzz-") as tmp, LiveServer(fuzz_settings(Path(tmp))) as server:
            failures = run(server.url)
    print(f"\n{sum(statuses.values())} requests, {len(failures)} failing operations")
    for failure in failures:
        print("\n" + failure[:3000])
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
