"""The training engines: which one trains (:class:`Engine`, :data:`DEFAULT_ENGINE`) and what
each hands to the training loop of :mod:`lib.core.training` (:class:`EngineRun`).

Every function with an ``engine`` parameter (``train``, ``train_many``, the experiments) takes
an :class:`Engine` or its string value and defaults to :data:`DEFAULT_ENGINE`. All engines
train the same full-batch gradient descent, equal up to float32 rounding; which is fastest
depends on the machine (``make benchmark``).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple

from .validation import check_choice


class Engine(StrEnum):
    """A training engine. Members are strings equal to their values (``Engine.NUMBA == "numba"``).

    * ``NUMBA``: the multitask network (summed squared error, float32) as a compiled CPU
      kernel, one network per thread, on its distinct patterns (:mod:`lib.core.training_kernel`).
    * ``REFERENCE``: ``jax.grad`` of the loss of any model, any reduction and dtype, in XLA
      (CPU or GPU).
    """

    NUMBA = "numba"
    REFERENCE = "reference"

    @property
    def distinct_patterns(self) -> bool:
        """Whether the engine trains the multitask network on its distinct patterns weighted
        by their counts (and trains nothing else)."""
        return self is not Engine.REFERENCE

    @property
    def tag(self) -> str:
        """The engine and the version of its arithmetic, recorded as ``engine_tag`` in cache
        keys so that results of different engines never mix."""
        return _TAGS[self]


_TAGS = {Engine.NUMBA: "numba-v2", Engine.REFERENCE: "reference"}

DEFAULT_ENGINE = Engine.NUMBA
"""The default of every ``engine`` parameter: the paper's network on a CPU, where it is the
fastest (``make benchmark``). Any other model, a loss reduction other than the sum, float64
weights or a GPU need ``Engine.REFERENCE``."""


def check_engine(name: str, value: Any) -> Engine:
    """``value`` as an :class:`Engine` if it is one or its string value, else ``ValueError``
    naming ``name`` and the allowed values."""
    return Engine(check_choice(name, value, [engine.value for engine in Engine]))


def engine_of_tag(tag: Any) -> Engine:
    """The engine whose :attr:`Engine.tag` is ``tag`` (a cache key's ``engine_tag``)."""
    by_tag = {engine.tag: engine for engine in Engine}
    return by_tag[check_choice("engine_tag", tag, by_tag)]


class EngineRun(NamedTuple):
    """What an engine hands to the training loop for one call of ``train``/``train_many``.

    ``state`` is the engine's own layout of the weights; ``advance(state, n_segments)`` runs
    ``n_segments`` segments of steps between snapshots and returns ``(state, snapshots)``, the
    snapshots with an axis of size ``n_segments`` (after the network axis when batched);
    ``final(state)`` gives the parameters in the model's layout; ``first`` is the observation
    at iteration 0 with a snapshot axis of size 1."""

    state: Any
    advance: Callable[[Any, int], tuple[Any, Any]]
    final: Callable[[Any], Any]
    first: Any
