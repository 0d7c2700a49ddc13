"""The status bar under the table: pointer, zoom, counts, timings, odds progress, messages."""

from __future__ import annotations


import pygame

from tabletop.draw import status_colour

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
            return f"{SPINNER[int(waited * 8) % len(SPINNER)]} odds… {waited:.1f} s"
        if w.error:
            return "odds failed: " + w.error[:60]
        return "odds ready" if w.result is not None else ""

    def _draw_status(self, surface: pygame.Surface) -> None:
        w, h = self.size
        bar = pygame.Rect(0, h - STATUS_H, w, STATUS_H)
        surface.fill((18, 20, 24), bar)
        pygame.draw.line(surface, (60, 66, 76), bar.topleft, bar.topright)
        parts: list[str] = []
        if self.mouse_world is not None and self.view_rect.collidepoint(self.mouse_screen or (-1, -1)):
            x, y = self.mouse_world
            parts.append(f"x {x / 25.4:6.2f}\"  y {y / 25.4:6.2f}\"")
        parts.append(f"{self.viewport.scale * 25.4:.0f} px/in")
        s = self.scenario
        parts.append(f"{s.ruleset} · {len(s.models)} models · {len(s.terrain)} terrain · {len(s.templates)} templates")
        parts.append(f"live {self.live.stats.last_ms:.1f} ms · frame {self.frame_ms:.1f} ms")
        odds = self.odds_status()
        if odds:
            parts.append(odds)
        if self.state.dirty:
            parts.append("unsaved")
        left = overlays.text(surface, "   |   ".join(parts), (10, bar.centery), (200, 205, 212), 17, "midleft")
        x = left.right + 24
        key_right = x
        show_message = bool(self.message) and self._now < self._message_until
        if not self.state.view.show_legend and not show_message:
            # The key's entries that fit the bar, in order: a narrow window shows fewer, never half of one.
            key_font = overlays.font(15)
            for status, word in (("affected", "affected"), ("total_cover", "total cover"), ("outside", "outside"), ("user", "attacker"), ("contested", "contested (K: legend)")):
                if x + 17 + key_font.size(word)[0] > w - 6:
                    break
                if status == "contested":
                    pygame.draw.circle(surface, (255, 255, 255), (x + 6, bar.centery), 7, 1)
                else:
                    pygame.draw.circle(surface, status_colour(status), (x + 6, bar.centery), 6)
                key_right = overlays.text(surface, word, (x + 16, bar.centery), (170, 176, 184), 15, "midleft").right
                x = key_right + 14
        if show_message:
            colour = (255, 120, 100) if self.message_is_error else (150, 220, 150)
            overlays.text(surface, self.message, (key_right + 24, bar.centery), colour, 17, "midleft")
