"""The side panel's inspector: the fields of the selected model, template or building, and applying them."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pygame
from pygame_gui.elements import UIButton, UILabel, UITextEntryLine

from tabletop.model import At, Base, Direct, Impact, Scenario, Template
from tabletop.units import parse_length

from .layout import PANEL_W
from .commands import MoveModel, MoveTerrain, Ref, RenameItem, SetTitle
from .measure import circle_points, parse_centre, parse_placement, parse_row, round_piece, terrain_centre
from .state import EditModel, EditTemplate, EditTerrain, RotateTemplate, SetTerrainOutline, format_numbers, parse_numbers, parse_tags
from .validate import check_heading, check_length
from .widgets import fit_text


class InspectorMixin:
    """Part of ``TabletopApp``: builds the inspector widgets and turns their text into checked edits."""

    def _inspector_subject(self) -> Any:
        ref = self.state.selection
        if ref is None:
            s = self.scenario
            return (None, s.title, s.units, s.table, len(s.models), len(s.terrain), len(s.templates))
        s = self.scenario
        try:
            if ref.kind == "model":
                # Where it stands and which way it faces are followed in place (a drag, a turn, their undo).
                m = s.model(ref.id)
                return (ref, replace(m, x=0.0, y=0.0, facing=0.0))
            if ref.kind == "template":
                return (ref, _as_inspected(s.template(ref.id)))
            return (ref, s.terrain_piece(ref.id))
        except KeyError:
            return None

    def _refresh_inspector(self) -> None:
        key = self._inspector_subject()
        if key == self._inspector_key:
            self._follow_model_centre()
            self._follow_turn()
            return
        self._inspector_key = key
        spec = self._inspector_spec() or []  # none: the subject is gone (an empty panel, as before)
        layout = tuple(item[:1] + item[2:] if item[0] == "row" else item[:1] for item in spec)
        if self._inspector and layout == getattr(self, "_inspector_layout", None):
            self._fill_inspector(spec)
            return
        self._inspector_layout = layout
        self._build_inspector(spec)

    def _inspector_spec(self) -> list[tuple[str, ...]] | None:
        """What the inspector shows for the selection, in order: ``("heading", title)``, ``("detail", line)``,
        ``("row", value, label, name, tip)``, ``("line", text)``, ``("actions",)``; None when the selection is gone."""
        s = self.scenario
        ref = self.state.selection
        spec: list[tuple[str, ...]] = []

        def row(label: str, name: str, value: str, tip: str = "") -> None:
            spec.append(("row", value, label, name, tip))

        def heading(title: str, detail: str = "") -> None:
            spec.append(("heading", title))
            if detail:
                spec.append(("detail", detail))

        if ref is None:
            heading("The table")
            row("Title", "title", s.title or "", "The table's title: shown on the table, in the window's title and in exports (Enter applies)")
            spec += [
                ("line", f"{format_in_units(s.table.width, s.units)} × {format_in_units(s.table.depth, s.units)} table"),
                ("line", f"{len(s.models)} models, {len(s.terrain)} terrain, {len(s.templates)} templates"),
                ("line", "Nothing selected: click a model, template or building to edit it."),
                ("line", "F1 lists every shortcut."),
            ]
            return spec
        try:
            if ref.kind == "model":
                m = s.model(ref.id)
                heading(f"Model {m.label}")
                row("Name", "name", m.name or "", "The name shown on the table (Tab: the next field)")
                row("Centre", "centre", format_point(m.centre, s.units), "x, y of its centre from the table's bottom-left corner, e.g. 10, 20 (the table's units)")
                row("Id", "id", m.id, "The id the file and the command line use (letters, digits, - and _); "
                    "a new model's takes its name's, templates aimed by it follow")
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
                circle = round_piece(piece)
                shape = "round" if circle else "rectangle" if piece.rect is not None else "outline"
                heading(f"Terrain {piece.label}", f"{piece.kind or 'terrain'}, {shape}")
                row("Name", "name", piece.name or "", "The name shown on the table (Tab: the next field)")
                centre = circle[0] if circle else terrain_centre(piece)
                row("Centre", "centre", format_point(centre, s.units), "x, y of its centre from the table's bottom-left corner, e.g. 30, 24 (the table's units)")
                if circle is not None:
                    row("Diameter", "diameter", format_in_units(2 * circle[1], s.units), "e.g. 8 (the table's units), 200mm; the centre stays")
                if piece.rect is not None:
                    r = piece.rect
                    row("Size", "size", f"{format_in_units(r.length, s.units)} x {format_in_units(r.width, s.units)}", "length x width (along its rotation), e.g. 6 x 4 (the table's units), 150mm x 100mm; the centre stays")
                row("Id", "id", piece.id, "The id the file uses (letters, digits, - and _); a new piece's takes its name's")
                row("Kind", "kind", piece.kind or "")
                row("Height", "height", "" if piece.height is None else format_in_units(piece.height, s.units), "in the table's units unless typed (2in, 50mm); empty = blocks at any height")
                row("Blocks LOS", "blocks_los", "yes" if piece.blocks_los else "no", "yes / no")
                if piece.rect is not None:
                    row("Rotation", "rotation", f"{round(piece.rect.rotation, 6):g}", "degrees counter-clockwise (R turns 15°, Shift+R 1°)")
        except KeyError:
            return None
        spec.append(("actions",))
        return spec

    def _build_inspector(self, spec: list[tuple[str, ...]]) -> None:
        """The inspector's widgets made afresh for ``spec`` (another kind of subject, or other rows)."""
        for e in self._inspector:
            e.kill()
        self._inspector = []
        self._inspector_texts: list[tuple[Any, str, str]] = []  # (the label, its words, its style) for a refill
        self._fields = {}
        self._shown: dict[str, str] = {}  # each field's text as shown: an untouched field changes nothing
        iw = PANEL_W - 24
        y = self.inspector_top

        def add(e: Any) -> Any:
            self._inspector.append(e)
            return e

        def text(rect: pygame.Rect, words: str, object_id: str) -> None:
            label = add(UILabel(rect, self._fitted(words, object_id), self.ui, container=self.panel, object_id=object_id))
            self._inspector_texts.append((label, words, object_id))

        for item in spec:
            if item[0] == "row":
                value, label, name, tip = item[1:]
                add(UILabel(pygame.Rect(8, y, 76, 26), label, self.ui, container=self.panel, object_id="#small"))
                entry = add(UITextEntryLine(pygame.Rect(86, y, iw - 78, 26), self.ui, container=self.panel, initial_text=value))
                if tip:
                    entry.set_tooltip(tip)
                self._fields[name] = entry
                self._shown[name] = value
                y += 28
            elif item[0] == "heading":
                text(pygame.Rect(8, y, iw, 24), item[1], "#heading")
                y += 24
            elif item[0] == "detail":
                text(pygame.Rect(8, y, iw, 20), item[1], "#small")
                y += 20
            elif item[0] == "line":
                text(pygame.Rect(8, y, iw, 22), item[1], "#small")
                y += 22
            else:
                b = add(UIButton(pygame.Rect(8, y, (iw - 4) // 2, 28), "Apply", self.ui, container=self.panel, tool_tip_text="Apply the edits (Enter in a field)"))
                self.buttons["apply"] = b
                d = add(UIButton(pygame.Rect(8 + (iw + 4) // 2, y, (iw - 4) // 2 + 8, 28), "Delete", self.ui, container=self.panel, tool_tip_text="Delete (Del)"))
                self.buttons["delete"] = d
                y += 32

    def _fill_inspector(self, spec: list[tuple[str, ...]]) -> None:
        """The widgets kept and their words changed: the same rows for another subject (one model after another).
        Making pygame_gui's widgets afresh cost about 10 ms a change of selection."""
        if any(e.is_focused for e in self._fields.values()):
            self.ui.set_focus_set(None)  # as a rebuilt panel's: what was being typed was for the subject before
        words = [item[1] for item in spec if item[0] in ("heading", "detail", "line")]
        for k, (label, old, object_id) in enumerate(self._inspector_texts):
            if words[k] != old:
                label.set_text(self._fitted(words[k], object_id))
                self._inspector_texts[k] = (label, words[k], object_id)
        for item in spec:
            if item[0] == "row":
                value, name = item[1], item[3]
                entry = self._fields[name]
                if entry.get_text() != value:
                    entry.set_text(value)
                self._shown[name] = value

    def _fitted(self, words: str, object_id: str) -> str:
        """``words`` cut with "…" to the panel's width in the style of ``object_id``."""
        iw = PANEL_W - 24
        return fit_text(self.ui, words, iw - 12, 15, bold=True) if object_id == "#heading" else fit_text(self.ui, words, iw - 12, 13)

    def apply_inspector(self) -> bool:
        """Turn the side panel's fields into an edit of the selected item."""
        ref = self.state.selection
        f = {k: e.get_text().strip() for k, e in self._fields.items()}
        if ref is None:
            title = f.get("title")
            if title is None or title == (self.scenario.title or ""):
                return False
            ok = self.dispatch(SetTitle(title), validate=True)
            if ok:
                self.flash(f"Title: {title}")
                self.ui.set_focus_set(None)  # done typing: the keys go back to the table's shortcuts
            return ok
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
                centre_typed = bool(f.get("centre")) and f["centre"] != self._shown.get("centre")
                centre = parse_centre(f["centre"], self.scenario.units) if centre_typed else None
                # the id, the fields, the placement and the copies are one undo step
                g = self.next_gesture()
                ref = self._renamed(ref, f, g)
                if ref is None or not self.dispatch(EditModel(ref.id, changes, g), validate=True):
                    return False
                if centre is not None:
                    if not self.dispatch(MoveModel(ref.id, centre[0], centre[1], g), validate=True):
                        return False
                    self.ui.set_focus_set(None)
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
            return self._apply_terrain(ref, f)
        except (ValueError, KeyError, OverflowError) as exc:
            self.flash(f"Not applied: {exc}", error=True)
            return False


    def _follow_turn(self) -> None:
        """The selected template's Heading or model's Facing field follows a turn or its undo (the panel is not rebuilt
        for one), unless the user is typing a value of their own into it."""
        ref = self.state.selection
        if ref is None:
            return
        try:
            if ref.kind == "model":
                name, text = "facing", f"{round(self.scenario.model(ref.id).facing, 6):g}"
            elif ref.kind == "template":
                p = self.scenario.template(ref.id).placement
                if not isinstance(p, (At, Direct)):
                    return
                name, text = "heading", f"{round(p.heading, 2):g}"
            else:
                return
        except KeyError:
            return
        entry = self._fields.get(name)
        if entry is None or (entry.is_focused and entry.get_text() != self._shown.get(name)):
            return
        if self._shown.get(name) != text:
            entry.set_text(text)
            self._shown[name] = text

    def _follow_model_centre(self) -> None:
        """The selected model's Centre field follows a drag or a nudge (the panel is not rebuilt for a move)."""
        ref = self.state.selection
        entry = self._fields.get("centre")
        if ref is None or ref.kind != "model" or entry is None or entry.is_focused:
            return
        try:
            text = format_point(self.scenario.model(ref.id).centre, self.scenario.units)
        except KeyError:
            return
        if self._shown.get("centre") != text:
            entry.set_text(text)
            self._shown["centre"] = text

    def _renamed(self, ref: Ref, f: dict[str, str], gesture: int) -> Ref | None:
        """``ref`` after the Id field's rename (itself when the id is unchanged); None when refused.

        A piece the app numbered itself (``m3``, ``b1``, ``terrain2``) and named now takes an id
        made from its name (``Battlepod 2`` → ``battlepod-2``), unless the Id field was typed in."""
        new_id = f.get("id", ref.id).strip()
        if new_id == ref.id and f.get("name") and f["name"] != self._shown.get("name") and AUTO_ID.fullmatch(ref.id):
            new_id = id_from_name(self.scenario, f["name"], ref.id) or ref.id
        if new_id == ref.id:
            return ref
        if not self.dispatch(RenameItem(ref, new_id, gesture), validate=True):
            return None
        return Ref(ref.kind, new_id)

    def _apply_terrain(self, ref: Ref, f: dict[str, str]) -> bool:
        """A terrain piece's fields: every one read (a typo refuses the whole edit), then one undo step."""
        units = self.scenario.units
        piece = self.scenario.terrain_piece(ref.id)
        blocks = f["blocks_los"].lower()
        if blocks not in ("yes", "no", "true", "false", "y", "n"):
            raise ValueError("Blocks LOS: yes or no")
        height = (
            piece.height
            if f["height"] == self._shown.get("height")
            else check_length(parse_length(f["height"], units), "Height", positive=False) if f["height"] else None
        )
        circle = round_piece(piece)
        centre_typed = bool(f.get("centre")) and f["centre"] != self._shown.get("centre")
        centre = parse_centre(f["centre"], units) if centre_typed else None
        diameter_typed = circle is not None and bool(f.get("diameter")) and f["diameter"] != self._shown.get("diameter")
        diameter = check_length(parse_length(f["diameter"], units), "Diameter") if diameter_typed else None
        size_typed = "size" in f and f["size"] != self._shown.get("size")
        size = parse_size(f["size"], units) if size_typed and piece.rect is not None else None
        rotation_typed = bool(f.get("rotation")) and f.get("rotation") != self._shown.get("rotation")
        rotation = check_heading(f["rotation"]) % 360.0 if rotation_typed else None
        g = self.next_gesture()
        renamed = self._renamed(ref, f, g)
        if renamed is None:
            return False
        ref = renamed
        fields = {"name": f["name"] or None, "kind": f["kind"] or None, "height": height, "blocks_los": blocks in ("yes", "true", "y")}
        if not self.dispatch(EditTerrain(ref.id, fields, g), validate=True):
            return False
        if centre is not None:
            cx, cy = circle[0] if circle else terrain_centre(piece)
            if not self.dispatch(MoveTerrain(ref.id, centre[0] - cx, centre[1] - cy, g), validate=True):
                return False
        piece = self.scenario.terrain_piece(ref.id)
        if diameter is not None:
            now = round_piece(piece)
            middle = now[0] if now else terrain_centre(piece)
            if not self.dispatch(SetTerrainOutline(ref.id, points=circle_points(middle, diameter / 2), gesture=g), validate=True):
                return False
        if piece.rect is not None and (size is not None or rotation is not None):
            length, width = size if size is not None else (piece.rect.length, piece.rect.width)
            rect = replace(piece.rect, length=length, width=width, rotation=rotation if rotation is not None else piece.rect.rotation)
            if rect != piece.rect and not self.dispatch(SetTerrainOutline(ref.id, rect=rect, gesture=g), validate=True):
                return False
        if centre is not None or diameter is not None or size is not None:
            self.ui.set_focus_set(None)  # done typing: the keys go back to the table's shortcuts
        return True


#: The ids the app gives a new piece (+Model, +Building, Trace): a name typed later gives it a better one.
AUTO_ID = re.compile(r"(?:m|b|terrain)\d+")


def id_from_name(scenario: Scenario, name: str, current: str) -> str | None:
    """An id made from ``name`` ("Battlepod 2" → "battlepod-2"), free among the table's models and
    terrain (a number added when it is taken); None when the name has no letter or digit."""
    stem = "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:40].strip("-")
    if not stem:
        return None
    taken = {m.id for m in scenario.models} | {t.id for t in scenario.terrain}
    taken.discard(current)
    candidate, n = stem, 2
    while candidate in taken:
        candidate, n = f"{stem}-{n}", n + 1
    return candidate


PLACE_TIP = (
    "Where its base is: its centre (centre 10\", 20\" from the bottom-left corner), or as measured with a tape "
    "to the base's edge: 12.5\" from left, 8\" from bottom · 3.2\" from Trooper 1, edge to edge, at 40° · contact Trooper 1"
)


def format_plain(mm: float) -> str:
    """A length as typed back: mm, to the micrometre."""
    return f"{round(mm, 4):g}mm"


def format_in_units(mm: float, unit: str) -> str:
    """A length as typed back in the table's units: ``6in`` on an inch table, ``152.4mm`` on a mm one."""
    if unit == "in":
        return f"{round(mm / 25.4, 4):g}in"
    if unit == "cm":
        return f"{round(mm / 10.0, 4):g}cm"
    return format_plain(mm)


def format_point(p: tuple[float, float], unit: str) -> str:
    """A point as typed back, in the table's units without the unit: ``30, 24``."""
    scale = {"in": 25.4, "cm": 10.0}.get(unit, 1.0)
    return f"{round(p[0] / scale, 4):g}, {round(p[1] / scale, 4):g}"


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


def _as_inspected(t: Template) -> Template:
    """``t`` as far as its inspector shows it: where it lies is not shown and its heading is followed in place, so a
    drop, a turn or their undo changes nothing here: rebuilding the panel's pygame_gui widgets costs about 10 ms."""
    p = t.placement
    if isinstance(p, At):
        return replace(t, placement=replace(p, x=0.0, y=0.0, heading=0.0))
    if isinstance(p, Direct):
        return replace(t, placement=replace(p, heading=0.0))
    if isinstance(p, Impact) and p.point is not None:
        return replace(t, placement=replace(p, point=(0.0, 0.0)))
    return t


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
