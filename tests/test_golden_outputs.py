"""Golden outputs: every output variable of every golden model (tests/golden_models.py) equals
the stored value — integers exactly, floats to 1e-12 relative. Any change of results fails here;
a deliberate one regenerates tests/golden/outputs.npz in the same commit, with the reason."""
import numpy as np
import pytest

from golden_models import CASES, GOLDEN, run_case


@pytest.fixture(scope="module")
def stored():
    with np.load(GOLDEN) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("name", list(CASES))
def test_golden_outputs_unchanged(name, stored):
    got = run_case(name)
    want = {k.split("/", 1)[1]: v for k, v in stored.items() if k.startswith(name + "/")}
    assert want, f"no stored outputs for {name}: regenerate with python tests/golden_models.py"
    assert sorted(got) == sorted(want), (sorted(set(got) ^ set(want)))
    for var, w in want.items():
        g = got[var]
        assert g.shape == w.shape, (var, g.shape, w.shape)
        if np.issubdtype(w.dtype, np.integer) or w.dtype == bool:
            assert np.array_equal(g, w), var
        else:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=0, equal_nan=True, err_msg=var)
