"""``{% card %}``: one card drawn from its code by templates/games/card.html,
named for screen readers in the page's language."""

from __future__ import annotations

from django.template import engines
from django.utils import translation


def render(source: str, **context) -> str:
    return engines["django"].from_string("{% load cards %}" + source).render(context)


def test_it_draws_a_court_card_with_its_figure_panel_and_two_indexes():
    html = render('{% card "KH" %}')
    assert 'data-card="KH"' in html and 'data-rank="K"' in html
    assert 'class="playing-card red"' in html
    assert html.count("pc-corner") == 2
    assert 'class="pc-court"' in html and "pc-pips" not in html
    assert 'aria-label="King of hearts"' in html
    # Lying face up, it has no back behind its face.
    assert "pc-back" not in html


def test_a_card_being_dealt_has_a_back_to_turn_over_from():
    html = render('{% card "10S" dealt=True %}')
    assert 'data-card="TS"' in html and 'data-rank="10"' in html
    assert "dealt" in html and "pc-back" in html


def test_a_mini_card_is_marked_for_the_small_drawing():
    assert 'class="playing-card mini"' in render('{% card "AS" mini=True %}')


def test_it_names_the_card_in_japanese_on_a_japanese_page():
    with translation.override("ja"):
        html = render('{% card "QD" %}')
    assert 'aria-label="ダイヤのクイーン"' in html


def test_a_code_that_is_no_card_draws_nothing():
    # A stored round's cards come from the database: a tampered one must not
    # reach the page, as markup or as text.
    for code in ("", "ZZ", "<script>alert(1)</script>", "1H", "KX"):
        assert render("{% card code %}", code=code) == ""
