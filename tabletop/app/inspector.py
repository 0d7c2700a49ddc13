"""The side panel's inspector: the fields of the selected model, template or building, and applying them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pygame
from pygame_gui.elements import UIButton, UILabel, UITextEntryLine

from tabletop.model import At, Base, Direct, Impact, Scenario, Template
from tabletop.units import format_length, parse_length

from .layout import PANEL_W
from .measure import parse_placement, parse_row
from .state import EditModel, EditTemplate, EditTerrain, RotateTemplate, SetTerrainOutline, format_numbers, parse_numbers, parse_tags
from .validate import check_heading, check_length
from .widgets import fit_text


class InspectorMixin:
    """Part of ``TabletopApp``: builds the inspector widgets and turns their text into checked edits."""

    def _inspector_subject(self) -> Any:
        ref = self.state.selection
        if ref is None:
            return (None, self.scenario.title, len(self.scenario.models), len(self.scenario.templates))
        s = self.scenario
        try:
            if ref.kind == "model":
                m = s.model(ref.id)
                return (ref, replace(m, x=0.0, y=0.0))
            if ref.kind == "template":
                t = s.template(ref.id)
                return (ref, t)
            return (ref, s.terrain_piece(ref.id))
        except KeyError:
            return None

    def _refresh_inspector(self) -> None:
        key = self._inspector_subject()
        if key == self._inspector_key:
            return
        self._inspector_key = key
        for e in self._inspector:
            e.kill()
        self._inspector = []
        self._fields = {}
        self._shown: dict[str, str] = {}  # each field's text as shown: an untouched field changes nothing
        iw = PANEL_W - 24
        y = self.inspector_top
        s = self.scenario
        ref = self.state.selection

        def add(e: Any) -> Any:
            self._inspector.append(e)
            return e

        def row(label: str, name: str, value: str, tip: str | None = None) -> None:
            nonlocal y
            add(UILabel(pygame.Rect(8, y, 76, 26), label, self.ui, container=self.panel, object_id="#small"))
            entry = add(UITextEntryLine(pygame.Rect(86, y, iw - 78, 26), self.ui, container=self.panel, initial_text=value))
            if tip:
                entry.set_tooltip(tip)
            self._fields[name] = entry
            self._shown[name] = value
            y += 28

        def heading(title: str, detail: str = "") -> None:
            """The panel's title (and a line under it), each cut with "…" to the panel's width."""
            nonlocal y
            add(UILabel(pygame.Rect(8, y, iw, 24), fit_text(self.ui, title, iw - 12, 15, bold=True), self.ui, container=self.panel, object_id="#heading"))
            y += 24
            if detail:
                add(UILabel(pygame.Rect(8, y, iw, 20), fit_text(self.ui, detail, iw - 12, 13), self.ui, container=self.panel, object_id="#small"))
                y += 20

        def actions() -> None:
            nonlocal y
            b = add(UIButton(pygame.Rect(8, y, (iw - 4) // 2, 28), "Apply", self.ui, container=self.panel, tool_tip_text="Apply the edits (Enter in a field)"))
            self.buttons["apply"] = b
            d = add(UIButton(pygame.Rect(8 + (iw + 4) // 2, y, (iw - 4) // 2 + 8, 28), "Delete", self.ui, container=self.panel, tool_tip_text="Delete (Del)"))
            self.buttons["delete"] = d
            y += 32

        if ref is None:
            heading("Nothing selected")
            lines = [
                f"{s.title or 'Untitled table'}",
                f"{format_length(s.table.width)} × {format_length(s.table.depth)} table",
                f"{len(s.models)} models, {len(s.terrain)} terrain, {len(s.templates)} templates",
                "Click a model, template or building to edit it.",
                "F1 lists every shortcut.",
            ]
            for line in lines:
                add(UILabel(pygame.Rect(8, y, iw, 22), fit_text(self.ui, line, iw - 12, 13), self.ui, container=self.panel, object_id="#small"))
                y += 22
            return
        try:
            if ref.kind == "model":
                m = s.model(ref.id)
                heading(f"Model {m.id}")
                row("Name", "name", m.name or "")
                row("Side", "side", m.side or "", "Same side = friends; 'neutral' is nobody's")
                base = f"{m.base.length:g}mm" if m.base.shape == "round" else f"{m.base.shape} {m.base.length:g}x{m.base.width:g}mm"
                row("Base", "base", base, "Diameter (25mm, 1in) or 'oval 60x35mm' / 'rect 50x25mm'; Alt+1…9 presets")
                row("Facing", "facing", f"{round(m.facing, 6):g}", "degrees counter-clockwise from the table's right (R turns 15°, Shift+R 1°)")
                row("Stats", "stats", format_numbers(m.stats), "e.g. DF=4, GN=2")
                row("Tags", "tags", ", ".join(m.tags), "comma separated")
                row("Place", "place", "", PLACE_TIP)
                row("Row", "row", "", "copies in a row: 4 at 1.5\" (centre to centre) · 4 at 0.5\", edge to edge, at 90°")
            elif ref.kind == "template":
                t = s.template(ref.id)
                heading(f"Template {t.id}", _placement_words(t, s))
                row("Shape", "shape", t.shape_name or (t.shape.kind if t.shape else ""), "A catalogue name: " + ", ".join(list(self.catalogue)[:6]) + ", …")
                p = t.placement
                if isinstance(p, (At, Direct)):
                    row("Heading", "heading", f"{round(p.heading, 2):g}", "degrees counter-clockwise from +x")
                row("Fixed rolls", "rolls", format_numbers(t.rolls), "what-if dice for this template, e.g. scatter=4")
            else:
                piece = s.terrain_piece(ref.id)
                heading(f"Terrain {piece.id}")
                row("Name", "name", piece.name or "")
                row("Kind", "kind", piece.kind or "")
                row("Height", "height", "" if piece.height is None else f"{piece.height:g}mm", "empty = blocks at any height")
                row("Blocks LOS", "blocks_los", "yes" if piece.blocks_los else "no", "yes / no")
                if piece.rect is not None:
                    r = piece.rect
                    row("Size", "size", f"{format_plain(r.length)} x {format_plain(r.width)}", "length x width (along its rotation), e.g. 3in x 1.2in; the centre stays")
                    row("Rotation", "rotation", f"{round(r.rotation, 6):g}", "degrees counter-clockwise (R turns 15°, Shift+R 1°)")
        except KeyError:
            return
        actions()

    def apply_inspector(self) -> bool:
        """Turn the side panel's fields into an edit of the selected item."""
        ref = self.state.selection
        if ref is None:
            return False
        f = {k: e.get_text().strip() for k, e in self._fields.items()}
        try:
            if ref.kind == "model":
                changes = {
                    "name": f["name"] or None,
                    "side": f["side"] or None,
                    "base": parse_base(f["base"]),
                    "stats": {k: float(v) if not isinstance(v, list) else float(v[0]) for k, v in parse_numbers(f["stats"]).items()},
                    "tags": parse_tags(f["tags"]),
                }
                if f.get("facing") and f["facing"] != self._shown.get("facing"):
                    changes["facing"] = check_heading(f["facing"]) % 360.0
                row_spec = parse_row(f["row"], self.scenario.units) if f.get("row") else None
                if f.get("place"):
                    parse_placement(f["place"], self.scenario, ref.id)  # a typo refuses the whole edit, before any change
                # the fields, the placement and the copies are one undo step
                g = self.next_gesture()
                if not self.dispatch(EditModel(ref.id, changes, g), validate=True):
                    return False
                if f.get("place"):
                    if not self.place_model(ref.id, f["place"], g):
                        return False
                    self._fields["place"].set_text("")
                if row_spec is not None:
                    if not self.place_row(ref.id, row_spec, g):
                        return False
                    self._fields["row"].set_text("")
                if f.get("place") or row_spec is not None:
                    self.ui.set_focus_set(None)  # done typing: the keys go back to the table's shortcuts
                return True
            if ref.kind == "template":
                t = self.scenario.template(ref.id)
                changes: dict[str, Any] = {"rolls": parse_numbers(f["rolls"])}
                name = f["shape"]
                if name != (t.shape_name or (t.shape.kind if t.shape else "")):
                    if name not in self.catalogue:
                        raise ValueError(f"no template named {name!r} in the catalogue")
                    changes |= {"shape": self.catalogue[name].shape, "shape_name": name}
                p = t.placement
                shown = f"{round(p.heading, 2):g}" if isinstance(p, (At, Direct)) else None
                heading = check_heading(f["heading"]) if "heading" in f and f["heading"] != shown else None
                ok = self.dispatch(EditTemplate(ref.id, changes), validate=True)
                if ok and heading is not None:
                    ok = self.dispatch(RotateTemplate(ref.id, heading), validate=True)
                return ok
            blocks = f["blocks_los"].lower()
            if blocks not in ("yes", "no", "true", "false", "y", "n"):
                raise ValueError("Blocks LOS: yes or no")
            g = self.next_gesture()
            ok = self.dispatch(
                EditTerrain(
                    ref.id,
                    {
                        "name": f["name"] or None,
                        "kind": f["kind"] or None,
                        "height": (
                            self.scenario.terrain_piece(ref.id).height
                            if f["height"] == self._shown.get("height")
                            else check_length(parse_length(f["height"], "mm"), "Height", positive=False) if f["height"] else None
                        ),
                        "blocks_los": blocks in ("yes", "true", "y"),
                    },
                    g,
                ),
                validate=True,
            )
            piece = self.scenario.terrain_piece(ref.id)
            size_typed = "size" in f and f["size"] != self._shown.get("size")
            rotation_typed = bool(f.get("rotation")) and f.get("rotation") != self._shown.get("rotation")
            if ok and piece.rect is not None and (size_typed or rotation_typed):
                length, width = parse_size(f["size"], self.scenario.units) if size_typed else (piece.rect.length, piece.rect.width)
                rotation = check_heading(f["rotation"]) % 360.0 if rotation_typed else piece.rect.rotation
                rect = replace(piece.rect, length=length, width=width, rotation=rotation)
                if rect != piece.rect:
                    ok = self.dispatch(SetTerrainOutline(ref.id, rect=rect, gesture=g), validate=True)
            return ok
        except (ValueError, KeyError, OverflowError) as exc:
            self.flash(f"Not applied: {exc}", error=True)
            return False


