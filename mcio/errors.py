"""The one exception type users see: it names the field, the value and what is allowed."""


class McioError(ValueError):
    """A bad input: ``field``, ``value`` and ``allowed`` say what and why.

    It pickles (a Dask worker raises it and the client re-raises the same error)."""

    def __init__(self, field: str, value, allowed: str):
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field} = {value!r}: {allowed}")

    def __reduce__(self):
        return (type(self), (self.field, self.value, self.allowed))


class McioWarning(UserWarning):
    """Something the user should know that does not stop the run (a long run ahead, damaged parts
    recomputed on resume). The CLI prints it as one ``mcio: warning: ...`` line."""
