"""The one exception type users see: it names the field, the value and what is allowed."""


class McioError(ValueError):
    """A bad input: ``field``, ``value`` and ``allowed`` say what and why."""

    def __init__(self, field: str, value, allowed: str):
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field} = {value!r}: {allowed}")
