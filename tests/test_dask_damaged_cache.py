"""A damaged Numba cache on a Dask worker is recognised there (only the worker's traceback shows
it) and named on the client: one McioError (:class:`mcio.kernelcache.DamagedCache`) with the
worker's cache directories, the command that clears them, the worker and the point; not "a bug
in mcio". Whatever else a task raises is unchanged.

One LocalCluster of one worker process (the task and its error cross real pickles); the damage is
stood for by an error raised from a frame of ``numba/core/caching.py``, as Numba's cache loader
raises it (tests/test_cli_numba_cache.py damages a real cache)."""
import os
import sys

import pytest

from mcio.batch import cluster as C
from mcio.kernelcache import DamagedCache
from mcio.errors import McioError

CACHING = os.path.join("somewhere", "numba", "core", "caching.py")
CACHE_DIR = "/on/the/worker/mcio/kernels/__pycache__"


class _Spec:
    text = 'title = "x"'


def damaged_task(spec_text, p, threads):
    """A task that fails as Numba's loader does on a damaged index (a frame of caching.py with
    ``self._cache_path``)."""
    code = compile("def load(self):\n    raise EOFError('Ran out of input')\n", CACHING, "exec")
    ns: dict = {}
    exec(code, ns)

    class Cache:
        _cache_path = CACHE_DIR
    ns["load"](Cache())


def other_task(spec_text, p, threads):
    raise ZeroDivisionError("not the cache")


def test_guarded_recognises_the_damage_where_it_happens_and_leaves_other_errors():
    with pytest.raises(DamagedCache) as ei:
        C.guarded(damaged_task, "", 0, None)
    assert ei.value.dirs == [CACHE_DIR] and "rm -f" in str(ei.value) and "(on the Dask worker ?)" in str(ei.value)
    with pytest.raises(ZeroDivisionError):
        C.guarded(other_task, "", 0, None)


def test_a_damaged_cache_on_a_worker_is_named_on_the_client():
    distributed = pytest.importorskip("distributed")
    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # (the worker needs not import this test)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        worker = next(iter(client.scheduler_info()["workers"]))
        with pytest.raises(DamagedCache) as ei:
            list(C.Cluster(client).run(_Spec(), [3], damaged_task))
        e = ei.value
        assert isinstance(e, McioError) and e.dirs == [CACHE_DIR]
        text = str(e)
        assert text.startswith("Numba's cache of compiled kernels is damaged (EOFError: Ran out of input) in "
                               + CACHE_DIR), text
        assert f"rm -f {CACHE_DIR}/*.nbi {CACHE_DIR}/*.nbc" in text
        assert f"on the Dask worker {worker}" in text and "sweep point 3" in text, text
        with pytest.raises(ZeroDivisionError):          # anything else: as raised
            list(C.Cluster(client).run(_Spec(), [1], other_task))
    finally:
        client.close()
        cluster.close()
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
