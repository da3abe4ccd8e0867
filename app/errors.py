"""The error a feature raises for input it refuses, carrying the field it names.

The web layer turns it into a 422 (app.web.errors), so no caller parses a message to find the
field. `code` is a stable name for pages and clients; `message` is for people.
"""


class FieldError(ValueError):
    def __init__(self, field: str, message: str, code: str = "invalid") -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message, self.code = field, message, code
