"""Read and write scenario files (TOML, or JSON of the same structure).

Validation happens here, at the boundary: every problem becomes one
:class:`Problem` naming the file, the field's path (``model[3].base``) and the
line where known, never a traceback. Keys the format does not know are kept
(with a did-you-mean warning) and written back on save. Saving is atomic.

The package's modules follow a file's way in and out: :mod:`.limits` and
:mod:`.problems`; the checks of single fields (:mod:`.fields`); a valid document read
with those checks alone (:mod:`.fast`); the pydantic schema, imported only to name the
problems of an invalid one (:mod:`.schema`); line numbers (:mod:`.lines`); checks of a
whole document (:mod:`.checks`); :mod:`.reading`; :mod:`.writing`. Every name the single
module had is importable from here as before (the schema's on first use).
"""

from __future__ import annotations

# Names the single module had in its namespace: other code and tests import them from here.
import datetime  # noqa: F401
import difflib  # noqa: F401
import json  # noqa: F401
import math  # noqa: F401
import os  # noqa: F401
import re  # noqa: F401
import tomllib  # noqa: F401
from collections.abc import Mapping, Sequence  # noqa: F401
from dataclasses import dataclass  # noqa: F401
from pathlib import Path  # noqa: F401
from typing import Annotated, Any, Literal  # noqa: F401

import shapely  # noqa: F401
import tomli_w  # noqa: F401

from tabletop.atomic import InputError, read_regular  # noqa: F401
from tabletop.atomic import atomic_write as _atomic_write  # noqa: F401
from tabletop.catalogue import Entry, default_catalogue, shape_from_table  # noqa: F401
from tabletop.dice import check_fixed_rolls  # noqa: F401
from tabletop.model import (  # noqa: F401
    At,
    Backdrop,
    Base,
    Direct,
    Explosion,
    Impact,
    Model,
    RectSpec,
    Scenario,
    Table,
    Template,
    TemplateShape,
    Terrain,
)
from tabletop.scenario_io.checks import (  # noqa: F401
    _EXTRA_ALIASES,
    _NESTED,
    _kind,
    _clean_loc,
    _collect_unknown,
    _document_problems,
    _extra,
    _known_fields,
    _message,
    _nested_models,
    _ruleset_checks,
    _unknown_key_warnings,
)
from tabletop.scenario_io.fields import (  # noqa: F401
    FIELDS,
    NESTED,
    _SUB,
    _angle,
    _at,
    _base,
    _finite,
    _format,
    _free_problem,
    _grid,
    _grid_squares,
    _identifier,
    _image_path,
    _known_ruleset,
    _length,
    _non_negative_length,
    _one_aim,
    _one_outline,
    _one_placement,
    _pixel_corners,
    _point,
    _points,
    _positive_length,
    _rolls,
    _shape,
    _sigma,
    _split_sub,
    _stats,
    _strict_bool,
    _strict_int,
    _strings,
    _text,
    _units,
    _weapon,
)
from tabletop.scenario_io.limits import (  # noqa: F401
    _ID,
    MAX_ANGLE_DEG,
    MAX_BATTERY,
    MAX_DEPTH,
    MAX_EXACT_INT,
    MAX_FILE_BYTES,
    MAX_FREE_DEPTH,
    MAX_GRID_SQUARES,
    MAX_IMAGE_PX,
    MAX_ITEMS,
    MAX_MODELS,
    MAX_ROLL,
    MAX_SEED,
    MAX_SIGMA_MM,
    MAX_STAT,
    MAX_TEMPLATES,
    MAX_TERRAIN,
    MAX_TOTAL_VERTICES,
    MAX_VERTICES,
    MIN_GRID_MM,
    SHAPE_KEYS,
    STAT_COUNTS,
    WEAPON_COUNTS,
    _shown,
)
from tabletop.scenario_io.lines import _line_for, format_path, json_lines, toml_lines  # noqa: F401
from tabletop.scenario_io.problems import Problem, ScenarioError  # noqa: F401
from tabletop.scenario_io.reading import (  # noqa: F401
    backdrop_path,
    load,
    load_with_warnings,
    loads,
    parse_document,
    read_document,
    rebase_backdrop,
    scenario_from_data,
)
from tabletop.scenario_io.writing import (  # noqa: F401
    _INDENT,
    _TOML_LINE,
    _drop_none,
    _is_table_array,
    _json_default,
    _toml_array,
    _toml_inline,
    _toml_key,
    _toml_table,
    _tomlable,
    atomic_write,
    dumps,
    save,
    scenario_to_data,
    shape_to_data,
    toml_text,
)
from tabletop.settings import check_mapping as check_settings  # noqa: F401
from tabletop.units import (  # noqa: F401
    MAX_NAME_CHARS,
    MAX_TEXT_CHARS,
    MAX_TITLE_CHARS,
    MIN_TEMPLATE_MM,
    MM_PER_UNIT,
    LengthError,
    length_for_file,
    parse_length,
    printable,
)

#: The pydantic schema and the names it brings, imported on first use: a valid file is read
#: without it (:mod:`.fast`); the schema names the problems of an invalid one.
_SCHEMA_NAMES = frozenset({
    "Angle", "BackdropIn", "BaseIn", "BaseModel", "BeforeValidator", "ConfigDict", "DirectIn", "ExplosionIn", "Field",
    "GridLength", "Identifier", "ImpactIn", "Length", "ModelIn", "Name", "NonNegativeLength", "Number", "PointIn",
    "PositiveLength", "RectIn", "ScenarioIn", "Stats", "StrictBool", "StrictInt", "Strings", "TableIn", "TemplateIn",
    "TerrainIn", "Title", "ValidationError", "ValidationInfo", "_In", "field_validator", "model_validator",
})


def __getattr__(name: str) -> Any:
    if name in _SCHEMA_NAMES:
        from tabletop.scenario_io import schema

        value = getattr(schema, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
