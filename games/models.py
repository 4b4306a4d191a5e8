"""The casino's stored state: wallets and their ledger, tables and their
versioned paytables, rounds, players' settings and the operators' audit log.

Every amount is an integer number of minor units: 1 chip = 100 units.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from games.display import UNITS_PER_CHIP as UNITS_PER_CHIP  # re-exported
from games.display import format_chips
from games.presets import BACCARAT_AREAS, WAR_AREAS
from games.sealing import SealedSeedField


class Game(models.TextChoices):
    BACCARAT = "baccarat", _("Baccarat")
    WAR = "war", _("Casino War")


class Wallet(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="wallet",
        verbose_name=_("player"),
    )
    balance = models.BigIntegerField(_("balance (units)"), default=0)
    last_topup_on = models.DateField(_("last daily top-up"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("wallet")
        verbose_name_plural = _("wallets")
        constraints = [
            models.CheckConstraint(condition=Q(balance__gte=0), name="wallet_balance_non_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({format_chips(self.balance)})"


class AppendOnlyError(Exception):
    """Raised when code tries to change or delete a row written once."""


class AppendOnly(models.Model):
    """Rows written once (the ledger, players' breaks): saving an existing
    row or deleting any is refused with the model's own words."""

    changed = "Ledger rows are append-only."
    ended = "Ledger rows are append-only."

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise AppendOnlyError(self.changed)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError(self.ended)


class LedgerEntry(AppendOnly):
    class Kind(models.TextChoices):
        GRANT = "grant", _("Starting grant")
        TOPUP = "topup", _("Daily top-up")
        BET = "bet", _("Bet")
        PAYOUT = "payout", _("Payout")
        REFUND = "refund", _("Refund")
        ADJUSTMENT = "adjustment", _("Adjustment")

    wallet = models.ForeignKey(
        Wallet, on_delete=models.PROTECT, related_name="entries", verbose_name=_("wallet")
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    amount = models.BigIntegerField(
        _("amount (units)"), help_text=_("Signed: debits are negative.")
    )
    balance_after = models.BigIntegerField(_("balance after (units)"))
    round = models.ForeignKey(
        "Round",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_entries",
        verbose_name=_("round"),
    )
    reason = models.CharField(_("reason"), max_length=255, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("made by"),
        help_text=_("Who made the change: the operator for adjustments."),
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        ordering = ["-id"]
        indexes = [models.Index(fields=["wallet", "id"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(balance_after__gte=0), name="ledger_balance_after_non_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.amount:+d}"


class Table(models.Model):
    """A table's live configuration. Saving it through the service layer
    snapshots the paytable and limits into a new TableVersion; rounds point at
    the version they were played under."""

    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    name = models.CharField(_("name"), max_length=80)
    # The name Japanese pages show; blank: they show ``name``.
    name_ja = models.CharField(
        _("Japanese name"),
        max_length=80,
        blank=True,
        help_text=_("Shown on Japanese pages; left blank, they show the name above."),
    )
    slug = models.SlugField(_("slug"), unique=True)
    enabled = models.BooleanField(_("open"), default=True)
    position = models.PositiveSmallIntegerField(_("lobby position"), default=0)
    decks = models.PositiveSmallIntegerField(_("decks"), default=8)
    chips = models.JSONField(_("chip values (chips)"), default=list)
    limits = models.JSONField(
        _("limits per area (units)"),
        default=dict,
        help_text=_('{"player": {"min": 100, "max": 100000}, ...}'),
    )
    max_bet = models.BigIntegerField(_("MAX BET per round (units)"), default=0)
    pays = models.JSONField(_("paytable (total-return multipliers)"), default=dict)
    squeeze_threshold = models.BigIntegerField(_("squeeze threshold (units)"), default=0)
    decision_timeout = models.PositiveIntegerField(_("war decision timeout (seconds)"), default=30)
    # A live table deals one shoe to every player on the server's clock
    # (games/services/live.py); the others deal each player's own round.
    live = models.BooleanField(
        _("live (one shoe for every player)"),
        default=False,
        help_text=_("Baccarat only: coups dealt from one shoe on a clock, to every player."),
    )
    betting_seconds = models.PositiveSmallIntegerField(
        _("betting time (seconds)"),
        default=15,
        validators=[MinValueValidator(5), MaxValueValidator(120)],
        help_text=_("Live tables: how long each coup takes bets."),
    )
    squeeze_seconds = models.PositiveSmallIntegerField(
        _("squeeze time (seconds)"),
        default=8,
        validators=[MinValueValidator(3), MaxValueValidator(60)],
        help_text=_(
            "Live tables: how long the largest stake has to peel each squeezed card"
            " before it opens by itself."
        ),
    )
    current_version = models.ForeignKey(
        "TableVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("current version"),
    )

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(decks__gte=1) & Q(decks__lte=8), name="table_decks_1_to_8"
            ),
        ]

    def __str__(self) -> str:
        return self.local_name

    def get_absolute_url(self) -> str:
        return reverse(f"{self.game}_table", args=[self.slug])

    @property
    def local_name(self) -> str:
        """The name in the language of the page being drawn."""
        if self.name_ja and (get_language() or "").startswith("ja"):
            return self.name_ja
        return self.name


class TableVersion(models.Model):
    """An immutable snapshot of a table's paytable and limits."""

    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, related_name="versions", verbose_name=_("table")
    )
    number = models.PositiveIntegerField(_("version"))
    decks = models.PositiveSmallIntegerField(_("decks"))
    pays = models.JSONField(_("paytable"))
    limits = models.JSONField(_("limits"))
    max_bet = models.BigIntegerField(_("MAX BET"))
    squeeze_threshold = models.BigIntegerField(_("squeeze threshold"), default=0)
    decision_timeout = models.PositiveIntegerField(_("decision timeout"), default=30)
    betting_seconds = models.PositiveSmallIntegerField(_("betting time"), default=15)
    squeeze_seconds = models.PositiveSmallIntegerField(_("squeeze time"), default=8)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("by"),
    )

    class Meta:
        verbose_name = _("paytable version")
        verbose_name_plural = _("paytable versions")
        ordering = ["table", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="table_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.table} v{self.number}"


class Round(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for a decision")
        SETTLED = "settled", _("Settled")
        VOID = "void", _("Void (refunded)")

    class Outcome(models.TextChoices):
        WIN = "win", _("Win")
        LOSE = "lose", _("Lose")
        PUSH = "push", _("Push")

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="rounds",
        verbose_name=_("player"),
    )
    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, related_name="rounds", verbose_name=_("table")
    )
    version = models.ForeignKey(
        TableVersion,
        on_delete=models.PROTECT,
        related_name="rounds",
        verbose_name=_("paytable version"),
    )
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.SETTLED
    )
    # Per player and table, 1-based: orders the roads and numbers the rounds.
    seq = models.PositiveIntegerField(_("round number"))
    slip_key = models.CharField(_("slip key"), max_length=64)

    # Sealed at rest (games/sealing.py); shown only once the round is over.
    server_seed = SealedSeedField(_("server seed"))
    server_seed_hash = models.CharField(_("server seed hash"), max_length=64)
    client_seed = models.CharField(_("client seed"), max_length=64)
    nonce = models.PositiveBigIntegerField(_("nonce"))

    bets = models.JSONField(_("bets (units)"), default=dict)
    returns = models.JSONField(_("returns (units)"), default=dict)
    total_bet = models.BigIntegerField(_("total bet"), default=0)
    total_return = models.BigIntegerField(_("total returned"), default=0)
    balance_before = models.BigIntegerField(_("balance before"))
    balance_after = models.BigIntegerField(_("balance after"), null=True, blank=True)
    outcome = models.CharField(_("result"), max_length=8, choices=Outcome.choices, blank=True)

    cards = models.JSONField(_("cards in deal order"), default=list)
    detail = models.JSONField(_("game detail"), default=dict)
    winner = models.CharField(_("winner"), max_length=16, blank=True)
    player_pair = models.BooleanField(_("PLAYER PAIR"), default=False)
    banker_pair = models.BooleanField(_("BANKER PAIR"), default=False)

    # The round pipeline's clock (``place_round``'s ``now``): the day it is kept under.
    created_at = models.DateTimeField(_("time"), default=timezone.now, db_index=True)
    settled_at = models.DateTimeField(_("settled"), null=True, blank=True)
    decision_deadline = models.DateTimeField(_("decision deadline"), null=True, blank=True)
    void_reason = models.CharField(_("void reason"), max_length=255, blank=True)
    # A live table's bet: the coup it waits for (open until the coup is dealt).
    coup = models.ForeignKey(
        "Coup",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="rounds",
        verbose_name=_("coup"),
    )

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "slip_key"], name="round_slip_once"),
            models.UniqueConstraint(fields=["player", "table", "seq"], name="round_seq_unique"),
            # One slip per player on a live table's coup.
            models.UniqueConstraint(
                fields=["player", "coup"], condition=Q(coup__isnull=False), name="round_coup_once"
            ),
        ]
        indexes = [
            models.Index(fields=["player", "-id"], name="round_player_recent"),
            models.Index(fields=["player", "game", "-id"], name="round_player_game_recent"),
            models.Index(fields=["player", "table", "-seq"], name="round_player_table_seq"),
            models.Index(fields=["status"], name="round_status"),
            # The player's round waiting for a decision at a table, found at
            # every round without walking the player's history there.
            models.Index(
                fields=["player", "table"],
                condition=Q(status="open"),
                name="round_player_table_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} #{self.pk}"

    @property
    def net(self) -> int:
        return self.total_return - self.total_bet


class Shoe(models.Model):
    """A live table's shoe: its seed committed (and logged) before its first
    coup takes a bet, the players' seeds that fix its order, and how far it
    is dealt (games/baccarat/live.py; docs/fairness.md, Live tables)."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    number = models.PositiveIntegerField(_("shoe"))
    decks = models.PositiveSmallIntegerField(_("decks"))
    # Sealed at rest; published with the shoe's document once it has ended.
    server_seed = SealedSeedField(_("server seed"))
    commitment = models.CharField(_("commitment"), max_length=64)
    # "pseudonym:sha256" of each seed committed with a bet on the first coup,
    # fixed when its betting closed; "pseudonym:seed" of each seed revealed.
    commitments = models.JSONField(_("players' commitments"), default=list)
    contributions = models.JSONField(_("players' seeds"), default=list)
    entropy = models.CharField(_("entropy"), max_length=64, blank=True)
    position = models.PositiveSmallIntegerField(_("next card"), default=0)
    created_at = models.DateTimeField(_("started"), default=timezone.now)
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)

    class Meta:
        verbose_name = _("shoe")
        verbose_name_plural = _("shoes")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="shoe_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.table.slug} shoe {self.number}"


class ShoeSeed(models.Model):
    """A player's part of a new shoe's shuffle: the SHA-256 of a secret seed
    their browser committed with a bet on the shoe's first coup, and the
    seed once revealed after that coup's betting closed (games/baccarat/live.py)."""

    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="seeds")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="shoe_seeds"
    )
    commitment = models.CharField(_("commitment"), max_length=64)
    seed = models.CharField(_("seed"), max_length=64, blank=True)
    revealed_at = models.DateTimeField(_("revealed"), null=True, blank=True)

    class Meta:
        verbose_name = _("player's shoe seed")
        verbose_name_plural = _("players' shoe seeds")
        constraints = [
            models.UniqueConstraint(fields=["shoe", "player"], name="shoe_seed_once"),
        ]

    def __str__(self) -> str:
        return f"{self.shoe} seed of {self.player_id}"


