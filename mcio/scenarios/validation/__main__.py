"""``python -m mcio.scenarios.validation [--blind] [--json]``: the validation figures on the
catalogue as it stands, or (``--blind``) as it stood before issue 30's mechanisms."""
import json
import sys

from ..base import format_table
from .scenario import BLIND, SCENARIO

rows = (BLIND if "--blind" in sys.argv else SCENARIO).reproduce()
if "--json" in sys.argv:
    print(json.dumps([r.to_json() for r in rows], indent=1))
else:
    print(format_table(rows))
    judged = [r for r in rows if r.within is not None]
    print(f"{sum(r.within for r in judged)} of {len(judged)} within tolerance")
