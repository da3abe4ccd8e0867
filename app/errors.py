"""The errors features raise for requests they refuse: one type, three kinds.

A feature raises one of these with the field it names (if any), a message for people and a
stable `code` for pages and clients; the web layer (app.web.errors) turns each kind into its
status in one place, so no caller parses a message to find the field or decide the status.

- FieldError: the input is wrong (422), e.g. a rating of 7.
- ConflictError: the input is fine but not now (409), e.g. grading a question still answered.
- NotFoundError: no such thing, or not yours (404).
- TooLargeError: the input is over a size limit (413).
"""


class DomainError(ValueError):
    #: The HTTP status the web layer answers with; features never read it.
    status = 422

    def __init__(self, field: str | None, message: str, code: str = "invalid") -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field, self.message, self.code = field, message, code


class FieldError(DomainError):
    status = 422

    def __init__(self, field: str, message: str, code: str = "invalid") -> None:
        super().__init__(field, message, code)
        self.field: str = field


class ConflictError(DomainError):
    status = 409

    def __init__(self, message: str, code: str = "conflict", field: str | None = None) -> None:
        super().__init__(field, message, code)


class NotFoundError(DomainError):
    status = 404

    def __init__(self, message: str, code: str = "not_found", field: str | None = None) -> None:
        super().__init__(field, message, code)


class TooLargeError(DomainError):
    status = 413

    def __init__(self, message: str, code: str = "too_large", field: str | None = None) -> None:
        super().__init__(field, message, code)
