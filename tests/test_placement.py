"""Worked placements: where ``place`` lays each kind of template, its axis and its user, exactly."""

from __future__ import annotations

import pytest

from tabletop.model import At, Base, Direct, Explosion, Impact, Model, PlacedTemplate, Scenario, Table, Template, TemplateShape
from tabletop.placement import PlacementError, line_of_fire, place

BLAST = TemplateShape.circle(76.2)
TEARDROP = TemplateShape.teardrop(203.2, 0.0, 63.5)
CONE = TemplateShape("cone", length=100.0, angle=60.0)

ATTACKER = Model("a", 10.0, 20.0, Base.round(40.0))  # radius 20
TARGET = Model("t", 110.0, 20.0, Base.round(40.0))  # 100 mm east of the attacker
RECT_TARGET = Model("r", 10.0, 120.0, Base("rect", 60.0, 30.0), facing=0.0)  # 100 mm north; 30 mm deep along y
TABLE = Scenario(Table(1200, 1200), (ATTACKER, TARGET, RECT_TARGET))


def laid(placement: object, shape: TemplateShape | None = BLAST, override: TemplateShape | None = None) -> PlacedTemplate:
    return place(Template("x", shape, placement), TABLE, override)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("to", "heading"),
    [((20.0, 20.0), 0.0), ((10.0, 30.0), 90.0), ((0.0, 20.0), 180.0), ((10.0, 10.0), -90.0), ((20.0, 30.0), 45.0), ((0.0, 10.0), -135.0), ((10.0, 20.0), 0.0), ((10.0, 21.0), 90.0), ((11.0, 20.0), 0.0)],
)
def test_line_of_fire_from_the_attacker_centre(to: tuple[float, float], heading: float) -> None:
    assert line_of_fire(ATTACKER, to) == pytest.approx(heading, abs=1e-12)


def test_at_is_laid_where_written() -> None:
    assert laid(At(300.0, 400.0, 30.0)) == PlacedTemplate("x", BLAST, (300.0, 400.0), 30.0, None)


def test_impact_on_a_target_centres_a_blast_on_it() -> None:
    assert laid(Impact("a", target="t")) == PlacedTemplate("x", BLAST, (110.0, 20.0), 0.0, None)
    assert laid(Impact("a", target="r")) == PlacedTemplate("x", BLAST, (10.0, 120.0), 90.0, None)


@pytest.mark.parametrize("shape", [TEARDROP, CONE])
def test_impact_lays_a_pointed_template_from_the_target_near_edge(shape: TemplateShape) -> None:
    # The tip sits where the line of fire enters the target's base: 20 mm short of its centre.
    p = laid(Impact("a", target="t"), shape)
    assert (p.id, p.shape, p.heading, p.user) == ("x", shape, 0.0, None)
    assert p.focus == pytest.approx((90.0, 20.0), abs=1e-9)
    # A rect base 30 mm deep along the line of fire (north): its near face is 15 mm short.
    p = laid(Impact("a", target="r"), shape)
    assert p.heading == 90.0 and p.focus == pytest.approx((10.0, 105.0), abs=1e-9)


@pytest.mark.parametrize("shape", [BLAST, TEARDROP])
def test_impact_on_a_point_puts_the_focus_there(shape: TemplateShape) -> None:
    p = laid(Impact("a", point=(10.0, -80.0)), shape)
    assert p == PlacedTemplate("x", shape, (10.0, -80.0), -90.0, None)


def test_direct_blast_is_centred_on_its_user() -> None:
    assert laid(Direct("a", 30.0)) == PlacedTemplate("x", BLAST, (10.0, 20.0), 30.0, "a")


@pytest.mark.parametrize("shape", [TEARDROP, CONE])
def test_direct_pointed_template_starts_at_the_user_base_edge(shape: TemplateShape) -> None:
    p = laid(Direct("a", 90.0), shape)
    assert (p.shape, p.heading, p.user) == (shape, 90.0, "a")
    assert p.focus == pytest.approx((10.0, 40.0), abs=1e-9)


def test_explosion_is_centred_on_the_model_which_uses_it() -> None:
    assert laid(Explosion("t")) == PlacedTemplate("x", BLAST, (110.0, 20.0), 0.0, "t")


def test_a_shape_given_to_place_overrides_the_template_own() -> None:
    assert laid(At(1.0, 2.0), BLAST, override=CONE).shape == CONE
    assert laid(At(1.0, 2.0), None, override=CONE).shape == CONE


@pytest.mark.parametrize(
    ("placement", "message"),
    [
        (Impact("ghost", target="t"), "template 'x': attacker 'ghost' is not a model on the table"),
        (Impact("a", target="ghost"), "template 'x': target 'ghost' is not a model on the table"),
        (Direct("ghost"), "template 'x': attacker 'ghost' is not a model on the table"),
        (Explosion("ghost"), "template 'x': model 'ghost' is not a model on the table"),
        ("sideways", "template 'x': unknown placement 'sideways'"),
    ],
)
def test_placement_errors_name_the_template_and_the_missing_model(placement: object, message: str) -> None:
    with pytest.raises(PlacementError) as err:
        laid(placement)
    assert str(err.value) == message


def test_a_template_without_a_shape_is_an_error() -> None:
    with pytest.raises(PlacementError, match=r"^template 'x' has no shape$"):
        laid(At(0.0, 0.0), None)
