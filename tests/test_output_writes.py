"""Every output a command writes notices a full disk, never lands on an input, and takes any legal name.

Found by a hostile trial (issue 37, items 5, 6, 7 and 12): ``render -o`` on a full disk left a
0-byte PNG and said "wrote"; ``--layout-json`` was written in place; an output swapped during the
work for a link to the scenario had the picture written over the scenario; a link's target chose
the image format; a 300-byte name crashed and a legal 250-byte one was refused because the temp
name beside it was longer.

A full disk is tested twice: on a real 64 KiB tmpfs (needs the right to mount, as root in the
sandbox or CI container; skipped elsewhere) and by injecting ENOSPC into the writer's ``open`` and
a silent failure into pygame's file writer (as SDL's writer on a full disk: no error at all).
"""

from __future__ import annotations

import ast
import errno
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop import atomic, cli

from .conftest import ROOT, SCENARIOS
from .faults import FullDisk

DEFAULT = SCENARIOS / "default.toml"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "d.toml"
    shutil.copy(DEFAULT, path)
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --------------------------------------------------------------------------- a full disk, for real


def _fill(folder: Path) -> None:
    """Fill the file system of ``folder`` to the last byte."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for chunk in (4096, 1):
            while True:
                try:
                    os.write(fd, b"\0" * chunk)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC
                    break
    finally:
        os.close(fd)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (skipped where mounting is not allowed)."""
    if not sys.platform.startswith("linux") or shutil.which("mount") is None:
        pytest.skip("a tmpfs needs Linux and mount")
    folder = tmp_path / "small"
    folder.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_render_on_a_real_full_disk_exits_2_and_keeps_the_old_png(small_disk: Path, table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = small_disk / "prev.png"
    assert _run(["render", table, "-o", out, "--size", "200x150"], capsys)[0] == 0
    old = out.read_bytes()
    _fill(small_disk)
    code, stdout, err = _run(["render", table, "-o", out, "--size", "1600x1000"], capsys)
    assert code == 2 and "wrote" not in stdout
    assert f"{out}: cannot write: No space left on device" in err
    assert out.read_bytes() == old
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "prev.png"]  # no temp file left