class Coup(models.Model):
    """One coup of a live table: its betting window on the server's clock,
    then the cards the shoe gave it."""

    class Status(models.TextChoices):
        BETTING = "betting", _("Taking bets")
        REVEALING = "revealing", _("Players revealing their seeds")
        # Dealt, its cards peeled by the largest stakes: not settled yet
        # (games/services/live_squeeze.py).
        SQUEEZING = "squeezing", _("Squeezing")
        DEALT = "dealt", _("Dealt")
        VOID = "void", _("Void (refunded)")

    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="coups")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="coups")
    number = models.PositiveIntegerField(_("coup"))
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.BETTING
    )
    opens_at = models.DateTimeField(_("bets open"))
    closes_at = models.DateTimeField(_("bets close"))
    dealt_at = models.DateTimeField(_("dealt"), null=True, blank=True)
    void_reason = models.CharField(_("void reason"), max_length=255, blank=True)
    start = models.PositiveSmallIntegerField(_("first card"), null=True, blank=True)
    cards = models.JSONField(_("cards in deal order"), default=list)
    detail = models.JSONField(_("game detail"), default=dict)
    winner = models.CharField(_("winner"), max_length=16, blank=True)
    player_pair = models.BooleanField(_("PLAYER PAIR"), default=False)
    banker_pair = models.BooleanField(_("BANKER PAIR"), default=False)
    # The live squeeze (games/services/live_squeeze.py): who peels which
    # side, how many cards are open, and when the card being peeled opens by
    # itself.
    squeeze = models.JSONField(_("squeeze"), default=dict, blank=True)
    peel_until = models.DateTimeField(_("card opens by itself"), null=True, blank=True)

    class Meta:
        verbose_name = _("coup")
        verbose_name_plural = _("coups")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["shoe", "number"], name="coup_number_unique"),
        ]
        indexes = [models.Index(fields=["table", "-id"], name="coup_table_recent")]

    def __str__(self) -> str:
        return f"{self.shoe} coup {self.number}"


