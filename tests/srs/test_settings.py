"""Review settings refuse bad values with a typed error that names the field."""

import pytest

from app.errors import FieldError
from app.srs import settings


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"timezone": "Mars/Olympus"}, "timezone", "unknown time zone 'Mars/Olympus'"),
        (
            {"timezone": "x" * 65},
            "timezone",
            "unknown time zone (names have at most 64 characters)",
        ),
        ({"new_per_day": 501}, "new_per_day", "must be between 0 and 500"),
        ({"desired_retention": True}, "desired_retention", "must be a number"),
        ({"colour": "blue"}, "colour", "not a review setting"),
    ],
)
def test_a_refused_setting_names_its_field(
    changes: dict[str, object], field: str, message: str
) -> None:
    with pytest.raises(settings.SettingRejected) as refused:
        settings.validate(changes)
    assert isinstance(refused.value, FieldError)
    assert (refused.value.field, refused.value.message) == (field, message)
    # The export document's validator and the command line show the error as text.
    assert str(refused.value) == f"{field}: {message}"


def test_good_settings_pass_unchanged() -> None:
    changes: dict[str, object] = {"desired_retention": 0.9, "timezone": "Europe/Paris"}
    assert settings.validate(changes) == changes
