"""The status bar under the table: pointer, zoom, counts, timings, odds progress, messages."""

from __future__ import annotations

from collections.abc import Callable

import pygame

from tabletop.units import format_length

from tabletop.draw import status_colour
from tabletop.draw.checks import badge
from tabletop.model import CHECK_TAG

from . import overlays
from .layout import STATUS_H, SPINNER


class StatusBarMixin:
    """Part of ``TabletopApp``."""

    def odds_status(self) -> str:
        """The status bar's odds note: a spinner with the time waited, an error, or ready."""
        if not self.state.view.show_odds:
            return ""
        w = self.odds_worker
        if w.pending:
            waited = w.waiting_s(self._now)
            done = f" {w.progress[0]}/{w.progress[1]} templates" if w.progress is not None and w.progress[1] > 1 else ""
            # A table of many slow templates takes a while: say how far, and how to stop it (Odds off).
            stop = " · O stops" if waited >= 1.0 else ""
            return f"{SPINNER[int(waited * 8) % len(SPINNER)]} odds{done}… {waited:.1f} s{stop}"
        if w.error:
            return "odds failed: " + w.error[:60]
        return "odds ready" if w.result is not None else ""

    def odds_fraction(self) -> float | None:
        """How far the odds being computed are (templates done / templates), None when none are."""
        w = self.odds_worker
        if not self.state.view.show_odds or not w.pending or w.progress is None or w.progress[1] <= 0:
            return None
        return min(1.0, w.progress[0] / w.progress[1])

    def _status_parts(self) -> list[tuple[int, str]]:
        """The status bar's parts, each with its rank: a message needing room drops the highest ranks first."""
        parts: list[tuple[int, str]] = []
        if self.mouse_world is not None and self.view_rect.collidepoint(self.mouse_screen or (-1, -1)):
            x, y = self.mouse_world
            parts.append((3, f"x {format_length(x, self.scenario.units)}  y {format_length(y, self.scenario.units)}"))
        parts.append((4, f"{self.viewport.scale * 25.4:.0f} px/in"))
        s = self.scenario
        parts.append((2, f"{s.ruleset} · {len(s.models)} models · {len(s.terrain)} terrain · {len(s.templates)} templates"))
        parts.append((5, f"live {self.live.stats.last_ms:.1f} ms · frame {self.frame_ms:.1f} ms"))
        odds = self.odds_status()
        if odds:
            parts.append((1, odds))
        if self.state.dirty:
            parts.append((0, "unsaved"))
        return parts

    def _draw_status(self, surface: pygame.Surface) -> None:
        w, h = self.size
        bar = pygame.Rect(0, h - STATUS_H, w, STATUS_H)
        surface.fill((18, 20, 24), bar)
        pygame.draw.line(surface, (60, 66, 76), bar.topleft, bar.topright)
        show_message = bool(self.message) and self._now < self._message_until
        bar_font = overlays.font(17)
        sep = "   |   "
        parts = self._status_parts()
        message_w = bar_font.size(self.message)[0] + 24 if show_message else 0
        # A message takes the room it needs: the parts that matter least give theirs up, one by one.
        while show_message and len(parts) > 1 and 10 + bar_font.size(sep.join(p for _, p in parts))[0] + message_w > w - 6:
            parts.remove(max(parts, key=lambda p: p[0]))
        left = overlays.text(surface, sep.join(p for _, p in parts), (10, bar.centery), (200, 205, 212), 17, "midleft")
        fraction = self.odds_fraction()
        if fraction is not None:  # the odds' progress bar, along the top of the status bar
            pygame.draw.line(surface, (40, 46, 56), (bar.left, bar.top + 1), (bar.right, bar.top + 1), 3)
            pygame.draw.line(surface, (120, 170, 235), (bar.left, bar.top + 1), (bar.left + round(bar.width * fraction), bar.top + 1), 3)
        x = left.right + 24
        key_right = x
        if not self.state.view.show_legend and not show_message:
            # The key's entries that fit the bar, in order: a narrow window shows fewer, never half of one.
            key_font = overlays.font(15)
            entries = [("affected", "affected"), ("total_cover", "total cover"), ("outside", "outside"), ("user", "attacker"), ("contested", "contested (K: legend)")]
            if any(CHECK_TAG in m.tags for m in self.scenario.models):
                entries.insert(0, ("check", "to check"))  # the mark the table needs explained first
            for status, word in entries:
                if x + 17 + key_font.size(word)[0] > w - 6:
                    break
                if status == "check":
                    badge(surface, (x + 6, bar.centery))
                elif status == "contested":
                    pygame.draw.circle(surface, (255, 255, 255), (x + 6, bar.centery), 7, 1)
                else:
                    pygame.draw.circle(surface, status_colour(status), (x + 6, bar.centery), 6)
                key_right = overlays.text(surface, word, (x + 16, bar.centery), (170, 176, 184), 15, "midleft").right
                x = key_right + 14
        if show_message:
            colour = (255, 120, 100) if self.message_is_error else (150, 220, 150)
            room = w - 6 - (key_right + 24)
            if bar_font.size(self.message)[0] <= room:
                overlays.text(surface, self.message, (key_right + 24, bar.centery), colour, 17, "midleft")
            else:
                # Too long for the bar even alone: the whole message, wrapped, in a box just above it.
                self._draw_long_message(surface, bar, colour)

    def _draw_long_message(self, surface: pygame.Surface, bar: pygame.Rect, colour: tuple[int, int, int]) -> None:
        f = overlays.font(17)
        width = max(200, bar.width - 24)
        lines = wrap_words(self.message, lambda t: f.size(t)[0], width - 16)
        line_h = f.get_linesize()
        box = pygame.Rect(bar.left + 6, bar.top - 8 - line_h * len(lines) - 8, width, line_h * len(lines) + 8)
        surface.fill((18, 20, 24), box)
        pygame.draw.rect(surface, colour, box, 1)
        for i, line in enumerate(lines):
            overlays.text(surface, line, (box.left + 8, box.top + 4 + i * line_h), colour, 17)


def wrap_words(text: str, width_of: Callable[[str], int], width: int) -> list[str]:
    """``text`` in lines no wider than ``width`` (by ``width_of``), broken between words; a word wider
    than a line is cut where it must be."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if width_of(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while width_of(word) > width and len(word) > 1:
            cut = len(word)
            while cut > 1 and width_of(word[:cut]) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(line)
    return lines
