"""Reading wrk's report: the figures the benchmark prints come from here."""

import pytest

from bench.loadtest import parse_wrk

REPORT = """Running 10s test @ http://127.0.0.1:8802/topics/alpha
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    21.76ms   14.90ms   1.02s    93.05%
    Req/Sec     1.47k   417.94     1.83k    60.00%
  Latency Distribution
     50%  940.00us
     75%    3.07ms
     90%    6.09ms
     99%    1.20s
  29164 requests in 10.00s, 591.27MB read
{extra}Requests/sec:   2916.40
Transfer/sec:     59.12MB
"""


def test_figures_and_units() -> None:
    result = parse_wrk(REPORT.format(extra=""))
    assert result.requests_per_s == pytest.approx(2916.40)
    assert result.p50_ms == pytest.approx(0.94)
    assert result.p99_ms == pytest.approx(1200.0)
    assert result.requests == 29164
    assert result.errors == 0


def test_errors_count_failed_answers_and_sockets() -> None:
    extra = "  Socket errors: connect 0, read 12, write 1, timeout 3\n"
    extra += "  Non-2xx or 3xx responses: 40\n"
    assert parse_wrk(REPORT.format(extra=extra)).errors == 56


def test_a_report_without_figures_is_refused() -> None:
    with pytest.raises(ValueError, match="not a wrk --latency report"):
        parse_wrk("unable to connect to 127.0.0.1:9 Connection refused\n")