def test_layout_json_on_a_real_full_disk_is_kept_and_named(small_disk: Path, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layout = small_disk / "l.json"
    layout.write_text('{"old": true}\n' * 40)
    old = layout.read_bytes()
    _fill(small_disk)
    code, _, err = _run(["render", table, "-o", tmp_path / "v.png", "--size", "400x300", "--layout-json", layout], capsys)
    assert code == 2 and f"{layout}: cannot write" in err and "v.png" not in err
    assert layout.read_bytes() == old


# --------------------------------------------------------------------------- a full disk, injected


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write through Python fails with ENOSPC part-way, and pygame writing a file itself fails
    silently (an empty file, no error) as SDL's writer does on a full disk."""
    import pygame

    real_open, real_save = open, pygame.image.save

    def opener(path: Any, mode: str = "r", *a: Any, **k: Any) -> Any:
        return FullDisk(path, mode) if "w" in mode else real_open(path, mode, *a, **k)

    def save(surface: Any, target: Any, *a: Any, **k: Any) -> None:
        if isinstance(target, (str, os.PathLike)):
            Path(target).write_bytes(b"")
            return
        real_save(surface, target, *a, **k)

    monkeypatch.setattr(atomic, "open", opener, raising=False)
    monkeypatch.setattr(pygame.image, "save", save)


@pytest.mark.parametrize("extra", [[], ["--layout-json", "{d}/l.json"]], ids=["png", "png+layout"])
def test_render_on_a_full_disk_exits_2_and_leaves_every_old_file_byte_identical(
    extra: list[str], table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], full_disk: None
) -> None:
    out, layout = tmp_path / "prev.png", tmp_path / "l.json"
    out.write_bytes(PNG_SIGNATURE + b"old picture")
    layout.write_text('{"old": true}\n')
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, stdout, err = _run(["render", table, "-o", out, "--size", "300x200", *[e.format(d=tmp_path) for e in extra]], capsys)
    assert code == 2 and "wrote" not in stdout and "No space left on device" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_layout_json_on_a_full_disk_is_named_and_kept(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The PNG can be written, the layout cannot: the error names the layout, whose old bytes stay."""
    layout = tmp_path / "l.json"
    layout.write_text('{"old": true}\n')

    def opener(path: Any, mode: str = "r", *a: Any, **k: Any) -> Any:
        return _JsonFull(path, mode) if "w" in mode else open(path, mode, *a, **k)

    monkeypatch.setattr(atomic, "open", opener, raising=False)
    monkeypatch.setattr(Path, "write_text", lambda self, *a, **k: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device")))
    code, _, err = _run(["render", table, "-o", tmp_path / "v.png", "--size", "300x200", "--layout-json", layout], capsys)
    assert code == 2 and f"{layout}: cannot write: No space left on device" in err and "v.png" not in err
    assert layout.read_text() == '{"old": true}\n'


class _JsonFull(FullDisk):
    """Full only for what is not a PNG."""

    def write(self, data: Any) -> int:
        if bytes(data[:8]) == PNG_SIGNATURE:
            return self._f.write(bytes(data))
        return super().write(data)


def test_a_short_write_that_reports_no_error_is_caught_by_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.png"
    target.write_bytes(b"old")

    class Short(FullDisk):
        def write(self, data: Any) -> int:
            self._f.write(bytes(data)[:10])
            self._f.flush()
            return len(data)  # says all went, as a broken network file system may

    monkeypatch.setattr(atomic, "open", lambda path, mode="r", *a, **k: Short(path, mode) if "w" in mode else open(path, mode, *a, **k), raising=False)
    with pytest.raises(atomic.OutputError, match=r"only 10 of 1000 bytes written"):
        atomic.atomic_write(target, b"x" * 1000)
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["a.png"]


@pytest.mark.parametrize("command", ["explain", "animate", "photo-scenario"])
def test_other_outputs_on_a_full_disk_exit_2_and_keep_the_old_file(
    command: str, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], full_disk: None
) -> None:
    if command == "photo-scenario":
        from tabletop.photo.cli import write_scenario
        from tabletop.photo.values import PhotoResult

        out = tmp_path / "p.toml"
        out.write_text("old = 1\n")
        result = PhotoResult(path=str(tmp_path / "p.jpg"), image_size=(100, 100), table_mm=(500.0, 500.0), corners_px=((0, 99), (99, 99), (99, 0), (0, 0)),
                             corners_given=True, table_confidence=1.0, calibration_rms_mm=0.1, bases=(), notes=(), mm_per_px=5.0)
        with pytest.raises(OSError, match="No space left"):
            write_scenario(result, out)
        assert out.read_text() == "old = 1\n"
        return
    out = tmp_path / ("e.md" if command == "explain" else "a.gif")
    out.write_bytes(b"old")
    argv = [command, table, "-o", out] + (["--width", "200"] if command == "animate" else [])
    code, stdout, err = _run(argv, capsys)
    assert code == 2 and "wrote" not in stdout and "No space left on device" in err
    assert out.read_bytes() == b"old"


# --------------------------------------------------------------------------- one writer, found by reading the code


_WRITING_CALLS = {
    "write_text", "write_bytes", "imwrite", "savetxt", "savez", "savez_compressed", "tofile",
    "copy", "copy2", "copyfile", "copyfileobj", "move", "rename", "replace", "link", "symlink",
}
_WRITING_DUMPS = {("json", "dump"), ("tomli_w", "dump"), ("pickle", "dump"), ("np", "save"), ("numpy", "save")}


def _bytesio_names(scope: ast.AST) -> set[str]:
    """Names bound to an in-memory buffer (``x = io.BytesIO()`` / ``with io.BytesIO() as x``) in ``scope``."""
    names: set[str] = set()

    def is_buffer(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Attribute) and node.func.attr in ("BytesIO", "StringIO"))
            or (isinstance(node.func, ast.Name) and node.func.id in ("BytesIO", "StringIO"))
        )

    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and is_buffer(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.withitem) and is_buffer(node.context_expr) and isinstance(node.optional_vars, ast.Name):
            names.add(node.optional_vars.id)
    return names


def _is_write_mode(call: ast.Call) -> bool:
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and any(c in mode.value for c in "wax+")


def _writes_outside_the_atomic_writer(source: str, name: str) -> list[str]:
    """Every call in ``source`` that writes a file itself instead of through ``tabletop.atomic``."""
    tree = ast.parse(source)
    found: list[str] = []
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] or [tree]
    buffers_of: dict[int, set[str]] = {}
    for scope in [tree, *scopes]:
        buffer_names = _bytesio_names(scope)
        for node in ast.walk(scope):
            buffers_of.setdefault(id(node), set()).update(buffer_names)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        attr = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        where = f"{name}:{node.lineno}"
        buffers = buffers_of.get(id(node), set())
        if attr == "open" and owner not in ("os", "Image", "tarfile", "zipfile", "webbrowser") and _is_write_mode(node):
            found.append(f"{where}: open(..., {ast.unparse(node.args[1]) if len(node.args) > 1 else 'mode=...'})")
        elif attr == "open" and owner == "os" and any(flag in ast.unparse(node) for flag in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC")):
            found.append(f"{where}: os.open for writing")
        elif attr in _WRITING_CALLS and owner not in ("str", "text", "name", "self") and not (attr == "replace" and owner != "os"):
            if attr in ("copy", "move") and owner != "shutil":
                continue  # dict.copy, list.copy, surface.copy
            if attr in ("rename", "link", "symlink") and owner not in ("os", "shutil"):
                continue
            found.append(f"{where}: {ast.unparse(func)}(...)")
        elif (owner, attr) in _WRITING_DUMPS:
            found.append(f"{where}: {owner}.{attr}(...)")
        elif attr == "save" and isinstance(func, ast.Attribute):
            # pygame.image.save(surface, target, ...) and a Pillow image's save(target, "FORMAT", ...).
            pygame_save = ast.unparse(func.value).endswith("pygame.image")
            pil_save = len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
            target = node.args[1] if pygame_save and len(node.args) > 1 else node.args[0] if pil_save else None
            if (pygame_save or pil_save) and not (isinstance(target, ast.Name) and target.id in buffers):
                found.append(f"{where}: {ast.unparse(node)[:80]} (not to an in-memory buffer)")
    return found


def test_the_scanner_finds_each_kind_of_direct_write() -> None:
    bad = '''
def a(p, surface, image, data):
    p.write_text("x")
    Path(p).write_bytes(b"x")
    with open(p, "w") as f: f.write("x")
    open(p, mode="ab")
    pygame.image.save(surface, str(p))
    image.save(p, "PNG")
    json.dump(data, f)
    os.replace(p, p)
    shutil.copy(p, p)
    os.open(p, os.O_WRONLY | os.O_CREAT)
'''
    good = '''
def b(p, surface, image, d):
    out = io.BytesIO()
    pygame.image.save(surface, out, "x.png")
    image.save(out, "GIF", save_all=True)
    with open(p, "rb") as f: f.read()
    os.open(p, os.O_RDONLY)
    d.copy(); surface.copy(); text.replace("a", "b")
    atomic_write(p, out.getvalue())
'''
    assert len(_writes_outside_the_atomic_writer(bad, "bad.py")) == 10
    assert _writes_outside_the_atomic_writer(good, "good.py") == []


#: Writes that are not outputs, each with why (matched by file and kind, not line).
NOT_OUTPUTS = {
    ("tabletop/app/autosave.py", "os.open for writing"): "a session's lock file: created empty and locked, never written",
}


def test_every_output_in_the_package_goes_through_the_one_atomic_writer() -> None:
    """No module but ``tabletop/atomic.py`` opens a file for writing, writes text or bytes to a path, lets an
    encoder write a file, or renames one: a full disk or a crash must never leave an output half-written."""
    package = ROOT / "tabletop"
    found = []
    for path in sorted(package.rglob("*.py")):
        if path == package / "atomic.py":
            continue
        name = path.relative_to(ROOT).as_posix()
        for hit in _writes_outside_the_atomic_writer(path.read_text(encoding="utf-8"), name):
            if (name, hit.split(": ", 1)[1]) not in NOT_OUTPUTS:
                found.append(hit)
    assert found == []


# --------------------------------------------------------------------------- checked at write time


@pytest.mark.parametrize("command", ["render", "render-svg", "explain", "animate"])
def test_an_output_swapped_during_the_work_for_a_link_to_the_input_is_refused(
    command: str, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / {"render": "o.png", "render-svg": "o.svg", "explain": "o.md", "animate": "o.gif"}[command]
    before = table.read_bytes()
    real = cli._adjudicate

    def swap_then_adjudicate(args: Any, scenario: Any) -> Any:
        out.unlink(missing_ok=True)
        out.symlink_to(table)  # after the first check, before the file is written
        return real(args, scenario)

    monkeypatch.setattr(cli, "_adjudicate", swap_then_adjudicate)
    argv = {"render": ["render", table, "-o", out, "--size", "200x150"], "render-svg": ["render", table, "-o", out],
            "explain": ["explain", table, "-o", out], "animate": ["animate", table, "-o", out, "--width", "200"]}[command]
    code, stdout, err = _run(argv, capsys)
    assert code == 2 and "own input" in err and "wrote" not in stdout
    assert table.read_bytes() == before and out.is_symlink()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left


def test_a_layout_swapped_for_a_link_to_the_png_during_the_work_is_refused(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, layout = tmp_path / "o.png", tmp_path / "l.json"
    real = cli._adjudicate

    def swap_then_adjudicate(args: Any, scenario: Any) -> Any:
        layout.symlink_to(out)
        return real(args, scenario)

    monkeypatch.setattr(cli, "_adjudicate", swap_then_adjudicate)
    code, _, err = _run(["render", table, "-o", out, "--size", "200x150", "--layout-json", layout], capsys)
    assert code == 2 and f"{layout}: is the command's own input {out}" in err
    assert out.read_bytes().startswith(PNG_SIGNATURE)


def test_the_photo_scenario_is_never_written_over_the_photo_even_if_the_name_becomes_a_link_to_it(tmp_path: Path) -> None:
    from tabletop.photo.cli import write_scenario
    from tabletop.photo.values import PhotoResult

    photo = tmp_path / "p.jpg"
    photo.write_bytes(b"\xff\xd8 a photo")
    out = tmp_path / "p.toml"
    out.symlink_to(photo)
    result = PhotoResult(path=str(photo), image_size=(100, 100), table_mm=(500.0, 500.0), corners_px=((0, 99), (99, 99), (99, 0), (0, 0)),
                         corners_given=True, table_confidence=1.0, calibration_rms_mm=0.1, bases=(), notes=(), mm_per_px=5.0)
    with pytest.raises(atomic.OutputError, match="own input"):
        write_scenario(result, out)
    assert photo.read_bytes() == b"\xff\xd8 a photo"


def test_a_path_that_changes_target_while_written_is_refused(tmp_path: Path) -> None:
    a, b, link = tmp_path / "a.png", tmp_path / "b.png", tmp_path / "link.png"
    a.write_bytes(b"a")
    b.write_bytes(b"b")
    link.symlink_to(a)
    with pytest.raises(atomic.OutputError, match="changed while it was being written"):
        with atomic.replacing(link) as tmp:
            tmp.write_bytes(b"new")
            link.unlink()
            link.symlink_to(b)
    assert a.read_bytes() == b"a" and b.read_bytes() == b"b"


@pytest.mark.parametrize("target_name", ["x.jpg", "noextension", "x.tga", "x.bmp"])
def test_the_format_is_chosen_by_the_name_given_not_by_the_links_target(
    target_name: str, table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / target_name
    link = tmp_path / "current.png"
    link.symlink_to(target)
    code, stdout, _ = _run(["render", table, "-o", link, "--size", "200x150"], capsys)
    assert code == 0 and stdout.strip() == f"wrote {link}"
    assert link.is_symlink() and target.read_bytes().startswith(PNG_SIGNATURE)


def test_an_animation_through_a_link_has_the_format_of_the_name_given(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "x.webp"
    link = tmp_path / "a.gif"
    link.symlink_to(target)
    assert _run(["animate", table, "-o", link, "--width", "200"], capsys)[0] == 0
    assert target.read_bytes().startswith(b"GIF8")


# --------------------------------------------------------------------------- names of any legal length


def _commands(table: Path, out: str, kind: str) -> list[str]:
    return {
        "render": ["render", str(table), "-o", f"{out}.png", "--size", "200x150"],
        "layout": ["render", str(table), "-o", str(table.parent / "v.png"), "--size", "200x150", "--layout-json", f"{out}.json"],
        "explain": ["explain", str(table), "-o", f"{out}.md"],
        "animate": ["animate", str(table), "-o", f"{out}.gif", "--width", "200"],
        "photo": ["photo", str(table), "--table", "48x48in", "-o", f"{out}.toml"],
    }[kind]


KINDS = ["render", "layout", "explain", "animate", "photo"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_name_over_255_bytes_is_bad_input_with_a_clear_message(kind: str, table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(table.parent / ("é" * 150))  # 300 bytes in UTF-8 before the suffix
    code, _, err = _run(_commands(table, out, kind), capsys)
    assert code == 2 and "bytes long; the limit is 255 bytes" in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1 and len(err) < 400


@pytest.mark.parametrize("kind", ["render", "layout", "explain", "animate"])
@pytest.mark.parametrize("size", [241, 255])
def test_a_legal_long_name_is_written(kind: str, size: int, table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suffix = {"render": ".png", "layout": ".json", "explain": ".md", "animate": ".gif"}[kind]
    stem = "n" * (size - len(suffix))
    code, _, err = _run(_commands(table, str(table.parent / stem), kind), capsys)
    assert code == 0, err
    written = table.parent / f"{stem}{suffix}"
    assert len(os.fsencode(written.name)) == size and written.stat().st_size > 0
    assert [p.name for p in table.parent.iterdir() if p.name.startswith(".")] == []


def test_the_temp_name_is_short_whatever_the_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real = os.replace
    monkeypatch.setattr(atomic.os, "replace", lambda src, dst: (seen.append(Path(src).name), real(src, dst)))
    target = tmp_path / ("t" * 251 + ".png")
    atomic.atomic_write(target, b"data")
    assert target.read_bytes() == b"data" and len(seen) == 1 and len(seen[0]) <= 32


def test_a_layout_json_that_is_json(table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layout = tmp_path / "l.json"
    assert _run(["render", table, "-o", tmp_path / "v.png", "--size", "300x200", "--layout-json", layout], capsys)[0] == 0
    assert isinstance(json.loads(layout.read_text(encoding="utf-8")), dict)
