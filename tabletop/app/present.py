"""Presenter mode: the resolution explained one step at a time, full screen, for a projector.

A :class:`Presenter` holds one adjudication and its :func:`~tabletop.explain.beats`; each frame is a
slide (:func:`tabletop.draw.slide.draw_slide`): the table zoomed on the action with the step's
highlight, and under it the step, the rule it applies and the seed sentence it rests on, in type
sized from the screen height. Right/Down/Space/PageDown/Enter: next; Left/Up/PageUp/Backspace: back;
Home/End; R: back to the table as it was; Esc leaves. Dragging a template is a what-if: the table is
resolved again with the template where it is dropped and the explanation restarts from its first
step. The table being edited is never changed.

``F5`` in the app (:class:`PresenterMixin`) and ``tabletop present FILE`` (:func:`run_presenter`).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import pygame

from tabletop.adjudicate import Adjudication, AdjudicationError, adjudicate
from tabletop.coverage import table_geometry
from tabletop.draw.slide import Frame, Layout, draw_slide, layout, slide_viewport
from tabletop.explain import Beat, beats
from tabletop.model import At, Point, Scenario, Template
from tabletop.rulesets import PluginError
from tabletop.shapes import template_polygon
from tabletop.viewport import Viewport

from .state import move_template

FORWARD = (pygame.K_RIGHT, pygame.K_DOWN, pygame.K_SPACE, pygame.K_PAGEDOWN, pygame.K_RETURN, pygame.K_KP_ENTER)
BACK = (pygame.K_LEFT, pygame.K_UP, pygame.K_PAGEUP, pygame.K_BACKSPACE)


def moved_template(scenario: Scenario, template: Template, world: Point, grab: Point) -> Template:
    """``template`` dragged so that the point ``grab`` (mm from its focus) sits under ``world``:
    the editor's move (``state.move_template``), an aimed one re-aimed at the model it is
    dropped on, else at the point."""
    x, y = world
    if isinstance(template.placement, At):
        x, y = x - grab[0], y - grab[1]
    return move_template(scenario, template, x, y, onto_model=True)


class Presenter:
    """Presenter mode over one adjudication: pygame events in, slides out."""

    def __init__(self, adjudication: Adjudication) -> None:
        self.original = adjudication
        self.adjudication = adjudication
        self.beats: list[Beat] = beats(adjudication)
        self.index = 0
        self.running = True
        self.message = ""
        self.drag: tuple[str, Point] | None = None  # template id, grab offset from its focus (mm)
        self.frame: Frame | None = None
        self._bands: tuple[tuple[int, int], list[Beat], Layout] | None = None
        self._view: tuple[pygame.Rect, list[Beat], Viewport] | None = None

    @property
    def beat(self) -> Beat | None:
        return self.beats[self.index] if self.beats else None

    def go(self, delta: int) -> None:
        """Step forward (or back) ``delta`` beats, staying inside the explanation."""
        if self.beats:
            self.index = max(0, min(len(self.beats) - 1, self.index + delta))

    def restart(self, adjudication: Adjudication, message: str) -> None:
        self.adjudication = adjudication
        self.beats = beats(adjudication)
        self.index = 0
        self.message = message

    def what_if(self, template_id: str, world: Point, grab: Point) -> bool:
        """Resolve again with ``template_id`` dragged to ``world``; the explanation restarts at step 1."""
        scenario = self.adjudication.scenario
        try:
            template = scenario.template(template_id)
        except KeyError:
            return False
        moved = moved_template(scenario, template, world, grab)
        if moved == template:
            return False
        changed = replace(scenario, templates=tuple(moved if t.id == template_id else t for t in scenario.templates))
        adj = self.adjudication
        try:
            new = adjudicate(changed, seed=adj.seed, tolerance_mm=adj.tolerance_mm, settings=adj.settings, geometry=table_geometry(changed))
            self.restart(new, f"what if: {template_id} moved (R: as it was)")
        except (AdjudicationError, ValueError, PluginError) as exc:  # a plug-in's fault too: said, the slides stay
            self.message = f"what if: {exc}"
            return False
        return True

    def template_at(self, world: Point, slack_mm: float = 0.0) -> str | None:
        """The template whose area holds ``world`` (the last drawn first)."""
        from shapely.geometry import Point as ShapelyPoint

        p = ShapelyPoint(world)
        for result in reversed(self.adjudication.results):
            if template_polygon(result.resolution.placed, segments=64, outer=True).distance(p) <= slack_mm:
                return result.template.id
        return None

    # ------------------------------------------------------------------ events

    def process_event(self, event: pygame.event.Event) -> None:
        """One pygame event: keys step through the explanation, a drag is a what-if, Esc leaves."""
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                self.running = False
            elif event.key in FORWARD:
                self.go(1)
            elif event.key in BACK:
                self.go(-1)
            elif event.key == pygame.K_HOME:
                self.index = 0
            elif event.key == pygame.K_END:
                self.index = max(0, len(self.beats) - 1)
            elif event.key == pygame.K_r:
                self.restart(self.original, "")
        elif self.frame is not None:
            self._mouse(event, self.frame)

    def _mouse(self, event: pygame.event.Event, frame: Frame) -> None:
        vp = frame.viewport
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and frame.table.collidepoint(event.pos):
            world = vp.to_world(*event.pos)
            hit = self.template_at(world, slack_mm=vp.length_to_world(6))
            if hit is not None:
                focus = next(r.resolution.placed.focus for r in self.adjudication.results if r.template.id == hit)
                self.drag = (hit, (world[0] - focus[0], world[1] - focus[1]))
        elif event.type == pygame.MOUSEMOTION and self.drag is not None:
            self.what_if(self.drag[0], vp.to_world(*event.pos), self.drag[1])
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self.drag is not None:
            self.what_if(self.drag[0], vp.to_world(*event.pos), self.drag[1])
            self.drag = None
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 3:
            self.go(-1)
        elif event.type == pygame.MOUSEWHEEL:
            self.go(-1 if event.y > 0 else 1)

    # ------------------------------------------------------------------ drawing

    def draw(self, surface: pygame.Surface, progress: float = 1.0) -> Frame:
        """Draw the current step into ``surface`` (its size decides the layout); returns where things went."""
        size = surface.get_size()
        if self._bands is None or self._bands[0] != size or self._bands[1] is not self.beats:
            self._bands = (size, self.beats, layout(size, self.beats))
        bands = self._bands[2]
        # The view follows the explanation, except while a drag is under way (the table must not slide away).
        if self._view is None or self._view[0] != bands.table or (self._view[1] is not self.beats and self.drag is None):
            self._view = (bands.table, self.beats, slide_viewport(self.adjudication.scenario, self.beats, bands.table))
        self.frame = draw_slide(surface, self.adjudication, self.beats, self.index, bands, self._view[2], progress, self.message)
        return self.frame


# --------------------------------------------------------------------------- in the app (F5)


def desktop_size() -> tuple[int, int]:
    sizes = pygame.display.get_desktop_sizes() if hasattr(pygame.display, "get_desktop_sizes") else []
    return tuple(sizes[0]) if sizes else (0, 0)  # type: ignore[return-value]


def full_screen() -> pygame.Surface:
    """The display full screen at the desktop's size, its corner at the screen's (without a window
    manager, as on a kiosk or under Xvfb, SDL would leave the window where it was)."""
    move = getattr(pygame.display, "set_window_position", None)  # pygame-ce >= 2.5
    if move is not None and pygame.display.get_surface() is not None:
        move((0, 0))
    surface = pygame.display.set_mode(desktop_size(), pygame.FULLSCREEN)
    if move is not None:
        move((0, 0))
    return surface


class PresenterMixin:
    """Part of ``TabletopApp``: ``F5`` opens presenter mode full screen on what the view shows; Esc comes back."""

    presenter: Presenter | None = None
    _windowed: tuple[int, int] | None = None

    def start_presenter(self: Any) -> None:
        adj = self.adjudication()
        if not adj.results:
            self.flash("Nothing to present: add a template first")
            return
        try:
            self.presenter = Presenter(adj)
        except PluginError as exc:  # its step_rule failed: the editor carries on and says so
            self.flash(str(exc), error=True)
            return
        self._windowed = tuple(self.size)
        if pygame.display.get_surface() is not None:
            full_screen()

    def stop_presenter(self: Any) -> None:
        self.presenter = None
        if self._windowed is not None and pygame.display.get_surface() is not None:
            pygame.display.set_mode(self._windowed, pygame.RESIZABLE)
        self._windowed = None
        self.flash("Presenter mode closed")

    def presenter_event(self: Any, event: pygame.event.Event) -> None:
        """Every event goes to the presenter while it is open."""
        assert self.presenter is not None
        self.presenter.process_event(event)
        if not self.presenter.running:
            self.stop_presenter()
            if event.type == pygame.QUIT:
                self.request_quit()


# --------------------------------------------------------------------------- tabletop present FILE


def run_presenter(adjudication: Adjudication, size: tuple[int, int] | None = None) -> int:
    """``tabletop present FILE``: presenter mode until Esc; ``size`` opens a window instead of full screen."""
    import sys

    from .lifecycle import NoDisplay, check_display

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    pygame.init()
    try:
        try:
            check_display()
            screen = pygame.display.set_mode(size, pygame.RESIZABLE) if size else full_screen()
        except (NoDisplay, pygame.error) as exc:
            message = str(exc) if isinstance(exc, NoDisplay) else f"no display: {exc}"
            print(f"tabletop: {message}", file=sys.stderr)
            return 2
        pygame.display.set_caption(f"{adjudication.scenario.title or 'Tabletop'} — presenter")
        presenter = Presenter(adjudication)
        clock = pygame.time.Clock()
        dirty = True
        while presenter.running:
            clock.tick(60)
            for event in pygame.event.get():
                presenter.process_event(event)
                dirty = True
            if dirty:
                presenter.draw(screen)
                pygame.display.flip()
                dirty = False
        return 0
    finally:
        pygame.quit()
