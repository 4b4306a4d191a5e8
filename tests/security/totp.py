"""Authenticator-app codes for the staff tests, computed as the app would
from a device's key (django_otp.oath.totp), never patched in."""

from __future__ import annotations

from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice


def enrolled(user, *, confirmed: bool = True) -> TOTPDevice:
    """A TOTP device of ``user``'s (a fresh random key)."""
    return TOTPDevice.objects.create(user=user, name="authenticator", confirmed=confirmed)


def code_now(device: TOTPDevice) -> str:
    """The code the app shows right now."""
    device.refresh_from_db()
    return f"{totp(device.bin_key, device.step, device.t0, device.digits, device.drift):06d}"


def wrong_code(device: TOTPDevice) -> str:
    """Six digits that none of the steps around now accept."""
    device.refresh_from_db()
    near = {
        totp(device.bin_key, device.step, device.t0, device.digits, device.drift + offset)
        for offset in range(-2, 3)
    }
    return next(f"{n:06d}" for n in range(10) if n not in near)
