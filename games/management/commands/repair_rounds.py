from __future__ import annotations

from django.core.management.base import BaseCommand

from games.display import format_chips
from games.services import repair


class Command(BaseCommand):
    help = (
        "List rounds left in an impossible state; with --refund, void them and refund "
        "what they took, exactly once, recording why."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--refund", action="store_true", help="void and refund the rounds found"
        )

    def handle(self, *args, **options) -> None:
        problems = repair.find_problems()
        if not problems:
            self.stdout.write("no rounds in an impossible state")
            return
        for problem in problems:
            line = (
                f"round {problem.round_id} ({problem.player}): {problem.reason}; "
                f"ledger moved {format_chips(problem.ledger_net)} chips"
            )
            if options["refund"]:
                done = repair.refund(problem)
                line += " -> voided and refunded" if done else " -> already handled"
            self.stdout.write(line)
