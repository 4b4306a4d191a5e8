"""What the tests post back to an admin form, as a browser would."""

from __future__ import annotations

from django import forms


def admin_form_data(client, url: str) -> dict[str, object]:
    """What the browser would post back unchanged from the admin form at
    ``url``: the editable fields the page shows, nothing more."""
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    data: dict[str, object] = {}
    for fieldset in response.context["adminform"]:
        for line in fieldset:
            for admin_field in line:
                if admin_field.is_readonly:
                    continue
                bound = admin_field.field
                value = bound.value()
                if isinstance(bound.field, forms.BooleanField):
                    if value:
                        data[bound.name] = "on"
                elif value is not None:
                    data[bound.name] = value
    return data
