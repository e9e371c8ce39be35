"""Store pins (tests/golden_store.py): points-log records are the same bytes and a final file
holds the same content (objects, dtypes, shapes, chunks, filters, attributes, values) as stored.
A change fails here; a deliberate change of the format regenerates tests/golden/store.json."""
import json

import pytest

from golden_store import GOLDEN, final_file_content, records


@pytest.fixture(scope="module")
def stored():
    return json.loads(GOLDEN.read_text())


def test_points_log_records_are_the_same_bytes(stored):
    assert records() == stored["records"]


def test_final_file_has_the_same_content(stored, tmp_path):
    got = final_file_content(tmp_path)
    want = stored["final_file"]
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], name
