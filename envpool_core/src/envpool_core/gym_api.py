"""Which gym API `env_type="gym"` speaks: the one of the gym that is installed.

As EnvPool 0.6-0.8 did: with gym < 0.26 installed, pools speak the old API
(`reset() -> obs`, `step() -> (obs, reward, done, info)`) with `gym.spaces`;
with gym >= 0.26, gymnasium's 5-tuple API with `gym.spaces`; without gym, the
gymnasium API and spaces (as `env_type="gymnasium"`). Dict observation spaces
(the DeepMind Control Suite's) and their action spaces stay gymnasium's with
any gym, as EnvPool 1.2.5 gives them.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from types import ModuleType
from typing import Any


def installed_gym() -> ModuleType | None:
    """The installed `gym` module, or None when gym is not installed."""
    if importlib.util.find_spec("gym") is None:
        return None
    with warnings.catch_warnings():
        # gym 0.2x warns about numpy 2 and about being unmaintained on import.
        warnings.simplefilter("ignore")
        return importlib.import_module("gym")


def version_tuple(version: str) -> tuple[int, ...]:
    """`"0.23.1"` -> `(0, 23, 1)`; non-numeric suffixes are dropped."""
    parts = []
    for part in version.split(".")[:3]:
        digits = "".join(c for c in part if c.isdigit()) or "0"
        parts.append(int(digits))
    return tuple(parts)


def uses_old_api(gym: ModuleType) -> bool:
    """True for gym < 0.26, whose step returns `(obs, reward, done, info)`."""
    return version_tuple(gym.__version__) < (0, 26)


def is_dict_space(space: Any) -> bool:
    """True for a Dict space (a task whose observation is a dict of arrays)."""
    return type(space).__name__ == "Dict"


def convert_space(space: Any, spaces: ModuleType) -> Any:
    """The equal space from another spaces module (gymnasium's -> gym's)."""
    name = type(space).__name__
    if name == "Discrete":
        start = int(space.start)
        if start == 0:
            return spaces.Discrete(int(space.n))
        return spaces.Discrete(int(space.n), start=start)
    if name == "Box":
        return spaces.Box(low=space.low, high=space.high, shape=space.shape, dtype=space.dtype)
    if name == "Dict":
        return spaces.Dict({k: convert_space(v, spaces) for k, v in space.spaces.items()})
    raise TypeError(f"no {spaces.__name__} equivalent for {space}")
