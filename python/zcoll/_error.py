"""zcoll.ZcollError: a failure reported by the C library."""


class ZcollError(RuntimeError):
    """A zcoll library call failed.

    Attributes: ``status`` (the ``zcoll_status`` code, an int), ``status_name``
    (its fixed text, ``zcoll_status_string``), ``message`` (the library's
    detailed message, ``zcoll_last_error``) and ``operation`` (the Python call).
    """

    def __init__(self, status, status_name, message, operation=""):
        self.status = int(status)
        self.status_name = status_name
        self.message = message
        self.operation = operation
        text = f"{operation}: " if operation else ""
        text += f"{status_name} (status {self.status})"
        if message:
            text += f": {message}"
        super().__init__(text)

    def __reduce__(self):
        return (type(self), (self.status, self.status_name, self.message, self.operation))
