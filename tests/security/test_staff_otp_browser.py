"""A staff member sets up their authenticator app in a real Chromium: the QR
code shows (an inline SVG, under the Content Security Policy), the key
typed into an app gives a code the site takes, and the console opens."""

from __future__ import annotations

import time
from base64 import b32decode

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


def test_a_staff_member_enrolls_from_the_qr_page_and_reaches_the_console(page: Page, live_url, orm):
    page.add_init_script(RECORD_VIOLATIONS)
    username = f"enrol{int(time.time() * 1000) % 1_000_000}"
    user = get_user_model().objects.create_user(username, is_staff=True)
    # Past the password step: a session made here (the server hashes with
    # Argon2, the test process with MD5, so no password works across both).
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "url": live_url}]
    )
    page.goto(f"{live_url}/accounts/staff/enroll/?next=/admin/")

    qr = page.get_by_test_id("otp-qr").locator("svg")
    expect(qr).to_be_visible()
    box = qr.bounding_box()
    assert box is not None and box["width"] >= 150 and box["height"] >= 150  # scannable
    key = b32decode(page.get_by_test_id("otp-key").inner_text().replace(" ", ""))
    page.get_by_test_id("otp-code").fill(f"{totp(key):06d}")
    page.get_by_role("button", name="Confirm").click()

    page.wait_for_url(f"{live_url}/admin/")
    expect(page.locator("#site-name")).to_be_visible()
    assert TOTPDevice.objects.get(user=user).confirmed
    assert page.evaluate("window.__cspViolations") == []