PLACE_TIP = (
    "Where its base is, as measured with a tape (to the base's edge): "
    "12.5\" from left, 8\" from bottom · 3.2\" from Trooper 1, edge to edge, at 40° · contact Trooper 1"
)


def format_plain(mm: float) -> str:
    """A length as typed back: mm, to the micrometre."""
    return f"{round(mm, 4):g}mm"


def parse_size(text: str, unit: str) -> tuple[float, float]:
    """``3in x 1.2in`` / ``76.2 x 30.48mm`` → (length, width) mm. Raises ValueError."""
    parts = [p.strip() for p in text.lower().replace("×", "x").split("x")]
    if len(parts) != 2 or not all(parts):
        raise ValueError("Size: write length x width, e.g. 3in x 1.2in")
    trailing = next((u for u in ("mm", "cm", "in", '"') if parts[1].endswith(u)), None)
    a = parts[0] if trailing is None or parts[0][-1:].isalpha() or parts[0].endswith('"') else parts[0] + trailing
    return (check_length(parse_length(a, unit), "Size length"), check_length(parse_length(parts[1], unit), "Size width"))


def parse_base(text: str) -> Base:
    """``25mm`` / ``1in`` / ``32`` (mm) → round; ``oval 60x35mm`` / ``rect 50x25mm``."""
    t = text.strip().lower()
    for shape in ("oval", "rect"):
        if t.startswith(shape):
            rest = t[len(shape) :].strip()
            unit = "mm"
            for u in ("mm", "cm", "in"):
                if rest.endswith(u):
                    unit, rest = u, rest[: -len(u)]
            a, b = (v.strip() for v in rest.split("x"))
            length = check_length(parse_length(f"{a}{unit}", "mm"), "Base length")
            width = check_length(parse_length(f"{b}{unit}", "mm"), "Base width")
            return Base(shape, length, width)  # type: ignore[arg-type]
    return Base.round(check_length(parse_length(t, "mm"), "Base diameter"))


def _placement_words(t: Template, s: Scenario) -> str:
    """How the template is laid, with the models' names: "impact: Tomahawk on Battlepod"."""

    def name(model_id: str) -> str:
        try:
            return s.model(model_id).label
        except KeyError:
            return model_id

    p = t.placement
    if isinstance(p, At):
        return "free: placed where it lies"
    if isinstance(p, Impact):
        return f"impact: {name(p.attacker)} on {name(p.target) if p.target else 'a point'}"
    if isinstance(p, Direct):
        return f"direct: from {name(p.attacker)}"
    return f"explosion of {name(p.model)}"
