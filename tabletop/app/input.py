"""Input routing: pygame events to widgets, shortcuts, panning, and the chosen tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UITextEntryLine

from tabletop.model import Point

from .hit import item_at, model_at
from .layout import SCENARIOS, ROTATE_STEP_DEG, WHEEL_ROTATE_DEG, ZOOM_STEP, PAN_STEP_PX
from .state import Redo, Ref, Select, SetNewShape, SetTool, ToggleView, Undo, format_numbers
from .build import NUDGE_MM
from .tools import TOOL_BUTTONS, Pointer


FOLLOWS_POINTER = frozenset({"move_model", "move_template", "move_terrain", "move_many", "corner"})
"""The select tool's gestures whose item goes where the pointer is (a turn or an aim goes by its direction)."""
_MODIFIER_KEYS = frozenset({pygame.K_LCTRL, pygame.K_RCTRL, pygame.K_LSHIFT, pygame.K_RSHIFT, pygame.K_LALT, pygame.K_RALT,
                            pygame.K_LGUI, pygame.K_RGUI, pygame.K_CAPSLOCK, pygame.K_NUMLOCKCLEAR, pygame.K_MODE})
"""Keys pressed on their own before a shortcut's: no shortcut yet."""


class InputMixin:
    """Part of ``TabletopApp``: every event goes through ``process_events``."""

    def process_events(self, event: pygame.event.Event) -> None:
        """One pygame event: widgets first, then the table and the shortcuts."""
        if self.presenter is not None:
            self.presenter_event(event)
            return
        if event.type == pygame.QUIT:
            self.request_quit()
            return
        if event.type in (pygame.VIDEORESIZE, pygame.WINDOWRESIZED, pygame.WINDOWSIZECHANGED):
            size = (getattr(event, "w", 0) or getattr(event, "x", 0), getattr(event, "h", 0) or getattr(event, "y", 0))
            if size[0] and size[1] and tuple(size) != self.size:
                self.resize((int(size[0]), int(size[1])))
            return
        if event.type == pygame.MOUSEMOTION:
            self.mouse_screen = event.pos
        if event.type == pygame.KEYDOWN and event.key == pygame.K_TAB and self._tab_between_fields(bool(getattr(event, "mod", 0) & pygame.KMOD_SHIFT)):
            return
        consumed = self.ui.process_events(event)
        self._apply_unfocused_fields()
        if self._handle_ui_event(event):
            return
        if event.type == pygame.KEYDOWN and not consumed and not self._typing() and self._message_key(event):
            return
        if not consumed and not self._modal_open() and not self._typing() and self.photo_event(event):
            return  # a photo import in progress takes the table's clicks and keys
        if event.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION, pygame.MOUSEWHEEL):
            if self.dragging and event.type in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONUP):
                self._table_mouse(event)  # a drag keeps the mouse even over the panels
                return
            if consumed or self._modal_open():
                return
            self._table_mouse(event)
            return
        if event.type == pygame.KEYDOWN:
            if self._typing() or self._modal_open():
                return
            self._key(event)

    def _apply_unfocused_fields(self) -> None:
        """The Seed and What-if boxes apply when they lose the focus, as on Enter.

        A click on Fire (or the table) takes the focus from the box before the button's
        press is handled, so Fire uses what was typed.
        """
        focused = {id(e) for e in self.ui.get_focus_set() or ()}
        was = getattr(self, "_fields_focused", set())
        self._fields_focused = {id(e) for e in (self.seed_entry, self.whatif_entry) if id(e) in focused}
        if id(self.seed_entry) in was and id(self.seed_entry) not in focused:
            text = self.seed_entry.get_text().strip()
            if text != str(self.state.seed) and not self.set_seed(text):
                self.seed_entry.set_text(str(self.state.seed))  # refused (and said why): show the seed in use
        if id(self.whatif_entry) in was and id(self.whatif_entry) not in focused:
            text = self.whatif_entry.get_text().strip()
            if text != format_numbers(self.state.what_if) and not self.set_what_if(text):
                self.whatif_entry.set_text(format_numbers(self.state.what_if))

    def _tab_between_fields(self, backwards: bool) -> bool:
        """Tab (Shift+Tab) in a side-panel field: the next (previous) field, its text selected to be typed
        over, as in any form. The field left keeps its text until Enter or Apply applies them all."""
        fields = [e for e in (self.seed_entry, self.whatif_entry, *self._fields.values()) if e.alive()]
        focused = self.ui.get_focus_set() or set()
        current = next((i for i, e in enumerate(fields) if e in focused), None)
        if current is None:
            if self._modal_open() or self._typing() or not self._fields:
                return False
            # Tab from the table: into the selection's first field (a new model's name, the table's title).
            target = next(iter(self._fields.values()))
        else:
            target = fields[(current + (-1 if backwards else 1)) % len(fields)]
        self.ui.set_focus_set(target)
        target._do_select_all()  # pygame_gui's own Ctrl+A
        self._apply_unfocused_fields()
        return True

    def _message_key(self, event: pygame.event.Event) -> bool:
        """A key while a message (``show_message``: a notice with only its Dismiss button) is the only window open:
        Esc or Enter dismisses it, as its button would; any other shortcut dismisses it and then does what it does (a
        notice asks nothing, so it must not eat the user's keys: "A coarse photo" swallowed Esc and Ctrl+I). True when
        the key was used up here (or still blocked by the window)."""
        notices = [w for w in self._messages if w.alive() and w in self._message_titles]
        if not notices or self._dialogs or self._confirms or self._unsaved or len(notices) != sum(w.alive() for w in self._messages):
            return False  # no notice, or a question open: the modal rule as before
        if event.key in _MODIFIER_KEYS:
            return True  # Ctrl of Ctrl+I on its own: the notice stays until the shortcut's key
        window = notices[-1]
        window.kill()
        self.message_closed(window)
        if event.key in (pygame.K_ESCAPE, pygame.K_RETURN, pygame.K_KP_ENTER):
            return True
        return self._modal_open()

    def _typing(self) -> bool:
        return any(isinstance(e, UITextEntryLine) for e in self.ui.get_focus_set() or ())

    def _modal_open(self) -> bool:
        self._messages = [w for w in self._messages if w.alive()]
        return bool(self._dialogs) or bool(self._confirms) or bool(self._unsaved) or bool(self._messages)

    def _handle_ui_event(self, event: pygame.event.Event) -> bool:
        t = event.type
        if self.review_ui_event(event):  # the photo review's panel
            return True
        if t == pygame_gui.UI_BUTTON_PRESSED:
            if self.settings_button(event.ui_element):
                return True
            for dialog in list(self._unsaved):
                choice = dialog.choice(event.ui_element)
                if choice is not None:
                    self.answer_unsaved(dialog, choice)
                    return True
            self._button(event.ui_element)
            return True
        if t == pygame_gui.UI_DROP_DOWN_MENU_CHANGED:
            if event.ui_element is self.ruleset_menu:
                self.ruleset_picked(event.text)
            elif event.ui_element is self.shape_menu:
                self.dispatch(SetNewShape(event.text))
            elif event.ui_element is self.demo_menu:
                path = SCENARIOS / f"{event.text}.toml"
                self._rebuild_dropdown("demo")
                if path.exists():
                    self.confirm_discard(lambda: self.open_file(str(path), as_demo=True), f"open the demo table {path.stem}")
            return True
        if t == pygame_gui.UI_TEXT_ENTRY_FINISHED:
            if event.ui_element is self.seed_entry:
                self.set_seed(self.seed_entry.get_text())
            elif event.ui_element is self.whatif_entry:
                self.set_what_if(self.whatif_entry.get_text())
            elif event.ui_element in self._fields.values():
                self.apply_inspector()
            else:
                self.photo_size_entered(event.ui_element, event.text)
            return True
        if t == pygame_gui.UI_FILE_DIALOG_PATH_PICKED:
            action = self._dialogs.pop(event.ui_element, None)
            if action is not None:
                action(event.text)
            return True
        if t == pygame_gui.UI_CONFIRMATION_DIALOG_CONFIRMED:
            pair = self._confirms.pop(event.ui_element, None)
            if pair is not None:
                pair[0]()
            return True
        if t == pygame_gui.UI_WINDOW_CLOSE:
            self.message_closed(event.ui_element)
            self._dialogs.pop(event.ui_element, None)
            self._unsaved.pop(event.ui_element, None)  # closed with its title bar's ×: Cancel
            pair = self._confirms.pop(event.ui_element, None)
            if pair is not None and pair[1] is not None:
                pair[1]()
            return True
        return False

    def _button(self, element: Any) -> None:
        for key, b in self.tool_buttons.items():
            if element is b:
                self.dispatch(SetTool(key))
                return
        actions: dict[str, Callable[[], Any]] = {
            "new": lambda: self.confirm_discard(self.new_table, "start a new table"),
            "open": self.ask_open,
            "save": self.save,
            "export": self.ask_export,
            "photo": self.ask_import_photo,
            "undo": lambda: self.dispatch(Undo()),
            "redo": lambda: self.dispatch(Redo()),
            "help": lambda: self.dispatch(ToggleView("show_help")),
            "fire": self.fire,
            "odds": self.toggle_odds,
            "dice_free": self.toggle_dice_free,
            "apply": self.apply_inspector,
            "delete": self.delete_selection,
        }
        for key, b in self.buttons.items():
            if element is b and key in actions:
                actions[key]()
                return

    def _key(self, event: pygame.event.Event) -> None:
        key, mod = event.key, getattr(event, "mod", 0)
        ctrl, shift = _ctrl(mod), _shift(mod)
        if self.tool.key(self, event):
            return
        if self.photo_key(event):
            return
        if ctrl:
            if key == pygame.K_d:
                self.duplicate_selection()
            elif key == pygame.K_z:
                self.dispatch(Redo() if shift else Undo())
            elif key == pygame.K_y:
                self.dispatch(Redo())
            elif key == pygame.K_s:
                self.ask_save_as() if shift else self.save()
            elif key == pygame.K_o:
                self.ask_open()
            elif key == pygame.K_e:
                self.ask_export()
            elif key == pygame.K_n:
                self.confirm_discard(self.new_table, "start a new table")
            elif key == pygame.K_q:
                self.request_quit()
            return
        if key == pygame.K_F1:
            self.dispatch(ToggleView("show_help"))
        elif key == pygame.K_F5:
            self.start_presenter()
        elif key == pygame.K_ESCAPE:
            if self.state.view.show_help:
                self.dispatch(ToggleView("show_help"))
            elif self.pan is not None:
                self.pan = None
            elif self.tool.cancel(self):
                self._refresh_widgets()
            elif self.state.tool != "select" or self.state.pending_attacker:
                self.dispatch(SetTool("select"))
            else:
                self.dispatch(Select(None))
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.fire()
        elif key in (pygame.K_DELETE, pygame.K_BACKSPACE):
            self.delete_selection()
        elif key == pygame.K_r:
            sel = self.state.selection
            if sel is not None and sel.kind == "template" and not self.state.also_selected:
                self.rotate_selected(-ROTATE_STEP_DEG if shift else ROTATE_STEP_DEG)
            elif sel is not None:
                # buildings and bases: R 15°, Shift+R 1° counter-clockwise; with Alt clockwise
                step = 1.0 if shift else ROTATE_STEP_DEG
                self.turn_selection(-step if _alt(mod) else step)
            else:
                self.rotate_selected(ROTATE_STEP_DEG)
        elif key in (pygame.K_f, pygame.K_HOME):
            if self.review is not None and self.photo_import is None:
                self.fit_beside_review_panel()  # the whole table beside the review's panel, above its legend
            else:
                self.fit()
        elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            self.viewport = self.viewport.zoomed(ZOOM_STEP**2, self.view_rect.center)
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            self.viewport = self.viewport.zoomed(1 / ZOOM_STEP**2, self.view_rect.center)
        elif key in _ARROWS and self.state.selected:
            # nudge the selection: 1 mm, Shift 0.1", Alt 0.1 mm; each press one undo step
            step = NUDGE_MM["shift" if shift else "alt" if _alt(mod) else "plain"]
            ux, uy = _ARROWS[key]
            self.nudge(ux * step, uy * step)
        elif key == pygame.K_LEFT:
            self.viewport = self.viewport.panned(PAN_STEP_PX, 0)
        elif key == pygame.K_RIGHT:
            self.viewport = self.viewport.panned(-PAN_STEP_PX, 0)
        elif key == pygame.K_UP:
            self.viewport = self.viewport.panned(0, PAN_STEP_PX)
        elif key == pygame.K_DOWN:
            self.viewport = self.viewport.panned(0, -PAN_STEP_PX)
        elif key == pygame.K_g:
            self.dispatch(ToggleView("show_grid"))
        elif key == pygame.K_n:
            self.dispatch(ToggleView("show_names"))
        elif key == pygame.K_v:
            self.dispatch(ToggleView("show_visibility"))
        elif key == pygame.K_l:
            self.dispatch(ToggleView("show_loupe"))
        elif key == pygame.K_k:
            self.dispatch(ToggleView("show_legend"))
        elif key == pygame.K_o:
            self.toggle_dice_free() if shift else self.toggle_odds()
        elif key == pygame.K_e:
            self.dispatch(ToggleView("show_elevation"))
        elif key == pygame.K_b and shift:  # plain B is the photo backdrop
            self.dispatch(ToggleView("palette_cb"))
        elif pygame.K_1 <= key <= pygame.K_9 and _alt(mod):
            self.base_preset(key - pygame.K_1)
        elif pygame.K_1 <= key < pygame.K_1 + len(TOOL_BUTTONS):
            self.dispatch(SetTool(TOOL_BUTTONS[key - pygame.K_1][0]))

    # ------------------------------------------------------------------ the table under the mouse

    def next_gesture(self) -> int:
        """A fresh id grouping one gesture's commands into one undo step."""
        self._gesture += 1
        return self._gesture

    def slack_mm(self) -> float:
        """How far (mm) a click may miss a base and still pick it: 3 px."""
        return self.viewport.length_to_world(3)

    def label_owner(self, screen: tuple[int, int]) -> str | None:
        """The model whose label (its name, a badge) the last frame drew at ``screen`` (pixels): a press there picks it."""
        frame = getattr(self, "_frame", None)
        if frame is None or not self.scenario.models:
            return None
        owner = frame.owner_at(*screen)
        return owner if owner is not None and any(m.id == owner for m in self.scenario.models) else None

    def start_pan(self, at: Pointer) -> None:
        """Drag the table under the mouse until ``at.button`` comes up."""
        self.pan = (at.button, at.world)

    def _pan_to(self, pos: tuple[int, int]) -> None:
        assert self.pan is not None
        held = self.viewport.to_screen(*self.pan[1])
        self.viewport = self.viewport.panned(pos[0] - held[0], pos[1] - held[1])

    def _table_mouse(self, event: pygame.event.Event) -> None:
        if event.type == pygame.MOUSEWHEEL:
            self._wheel(event)
            return
        pos = event.pos
        world = self.viewport.to_world(*pos)
        at = Pointer(world, pos, getattr(event, "button", 1), pygame.key.get_mods())
        tool = self.tool
        if event.type == pygame.MOUSEMOTION:
            self.mouse_world = world
            if self.pan is not None:
                self._pan_to(pos)
            elif tool.busy:
                tool.drag(self, at)
            else:
                self._hover(world)
                tool.hover(self, at)
            return
        if event.type == pygame.MOUSEBUTTONDOWN:
            if not self.view_rect.collidepoint(pos):
                return
            self.mouse_screen = pos
            self.mouse_world = world
            if event.button in (2, 3):
                self.start_pan(at)
            elif event.button == 1:
                tool.press(self, at)
            return
        if event.type == pygame.MOUSEBUTTONUP:
            if self.pan is not None and event.button == self.pan[0]:
                self._pan_to(pos)
                self.pan = None
                self._refresh_widgets()
            elif tool.busy and event.button == 1:
                g = tool.gesture
                moving = (g is not None and g.kind in FOLLOWS_POINTER and g.undo_group is not None
                          and self.state.history.gesture == g.undo_group)
                if moving and not self.view_rect.collidepoint(pos):
                    # Let go over the panels or outside the window (SDL reports the release there): what was dragged
                    # would land where nobody sees it, off the table; the drag is taken back, as Esc takes it back. (A
                    # turn or an aim follows the pointer's direction, not its place: let go anywhere.)
                    tool.cancel(self)
                    self.flash("Let go outside the table: the move is taken back (drop it on the table to move it)")
                else:
                    tool.drag(self, at)
                    tool.release(self, at)
                self._refresh_widgets()

    def _hover(self, world: Point) -> None:
        if not self.view_rect.collidepoint(self.mouse_screen or (-1, -1)):
            self.hovered = None
            return
        m = model_at(self.scenario, world[0], world[1], self.slack_mm())
        if m is not None:
            self.hovered = Ref("model", m.id)
            return
        self.hovered = item_at(self.scenario, self.placed(), world[0], world[1], 0.0)

    def _wheel(self, event: pygame.event.Event) -> None:
        pos = self.mouse_screen or self.view_rect.center
        if not self.view_rect.collidepoint(pos):
            return
        mod = getattr(event, "mod", None)
        if mod is None:
            mod = pygame.key.get_mods()
        steps = event.y if event.y else 0
        if not steps:
            return
        if _ctrl(mod):
            sel = self.state.selection
            if sel is not None and sel.kind == "template":
                now = self._now
                g = self._wheel_gesture
                if g is None or g[1] != sel.id or now - g[2] > 0.8 or self.state.history.gesture != g[0]:
                    g = (self.next_gesture(), sel.id, now)
                self._wheel_gesture = (g[0], sel.id, now)
                self.rotate_selected(WHEEL_ROTATE_DEG * steps, g[0])
            return
        self.viewport = self.viewport.zoomed(ZOOM_STEP**steps, pos)

    # ------------------------------------------------------------------ actions


def _ctrl(mod: int) -> bool:
    return bool(mod & (pygame.KMOD_CTRL | pygame.KMOD_META))


def _shift(mod: int) -> bool:
    return bool(mod & pygame.KMOD_SHIFT)


def _alt(mod: int) -> bool:
    return bool(mod & pygame.KMOD_ALT)


_ARROWS = {pygame.K_LEFT: (-1, 0), pygame.K_RIGHT: (1, 0), pygame.K_UP: (0, 1), pygame.K_DOWN: (0, -1)}
