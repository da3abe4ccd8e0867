"""Text a user sends: one check for every text field of the API and the forms.

Two characters that JSON and URL encoding carry happily break the databases: U+0000 (NUL),
which PostgreSQL's text type cannot store ("PostgreSQL text fields cannot contain NUL"), and
a lone UTF-16 surrogate (JSON's "\\udc00"), which is not Unicode text at all and which SQLite's
driver cannot encode. Both are refused here with a 422 naming the field, before any handler
runs, instead of a 500 from the database driver.
"""

from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError


def clean_text(value: str) -> str:
    """`value` unchanged, or a validation error saying which character cannot be stored."""
    if "\x00" in value:
        raise PydanticCustomError("text_nul", "Text cannot contain the NUL character (U+0000).")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise PydanticCustomError(
            "text_surrogate",
            "Text cannot contain a lone surrogate (such as \\udc00): it is not valid Unicode.",
        ) from None
    return value


#: The check, for a form field after its `Form(max_length=…)`: Annotated[str, Form(…), CLEAN]
#: (so that the length is checked on the text, with the usual message, before this runs).
CLEAN = AfterValidator(clean_text)
#: A `str` that every database can store; use it for every text a user sends.
CleanText = Annotated[str, CLEAN]
