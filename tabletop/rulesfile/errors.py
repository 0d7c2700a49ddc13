"""A rules file's problems (light: no pydantic), shared by the loader and the registry."""

from __future__ import annotations

from tabletop.scenario_io.problems import ScenarioError

#: The file name ending that marks a rules file.
SUFFIX = ".rules.toml"


class RulesFileError(ScenarioError):
    """A rules file that cannot be used; ``problems`` has one entry per problem, each located."""