class Profile(models.Model):
    """A player's provably-fair state, settings and personal limit."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="profile",
        verbose_name=_("player"),
    )
    client_seed = models.CharField(_("client seed"), max_length=64)
    # Sealed at rest: it decides the player's next cards (games/sealing.py).
    next_server_seed = SealedSeedField()
    nonce = models.PositiveBigIntegerField(_("nonce"), default=0)

    sound = models.BooleanField(_("sound"), default=True)
    effects = models.BooleanField(_("effects"), default=True)
    music = models.BooleanField(_("background music"), default=False)
    history_panel = models.BooleanField(_("history panel"), default=True)
    fast_play = models.BooleanField(_("fast play"), default=False)
    # The table's volume slider (0-100); muting is ``sound``, so the level survives a mute.
    volume = models.PositiveSmallIntegerField(
        _("volume"), default=70, validators=[MaxValueValidator(100)]
    )

    personal_max_bet = models.BigIntegerField(_("personal max bet (units)"), null=True, blank=True)
    pin_hash = models.CharField(_("PIN (hashed)"), max_length=128, blank=True)
    max_bet_changed_at = models.DateTimeField(_("max bet changed"), null=True, blank=True)
    pin_failures = models.PositiveSmallIntegerField(_("wrong PINs"), default=0)
    pin_locked_until = models.DateTimeField(_("PIN locked until"), null=True, blank=True)
    # A visitor's demo account (games/services/demo.py): demo chips, kept out
    # of every real figure, deleted a day after its last use.
    demo = models.BooleanField(_("demo account"), default=False, db_index=True)

    # Play safe (games/services/play_safe.py). The zone the player's days,
    # weeks and months start in: the browser's at sign-up, changeable on
    # the play-safe page.
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    # Set once the player has ever set a loss limit, so a round of a player
    # without one reads no limit rows.
    loss_limits_set = models.BooleanField(default=False)
    reality_check_minutes = models.PositiveSmallIntegerField(
        _("reality check (minutes)"), default=0
    )
    session_started_at = models.DateTimeField(_("session started"), null=True, blank=True)
    # The next round after this waits for the player's answer to a reality check.
    reality_due_at = models.DateTimeField(null=True, blank=True)
    # The end of the longest time-out or self-exclusion taken (PlayBreak);
    # a copy so the bet check reads it with the locked profile.
    break_until = models.DateTimeField(_("on a break until"), null=True, blank=True)
    # Returns less stakes of the rounds since ``session_started_at``, kept by
    # each round's own transaction (games/services/rollups.py).
    session_net = models.BigIntegerField(_("session net (units)"), default=0)

    class Meta:
        verbose_name = _("player profile")
        verbose_name_plural = _("player profiles")

    def __str__(self) -> str:
        return str(self.user)


class PlayerDay(models.Model):
    """A player's rounds of one day in their own time zone, one row per game
    and result: kept by each round's own transaction
    (games/services/rollups.py), so a loss limit's period, the session, the
    statement and the history's totals are read from at most a month of
    days of these rows, never from the rounds."""

    class Result(models.TextChoices):
        WIN = "win", _("Win")
        LOSE = "lose", _("Lose")
        PUSH = "push", _("Push")
        OPEN = "open", _("Waiting for a decision")
        VOID = "void", _("Void (refunded)")

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    day = models.DateField(_("day"))
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    result = models.CharField(_("result"), max_length=8, choices=Result.choices)
    rounds = models.IntegerField(_("rounds"), default=0)
    # Void rounds' rows hold no money: every bet in them was refunded.
    staked = models.BigIntegerField(_("staked (units)"), default=0)
    returned = models.BigIntegerField(_("returned (units)"), default=0)
    # The antes of War rounds waiting for a decision: the raise they may
    # still stake counts as lost already.
    open_raise = models.BigIntegerField(_("open War raises (units)"), default=0)

    class Meta:
        verbose_name = _("player day")
        verbose_name_plural = _("player days")
        constraints = [
            models.UniqueConstraint(
                fields=["player", "day", "game", "result"], name="player_day_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.day} {self.game} {self.result}"


class TableHour(models.Model):
    """A table's rounds of one UTC hour, per paytable version and player:
    kept by each round's own transaction (games/services/rollups.py), so the
    operator dashboard reads a window of hours, never the rounds. Demo play
    is left out, as from every house figure.

    An hour is a whole UTC hour: the dashboard's days are whole hours of
    them only while the site's zone (``TIME_ZONE``, UTC) is a whole number
    of hours from UTC."""

    # The areas a player stakes on (each game's), whose stakes weigh the
    # theoretical hold: a stake on ``player`` is kept in ``on_player``.
    AREAS: tuple[str, ...] = (*BACCARAT_AREAS, *WAR_AREAS)

    hour = models.DateTimeField(_("hour (UTC)"))
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(TableVersion, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Settled rounds and their money; a void round counts nowhere (refunded).
    rounds = models.IntegerField(_("settled rounds"), default=0)
    staked = models.BigIntegerField(_("staked (units)"), default=0)
    returned = models.BigIntegerField(_("returned (units)"), default=0)
    # Settled rounds and War ties waiting for a decision: the player sat in
    # this hour when it is above 0.
    seated = models.IntegerField(_("rounds sat in"), default=0)
    on_player = models.BigIntegerField(default=0)
    on_banker = models.BigIntegerField(default=0)
    on_tie = models.BigIntegerField(default=0)
    on_player_pair = models.BigIntegerField(default=0)
    on_banker_pair = models.BigIntegerField(default=0)
    on_ante = models.BigIntegerField(default=0)
    on_tie_bet = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = _("table hour")
        verbose_name_plural = _("table hours")
        constraints = [
            # Hour first: the dashboard reads a window of hours, of every table or one.
            models.UniqueConstraint(
                fields=["hour", "table", "version", "player"], name="table_hour_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table_id} v{self.version_id} {self.hour:%Y-%m-%d %H:00} {self.player_id}"


class AuditEntry(models.Model):
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("made by"),
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)
    action = models.CharField(_("action"), max_length=40)
    object_type = models.CharField(_("object type"), max_length=40)
    object_id = models.CharField(_("object id"), max_length=40)
    object_repr = models.CharField(_("object"), max_length=200)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)

    class Meta:
        verbose_name = _("audit log entry")
        verbose_name_plural = _("audit log entries")
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.action} {self.object_repr}"


class LossLimit(models.Model):
    """One setting of a player's loss limit for a period, kept as history.

    The limit in force at a moment is the latest row not cancelled whose
    ``effective_at`` has come; ``amount`` None means no limit. A raise or a
    removal is stored with ``effective_at`` a day after the request: until
    then it is the pending change the player sees.
    """

    class Period(models.TextChoices):
        DAY = "day", _("Daily")
        WEEK = "week", _("Weekly")
        MONTH = "month", _("Monthly")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="loss_limits"
    )
    period = models.CharField(_("period"), max_length=8, choices=Period.choices)
    amount = models.BigIntegerField(_("limit (units)"), null=True, blank=True)
    requested_at = models.DateTimeField(_("requested"))
    effective_at = models.DateTimeField(_("in force from"))
    cancelled_at = models.DateTimeField(_("replaced"), null=True, blank=True)

    class Meta:
        verbose_name = _("loss limit")
        verbose_name_plural = _("loss limits")
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "period", "effective_at"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__isnull=True) | Q(amount__gte=0), name="loss_limit_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.period}"


class PlayBreak(AppendOnly):
    """A time-out or a self-exclusion: append-only, so nobody (the player,
    an operator, a superuser) can shorten or end one; a longer one may be
    taken on top."""

    changed = "A time-out or self-exclusion cannot be changed."
    ended = "A time-out or self-exclusion cannot be ended."

    class Kind(models.TextChoices):
        TIMEOUT = "timeout", _("Time-out")
        EXCLUSION = "exclusion", _("Self-exclusion")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="play_breaks"
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    length = models.CharField(_("length"), max_length=8)
    starts_at = models.DateTimeField(_("since"))
    ends_at = models.DateTimeField(_("until"))
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("time-out or self-exclusion")
        verbose_name_plural = _("time-outs and self-exclusions")
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "ends_at"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="play_break_ends_after_start"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.kind}"


class LimitRefusal(models.Model):
    """A bet refused by a player's own limit or break: the operator's
    report counts them per day."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    code = models.CharField(_("reason"), max_length=16)
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("limit refusal")
        verbose_name_plural = _("limit refusals")
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.user} {self.code}"
