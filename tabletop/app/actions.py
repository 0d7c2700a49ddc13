"""What the toolbar, the panel and the shortcuts do to the table (besides files)."""

from __future__ import annotations

import html
from dataclasses import replace
from pathlib import Path

from tabletop import rulesets
from tabletop.adjudicate import Adjudication, AdjudicationError, adjudicate
from tabletop.model import At, Direct, PlacedTemplate

from .commands import SetSettings
from .elevation import ElevationProfile, elevation_profile, has_side_view
from .firing import Firing
from .live import placed_templates
from .odds_worker import OddsRequest
from .rules_menu import SettingsWindow, option_meaning
from .state import (
    DeleteItem,
    RotateTemplate,
    SetRuleset,
    SetSeed,
    SetWhatIf,
    ToggleView,
    format_numbers,
    parse_numbers,
    template_heading,
)
from .validate import check_seed


class ActionsMixin:
    """Part of ``TabletopApp``: rotate, odds, side view, delete, ruleset, seed, what-if, Fire."""

    def rotate_selected(self, delta_deg: float, gesture: int | None = None) -> None:
        sel = self.state.selection
        if sel is None or sel.kind != "template":
            self.flash("Select a template to rotate it")
            return
        t = self.scenario.template(sel.id)
        if not isinstance(t.placement, (At, Direct)):
            self.flash("This template follows its line of fire: move the attacker or the aim point")
            return
        self.dispatch(RotateTemplate(sel.id, template_heading(self.scenario, t) + delta_deg, gesture))

    def toggle_odds(self) -> None:
        """Odds on or off; off forgets the result (the worker process stays for the next time)."""
        self.dispatch(ToggleView("show_odds"))
        if not self.state.view.show_odds:
            self.odds_worker.cancel()
            self.odds_worker.poll(self._now)  # a busy worker is told now: it gives the job up at its next template
        self._refresh_widgets()
        if not self.state.view.show_odds:
            self.flash("Odds off")
        elif self.message.startswith("Odds off"):
            self.message = ""  # the status bar's odds part says what the odds are doing (odds… 0.4 s, odds ready)

    def toggle_dice_free(self) -> None:
        """Dice free on: Fire and the odds roll every die, setting the file's fixed rolls aside.

        Off: both use the file's fixed rolls (a bundled table's worked example). The live view
        always shows the table as its file says; typed what-if rolls count either way.
        """
        self.dispatch(ToggleView("odds_dice_free"))
        self._refresh_widgets()
        self._refresh_results(force=True)
        free = self.state.view.odds_dice_free
        self.flash(
            "Dice free: Fire and the odds roll every die (the file's fixed rolls are set aside)"
            if free
            else "Fixed rolls: Fire and the odds use the file's fixed rolls"
        )

    def odds_request(self) -> OddsRequest:
        """What the odds overlay wants computed now."""
        return OddsRequest(self.scenario, self.state.seed, self.state.view.odds_dice_free)

    def elevation(self) -> ElevationProfile | None:
        """The side view of the selected template (rulesets with one), cached per resolution."""
        sel = self.state.selection
        if sel is None or sel.kind != "template" or not has_side_view(self.scenario.ruleset):
            return None
        adj = self.adjudication()  # as drawn: after a Fire, where the template landed
        result = next((r for r in adj.results if r.template.id == sel.id), None)
        if result is None:
            return None
        if self._elevation is not None and self._elevation[0] is result:
            return self._elevation[1]
        try:
            profile: ElevationProfile | None = elevation_profile(self.scenario, result, adj.settings)
        except Exception as exc:  # noqa: BLE001 - a drawing aid must not take the editor down
            self.flash(f"side view: {exc}", error=True)
            profile = None
        self._elevation = (result, profile)
        return profile

    def delete_selection(self) -> None:
        sel = self.state.selection
        if sel is None:
            return
        if self.tool.busy:  # mid-drag: the gesture ends first, or its release would move what is gone ("no item 'p1'")
            self.tool.cancel(self)
        if self.dispatch(DeleteItem(sel)):
            self.flash(f"Deleted {sel.kind} {sel.id} (Ctrl+Z brings it back)")

    def ruleset_picked(self, text: str) -> None:
        """The Ruleset drop-down: a ruleset, the rules file in use, "Open rules file…" or "Settings…"."""
        what, name = option_meaning(text, self.scenario.ruleset)
        if what == "set":
            self.set_ruleset(name)
            return
        self._rebuild_dropdown("ruleset")  # an action, not a choice: the menu shows the ruleset in use again
        if what == "open":
            start = str(Path(self.state.path).parent) if self.state.path else None
            self._file_dialog("Open rules file (*.rules.toml)", self.open_rules_file, start, True, {".toml"})
        elif what == "settings":
            self.open_settings()

    def open_rules_file(self, path: str) -> bool:
        """Put the table under the rules file at ``path``; a file with mistakes is shown, each with its line."""
        from tabletop import rulesfile

        try:
            ruleset = rulesfile.ruleset_for(path)
        except rulesfile.RulesFileError as exc:
            self.show_problems(f"Rules file {Path(path).name}: {len(exc.problems)} problem(s)", exc.problems)
            return False
        if not self.dispatch(SetRuleset(ruleset.name)):
            return False
        self.flash(f"Ruleset: {ruleset.title} ({Path(path).name})")
        return True

    def open_settings(self) -> None:
        """The ruleset's settings in a window (Apply sets the table's [settings])."""
        declared = rulesets.get(self.scenario.ruleset).settings
        window = SettingsWindow(self._dialog_rect(560, SettingsWindow.height_for(len(declared))), self.ui, self.scenario.ruleset, self.adjudication().settings)
        self.settings_window = window
        self._messages.append(window)

    def settings_button(self, element: object) -> bool:
        """Apply or Cancel of the settings window; whether ``element`` was one of them."""
        window = getattr(self, "settings_window", None)
        if window is None or not window.alive() or element not in (window.apply_button, window.cancel_button):
            return False
        if element is window.apply_button:
            from tabletop.settings import SettingError, parse_pairs

            ruleset = rulesets.get(window.ruleset_name)
            try:
                values = parse_pairs(window.pairs(), ruleset.settings, ruleset.name)
            except SettingError as exc:
                self.flash(f"Not applied: {exc}", error=True)
                return True
            if self.dispatch(SetSettings(values)):
                self.flash("Settings applied (Ctrl+Z undoes them)")
        window.kill()
        self.settings_window = None
        return True

    def set_ruleset(self, name: str) -> None:
        try:
            rulesets.get(name)
        except Exception as exc:  # noqa: BLE001 - a ruleset module still being written
            self.flash(f"Ruleset {name} is not available: {exc}", error=True)
            self._rebuild_dropdown("ruleset")
            return
        self.dispatch(SetRuleset(name))
        self.flash(f"Ruleset: {rulesets.get(name).title}")

    def set_seed(self, text: str) -> bool:
        """The seed typed in the Seed box; a bad one is refused with the reason."""
        try:
            seed = check_seed(text)
        except ValueError as exc:
            self.flash(str(exc), error=True)
            return False
        self.dispatch(SetSeed(seed))
        self.live.seed = self.state.seed
        self.flash(f"Seed {self.state.seed}")
        return True

    def set_what_if(self, text: str) -> bool:
        try:
            rolls = parse_numbers(text)
        except ValueError as exc:
            self.flash(f"What-if rolls: {exc}", error=True)
            return False
        self.dispatch(SetWhatIf(rolls))
        self.flash("What-if rolls: " + (format_numbers(rolls) or "none (seeded dice)"))
        return True

    def fire(self) -> Adjudication | None:
        """Resolve every template with the seeded dice (and what-if rolls), then animate it.

        With Dice free on (the default, as for the odds) the file's fixed rolls are set aside.
        """
        s = self.scenario
        if self.state.view.odds_dice_free:  # as the Dice free button shows: the file's fixed rolls set aside
            s = replace(s, templates=tuple(replace(t, rolls={}) for t in s.templates))
        if self.state.what_if:
            s = replace(s, templates=tuple(replace(t, rolls={**t.rolls, **self.state.what_if}) for t in s.templates))
        try:
            adj = adjudicate(s, seed=self.state.seed, geometry=self.live.geometry(self.scenario))
        except (AdjudicationError, ValueError) as exc:
            self.show_message("Cannot resolve", html.escape(str(exc)))
            return None
        adj = replace(adj, scenario=self.scenario)
        live = self.placed()  # the animation starts where the template is drawn now
        keyframes: list[tuple[str, PlacedTemplate, PlacedTemplate, str]] = []
        for r in adj.results:
            current = live.get(r.template.id, r.resolution.placed)
            for step in r.resolution.steps:
                if step.placed is not None:
                    keyframes.append((r.template.id, current, step.placed, step.text))
                    current = step.placed
            if current != r.resolution.placed:
                keyframes.append((r.template.id, current, r.resolution.placed, f"{r.template.id}: final position"))
        self.firing = Firing(adj, keyframes, dice_free=self.state.view.odds_dice_free, what_if=dict(self.state.what_if))
        affected = sorted({i for r in adj.results for i in r.resolution.affected})
        self.flash(f"Fired {len(adj.results)} template(s): {len(affected)} model(s) affected")
        self._refresh_results(force=True)
        return adj
