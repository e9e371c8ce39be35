"""Values made once from objects that do not change, kept by the objects' identity.

A sweep's points are models that share every section no sweep axis changes (``Model.replace``
copies only the section it changes), so what is made from those sections alone (device weights,
mean demands, the event kernel's device arrays, a model's physical bounds) can be made once and
shared. The objects are held while their value is kept, so no other object can take their ids;
only the ``kept`` newest values are kept (a million devices' arrays are tens of MB)."""
from __future__ import annotations

import threading
from typing import Any, Callable


class IdentityCache:
    """At most ``kept`` values, each made once for a tuple of objects (by identity) and a tag;
    the oldest goes first. The values are shared: callers copy what they hand out to others."""

    def __init__(self, kept: int):
        self.kept = int(kept)
        self._values: dict = {}
        self._lock = threading.Lock()

    def get(self, objects: tuple, make: Callable[[], Any], tag: Any = None) -> Any:
        """The value for ``objects`` (and ``tag``): ``make()`` the first time."""
        key = (tag, *map(id, objects))
        got = self._values.get(key)
        if got is not None and all(a is b for a, b in zip(got[0], objects)):
            return got[1]
        value = make()
        with self._lock:
            while len(self._values) >= self.kept:
                self._values.pop(next(iter(self._values)))      # (the oldest)
            self._values[key] = (objects, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def __len__(self) -> int:
        return len(self._values)


__all__ = ["IdentityCache"]
