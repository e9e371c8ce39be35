"""IdentityCache: a value made once per tuple of objects by identity (an equal but other object
is another key), per tag, at most ``kept`` kept, the oldest dropped first."""
from mcio.idcache import IdentityCache


def test_made_once_per_objects_by_identity_and_tag_and_bounded():
    c = IdentityCache(3)
    made = []

    def make(v):
        return lambda: made.append(v) or v

    a, b = {"x": 1}, {"x": 1}         # equal, not the same
    assert c.get((a,), make("a")) == "a" and c.get((a,), make("again")) == "a"
    assert c.get((b,), make("b")) == "b"
    assert c.get((a,), make("tagged"), tag=2) == "tagged"
    assert made == ["a", "b", "tagged"] and len(c) == 3
    c.get(({},), make("d"))           # a fourth: the oldest (a, no tag) goes
    assert len(c) == 3 and c.get((a,), make("a2")) == "a2"
    c.clear()
    assert len(c) == 0
