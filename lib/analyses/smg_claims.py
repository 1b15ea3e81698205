"""The rules of chapter 02's claims about the deep linear network (SMG): the conditions its
registry criteria name (tests ``all_hold``), computed from the chapter's measurements. The
thresholds are the ones the criteria state (``tests/test_smg_claims.py`` checks that they agree).

The measurements (:mod:`lib.experiments.smg`): per mode, the half-time of its strength
(:func:`~lib.experiments.smg.half_times`, NaN: not half learned within the run) in this seed and in
the sweep's random draws; the times at which the eNTK's primary and secondary vectors settle on each
mode (:func:`~lib.experiments.smg.switch_times`, NaN: never); and ``|r|`` between the eNTK's first
two singular vectors and each mode's input projection at the two analysed times.
"""

from __future__ import annotations

import numpy as np

TRACKS = 0.9  # a vector tracks a mode: |r| above this
SHARE_OF_SEEDS = 0.9  # "the same in >= 90% of sweep seeds"
TIED = 0.1  # the secondary's switch within this share of the primary's


def half_times_ordered(half_times) -> bool:
    """Modes 1 and 2 are half learned in that order, and mode 3 after mode 2 if it is at all
    (``half_times`` (3,), NaN: not reached)."""
    h = np.asarray(half_times, float)
    return bool(h[0] < h[1] and (np.isnan(h[2]) or h[1] < h[2]))


def tiers(own_half_times, sweep_half_times) -> tuple[bool, bool]:
    """(this seed's half-times are ordered, at least :data:`SHARE_OF_SEEDS` of the sweep's draws'
    (S, 3) are)."""
    ordered = [half_times_ordered(h) for h in np.asarray(sweep_half_times, float)]
    return half_times_ordered(own_half_times), bool(np.mean(ordered) >= SHARE_OF_SEEDS)


def fig3_tracking(abs_r) -> tuple[bool, bool]:
    """Paper Fig 3 from ``abs_r`` (4, modes): rows t1 vector 1, t1 vector 2, t2 vector 1, t2 vector 2.
    (vector 1 tracks mode 1 at t1 with ``|r|`` above :data:`TRACKS`; at t2 one of the two vectors is
    closest to mode 2 and its ``|r|`` with mode 2 is above :data:`TRACKS`)."""
    abs_r = np.asarray(abs_r, float)
    closest = abs_r.argmax(axis=1) + 1  # each row's mode, 1-based
    first = bool(closest[0] == 1 and abs_r[0, 0] > TRACKS)
    second = bool(2 in (closest[2], closest[3]) and max(abs_r[2, 1], abs_r[3, 1]) > TRACKS)
    return first, second


def within_range(time: float, values) -> bool:
    """``time`` lies within the range (min to max, NaN ignored) of ``values``."""
    return bool(np.nanmin(values) <= time <= np.nanmax(values))


def settles_in_order(switch) -> bool:
    """The primary vector settles on modes 1, 2, 3 in that order: at least modes 1 and 2 reached
    (mode 2 necessarily), and the times of the modes it reaches increasing (``switch`` (>= 3,))."""
    reached = [t for t in np.asarray(switch, float)[:3] if not np.isnan(t)]
    return len(reached) >= 2 and bool(np.all(np.diff(reached) > 0)) and not np.isnan(switch[1])


def within_share(times, references, share: float):
    """Whether each time lies within ``share`` of its reference time, ``|t - ref| <= share * ref``
    (either NaN, never reached: False); elementwise."""
    times, references = np.asarray(times, float), np.asarray(references, float)
    return np.abs(times - references) <= share * references  # a NaN compares False


def switch_tied(secondary_on_3: float, primary_on_2: float) -> bool:
    """The secondary settles on mode 3 within :data:`TIED` of the time the primary settles on mode 2
    (either never: False)."""
    return bool(within_share(secondary_on_3, primary_on_2, TIED))


def anticipates(primary_on_2: float, half_time_2: float) -> bool:
    """The primary settles on mode 2 before mode 2 is half learned (either never: False)."""
    return bool(primary_on_2 < half_time_2)


# chapter 03 (the ePNTK on the SMG problem): paper Fig 11 and Fig 13
MATCHED_COS = 0.9  # a kernel singular vector matches a mode: |cos| at least this
HALF_TIME_TOLERANCE = 0.1  # a singular value's half-time within this share of its mode's


def fig11_matches(matches: dict, t1: int, t2: int) -> bool:
    """Paper Fig 11's matches, every one as stated: the ePNTK's first vector on mode 1 at ``t1``, the
    eNTK's first vector on mode 1 at ``t1`` and on mode 2 at ``t2``, and the ePNTK's first two
    vectors on modes 1 and 2 at ``t2``, each with ``|cos|`` at least :data:`MATCHED_COS` where a mode is
    claimed learned. ``matches``: (kernel "eNTK" or "ePNTK", time) -> (each vector's closest mode,
    0-based (r,), its ``|cos|`` (r,))."""
    top = {key: (int(modes[0]) + 1, float(cosines[0])) for key, (modes, cosines) in matches.items()}
    two_modes, two_cosines = matches[("ePNTK", t2)][0][:2], matches[("ePNTK", t2)][1][:2]
    return bool(top[("ePNTK", t1)][0] == 1 and top[("ePNTK", t1)][1] >= MATCHED_COS and top[("eNTK", t1)][0] == 1
                and top[("eNTK", t2)][0] == 2 and top[("eNTK", t2)][1] >= MATCHED_COS
                and set(two_modes) == {0, 1} and two_cosines.min() >= MATCHED_COS)


def half_times_match(singular_value_half_times, mode_half_times) -> tuple[bool, ...]:
    """Per mode (paper Fig 13): the kernel's singular value reaches half the target's within
    :data:`HALF_TIME_TOLERANCE` of the mode's own half-time (either never reached: False)."""
    return tuple(bool(b) for b in within_share(singular_value_half_times, mode_half_times, HALF_TIME_TOLERANCE))
