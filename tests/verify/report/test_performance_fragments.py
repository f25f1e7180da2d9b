"""The performance page's profile tables render the recorded medians (claims sorted by time,
shares of their sum, each run's time), and the profiler reads per-test times from pytest's
JUnit report."""

import json

from bench.profile import junit_times, medians
from verify.report.fragments import DataCache
from verify.report.performance_fragments import profile_check_table, profile_setting, profile_theorems_table


def _profile(tmp_path):
    data = {
        "provenance": {"commit": "0123456789abcdef", "date": "2026-12-06T22:00:00Z"},
        "cpu": "AMD EPYC", "cores": 2, "repeats": 3,
        "check": {"total": {"seconds": [210.0, 200.0, 250.0], "median": 210.0},
                  "claims": medians({"SX-1": [2.0, 3.0, 1.0], "SG-8": [240.0, 230.0, 260.0]})},
        "theorems": {"total": {"seconds": [270.0, 280.0, 275.0], "median": 275.0},
                     "tests": medians({"theorems/test_SG8_training.py::test_a": [100.0, 90.0, 110.0],
                                        "theorems/test_SG8_training.py::test_b": [10.0, 10.0, 10.0],
                                        "theorems/test_SX1_population_loss.py::test_c[1]": [1.0, 2.0, 3.0]})},
    }
    (tmp_path / "bench_profile.json").write_text(json.dumps(data))
    return DataCache(tmp_path)


def test_check_table_sorts_claims_by_median_with_shares(tmp_path):
    text = profile_check_table(_profile(tmp_path))
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    assert lines[1].startswith("| SG-8 | – | 240.0 | 99 % | 240.0 / 230.0 / 260.0 |")
    assert lines[2].startswith("| SX-1 | – | 2.0 | 1 % |")
    assert lines[3] == "| **boolverify check, wall** | – | **210** |  | 210 / 200 / 250 |"


def test_theorems_table_sums_per_file_and_lists_the_slowest(tmp_path):
    text = profile_theorems_table(_profile(tmp_path))
    assert "| `test_SG8_training.py` | – | 110.0 | 98 % |" in text
    assert "| **pytest theorems/, wall** | – | **275** | runs: 270, 280, 275 s |" in text
    assert text.index("`test_a`") < text.index("`test_b`") < text.index("`test_c[1]`")
    assert "AMD EPYC (2 cores), commit `0123456789ab`, 2026-12-06" in profile_setting(_profile(tmp_path))


def test_tables_put_the_previous_profile_beside_the_new_one(tmp_path):
    _profile(tmp_path)
    data = json.loads((tmp_path / "bench_profile.json").read_text())
    after = dict(data, provenance={"commit": "fedcba9876543210", "date": "2026-12-07T02:00:00Z"},
                 check={"total": {"seconds": [100.0, 110.0, 105.0], "median": 105.0},
                        "claims": medians({"SX-1": [1.0, 1.0, 1.0], "SG-8": [80.0, 82.0, 81.0]})},
                 previous=data)
    (tmp_path / "bench_profile.json").write_text(json.dumps(after))
    cache = DataCache(tmp_path)
    lines = [line for line in profile_check_table(cache).splitlines() if line.startswith("| ")]
    assert lines[1].startswith("| SG-8 | 240.0 | 81.0 | 99 % |")
    assert lines[3] == "| **boolverify check, wall** | **210** | **105** |  | 100 / 110 / 105 |"
    assert "| `test_SG8_training.py` | 110.0 | 110.0 | 98 % |" in profile_theorems_table(cache)
    assert "| `test_a` | test_SG8_training.py | 100.0 | 100.0 |" in profile_theorems_table(cache)
    setting = profile_setting(cache)
    assert setting.startswith("after: 3 runs") and "commit `fedcba987654`" in setting
    assert "before: 3 runs" in setting and "commit `0123456789ab`" in setting


def test_junit_times_name_tests_as_pytest_does(tmp_path):
    xml = tmp_path / "j.xml"
    xml.write_text('<testsuites><testsuite><testcase classname="theorems.test_SX1_population_loss" '
                   'name="test_c[1]" time="1.25"/><testcase classname="theorems.test_SG8_training" '
                   'name="test_a" time="90.5"/></testsuite></testsuites>')
    assert junit_times(xml) == {"theorems/test_SX1_population_loss.py::test_c[1]": 1.25,
                                 "theorems/test_SG8_training.py::test_a": 90.5}
