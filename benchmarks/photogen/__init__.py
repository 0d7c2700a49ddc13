"""A physically based generator of phone photos of a wargames table, with ground truth (issue 34).

Independent in design of ``tabletop.photo.synth``: scenes are ray cast through a real camera
(pose, focal length, radial distortion), lit by a lamp with shadow rays and an ambient term, and
developed by a phone pipeline into a JPEG. See README.md beside this file for the API.
"""

from __future__ import annotations

from benchmarks.photogen.conditions import CONDITIONS, describe
from benchmarks.photogen.generate import GENERATOR_VERSION, Photo, cache_dir, cached_photo, render_photo

__all__ = ["CONDITIONS", "GENERATOR_VERSION", "Photo", "cache_dir", "cached_photo", "describe", "render_photo"]
