"""Accounts and roles in the operator console, with least privilege.

Django's stock user and group pages let anyone holding ``auth.change_user``
make themselves a superuser. They are replaced here, and every save goes
through ``games.services.staff``, which decides and audits:

* a superuser changes any account: username, staff and superuser status,
  roles (groups) and single permissions, besides what follows;
* other staff holding ``auth.change_user`` change players only: the active
  flag (with a reason), e-mail, names and a new password. Staff and superuser
  accounts are shown to them read-only, and what they may not change is
  shown, never offered as a field; a field posted anyway is not read, and
  the service refuses the change if it were;
* staff holding ``auth.add_user`` add players; only a superuser makes one
  staff afterwards;
* accounts are never deleted (rounds and the ledger point at them):
  deactivate instead;
* roles (groups) are changed by superusers only, since a role's permissions
  are all its members'.

No page shows a password hash or its summary: a password is only "enabled"
or "disabled", with a link to set a new one.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import AdminForm
from django.contrib.admin.options import IS_POPUP_VAR
from django.contrib.admin.utils import unquote
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth.forms import AdminPasswordChangeForm, SetUnusablePasswordMixin
from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.debug import sensitive_post_parameters

from games.errors import GameError
from games.services import staff

# Importing django.contrib.auth.admin above registered the stock pages: take them back.
for model in (User, Group):
    if admin.site.is_registered(model):
        admin.site.unregister(model)


def _actor(request: HttpRequest) -> User:
    # The admin lets only active staff this far.
    return cast(User, request.user)


class AccountChangeForm(forms.ModelForm):
    """The fields the admin shows as editable for this operator and account
    (``get_readonly_fields``), plus the reason the audit log records. Checks
    the change with the service, so a refusal reads beside the form."""

    actor: User  # set per request by ``AccountAdmin.get_form``

    reason = forms.CharField(
        label=_("Reason"),
        required=False,
        max_length=255,
        help_text=_("The audit log records it. Required to deactivate or reactivate the account."),
    )

    class Meta:
        model = User
        fields: tuple[str, ...] = ()  # the admin passes the fields it shows

    def account_changes(self) -> dict[str, Any]:
        return {
            name: self.cleaned_data[name]
            for name in self.changed_data
            if name in staff.ACCOUNT_FIELDS and name in self.cleaned_data
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk is not None and not self.errors:
            stored = User.objects.get(pk=self.instance.pk)
            try:
                staff.check_account_change(
                    actor=self.actor,
                    account=stored,
                    changes=self.account_changes(),
                    reason=data.get("reason", ""),
                )
            except GameError as exc:
                raise ValidationError(exc.message, code=exc.code) from exc
        return data


class NewPasswordForm(AdminPasswordChangeForm):
    # Django builds this help text by adding a string to a lazy one, which
    # freezes it in the language active at import (Japanese, the default),
    # whatever the operator reads: kept lazy here.
    usable_password_help_text = format_lazy(  # type: ignore[assignment]  # lazy on purpose
        '{}<ul id="id_unusable_warning" class="messagelist"><li class="warning">{}</li></ul>',
        SetUnusablePasswordMixin.usable_password_help_text,
        _("If disabled, the current password for this user will be lost."),
    )


@admin.register(User)
class AccountAdmin(auth_admin.UserAdmin):
    form = AccountChangeForm
    list_display = ("username", "email", "first_name", "last_name", "active_state", "staff_state")
    list_filter = ("is_staff", "is_superuser", "is_active", "groups")
    readonly_fields = ("last_login", "date_joined")

    # In words: the admin's boolean icons carry an English alt text.
    @admin.display(description=_("active"), ordering="is_active")
    def active_state(self, obj: User) -> str:
        return gettext("yes") if obj.is_active else gettext("no")

    @admin.display(description=_("staff status"), ordering="is_staff")
    def staff_state(self, obj: User) -> str:
        return gettext("yes") if obj.is_staff else gettext("no")

    def has_change_permission(self, request: HttpRequest, obj: User | None = None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or staff.may_change(actor=_actor(request), account=obj)

    def has_delete_permission(self, request: HttpRequest, obj: User | None = None) -> bool:
        return False  # rounds and the ledger point at accounts: deactivate instead

    def get_fieldsets(self, request: HttpRequest, obj: User | None = None):
        if obj is None:
            return self.add_fieldsets
        fieldsets: list[Any] = [
            (None, {"fields": ("username", self._password_field(request, obj))}),
            (_("Personal info"), {"fields": ("first_name", "last_name", "email")}),
            (
                _("Permissions"),
                {
                    "fields": (
                        "is_active",
                        "is_staff",
                        "is_superuser",
                        "groups",
                        "user_permissions",
                    )
                },
            ),
            (_("Important dates"), {"fields": ("last_login", "date_joined")}),
        ]
        if staff.editable_fields(actor=_actor(request), account=obj):
            fieldsets.insert(3, (None, {"fields": ("reason",)}))
        return fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: User | None = None):
        if obj is None:
            return ()
        editable = staff.editable_fields(actor=_actor(request), account=obj)
        shown_only = tuple(name for name in staff.ACCOUNT_FIELDS if name not in editable)
        return (*self.readonly_fields, self._password_field(request, obj), *shown_only)

    def get_form(
        self, request: HttpRequest, obj: User | None = None, change: bool = False, **kwargs
    ):
        form = super().get_form(request, obj, change=change, **kwargs)
        return type(form.__name__, (form,), {"actor": _actor(request)})

    def save_model(self, request: HttpRequest, obj: User, form, change: bool) -> None:
        try:
            if change:
                staff.change_account(
                    actor=_actor(request),
                    account=obj,
                    changes=form.account_changes(),
                    reason=form.cleaned_data.get("reason", ""),
                )
            else:
                staff.create_account(actor=_actor(request), account=obj)
        except GameError as exc:  # changed meanwhile: the form's own check had passed
            raise PermissionDenied(exc.message) from exc

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        # The service saved roles and permissions with the account (and audited them).
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def _password_field(self, request: HttpRequest, obj: User) -> str:
        # A display gets only the object: who is looking picks which one shows.
        may_reset = self.has_change_permission(request, obj)
        return "password_and_reset" if may_reset else "password_state"

    @admin.display(description=_("Password"))
    def password_state(self, obj: User) -> str:
        state = gettext("Enabled") if obj.has_usable_password() else gettext("Disabled")
        return f"{gettext('Password-based authentication')}: {state}"

    @admin.display(description=_("Password"))
    def password_and_reset(self, obj: User) -> SafeString:
        url = reverse(f"{self.admin_site.name}:auth_user_password_change", args=[obj.pk])
        label = gettext("Reset password") if obj.has_usable_password() else gettext("Set password")
        return format_html('{} · <a href="{}">{}</a>', self.password_state(obj), url, label)

    @method_decorator(sensitive_post_parameters())
    def user_change_password(
        self, request: HttpRequest, id: str, form_url: str = ""
    ) -> HttpResponse:
        """Set a new password (or turn password login off) through the
        service: the stock view saves the form itself, unaudited."""
        account = self.get_object(request, unquote(id))
        if account is None:
            raise Http404
        if not self.has_change_permission(request, account):
            raise PermissionDenied
        form = NewPasswordForm(account, request.POST or None)
        if request.method == "POST" and form.is_valid():
            usable = form.cleaned_data["set_usable_password"]
            if not usable and "unset-password" not in request.POST:
                messages.error(
                    request, gettext("Conflicting form data submitted. Please try again.")
                )
                return HttpResponseRedirect(request.get_full_path())
            try:
                saved = staff.reset_password(
                    actor=_actor(request),
                    account=account,
                    password=form.cleaned_data["password1"] if usable else None,
                )
            except GameError as exc:
                form.add_error(None, exc.message)
            else:
                if saved.pk == request.user.pk:
                    update_session_auth_hash(request, saved)  # keep this page's session
                messages.success(
                    request,
                    gettext("Password changed successfully.")
                    if usable
                    else gettext("Password-based authentication was disabled."),
                )
                return HttpResponseRedirect(
                    reverse(f"{self.admin_site.name}:auth_user_change", args=[account.pk])
                )
        title = _("Change password: %s") if account.has_usable_password() else _("Set password: %s")
        context = {
            **self.admin_site.each_context(request),
            "title": title % account.get_username(),
            # AdminForm is typed for model forms; it only lays out this one's fields.
            "adminForm": AdminForm(
                form,  # type: ignore[arg-type]
                [(None, {"fields": list(form.base_fields)})],
                {},
            ),
            "form_url": form_url,
            "form": form,
            "is_popup": IS_POPUP_VAR in request.POST or IS_POPUP_VAR in request.GET,
            "is_popup_var": IS_POPUP_VAR,
            "add": True,
            "change": False,
            "has_delete_permission": False,
            "has_change_permission": True,
            "has_absolute_url": False,
            "opts": self.opts,
            "original": account,
            "save_as": False,
            "show_save": True,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/auth/user/change_password.html", context)


@admin.register(Group)
class RoleAdmin(auth_admin.GroupAdmin):
    """Roles: superusers change them (audited); other staff may only look."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _actor(request).is_superuser

    def has_change_permission(self, request: HttpRequest, obj: Group | None = None) -> bool:
        return _actor(request).is_superuser

    def has_delete_permission(self, request: HttpRequest, obj: Group | None = None) -> bool:
        return False  # taking a role from its members is a change to each: edit it instead

    def save_model(self, request: HttpRequest, obj: Group, form, change: bool) -> None:
        try:
            staff.save_role(
                actor=_actor(request), group=obj, permissions=form.cleaned_data["permissions"]
            )
        except GameError as exc:
            raise PermissionDenied(exc.message) from exc

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        for formset in formsets:  # save_role saved the permissions
            self.save_formset(request, form, formset, change=change)
