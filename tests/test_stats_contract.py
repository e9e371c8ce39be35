"""The one statistics contract (mcio/kernels/stats.py): every output variable of a simulation is
declared in ``OUTPUTS`` (or is one of its CI companions, or a run-level extra), in table order,
with the units and long name declared there, from a slot that exists."""
import numpy as np

from mcio import simulate
from mcio.engine.results import _ci_name
from mcio.kernels import stats as S
from oracle_models import single_server_open

EXTRAS = ("warmup_mser_ios", "warmup_adequate")        # set by simulate, not by a slot


def test_every_output_is_declared_once_in_table_order():
    n_slots = {"acc": S.N_ACC, "chs": S.N_CH, "devs": S.N_DEV}
    names = [st.var for st in S.OUTPUTS]
    assert len(set(names)) == len(names)
    for st in S.OUTPUTS:
        assert st.units and st.long_name, st.var
        if st.src != "hist":
            assert 0 <= st.slot < n_slots[st.src], st.var
        if st.ci is not None:
            assert st.norm in (S.PER_IO, S.PER_S), st.var
    model = single_server_open(500.0, {"dist": "exponential", "mean": 1.0})
    for fast in (True, False):
        ds = simulate(model, ios=2_000, replications=2, per_device=True, fast_path=fast)
        want = []
        for st in S.OUTPUTS:
            want.append(st.var)
            if st.ci is not None:
                want.append(_ci_name(st.var))
        assert list(ds.data_vars) == want + list(EXTRAS)
        for st in S.OUTPUTS:
            attrs = dict(ds[st.var].attrs)
            if st.norm == S.FLAG:   # flags carry CF flag_values / flag_meanings besides
                assert list(attrs.pop("flag_values")) == [0, 1] and attrs.pop("flag_meanings")
            assert attrs == {"units": st.units, "long_name": st.long_name}
        assert ds.response_ci95_ms.attrs["long_name"] == S.OUTPUTS[0].ci
        # a normalisation really applied: the rate is I/Os over the interval in s
        np.testing.assert_allclose(ds.throughput_iops, ds.ios_measured / ds.sim_time_s)
