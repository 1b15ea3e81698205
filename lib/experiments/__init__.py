"""Experiments layer: the paper's schedules, the SMG problem, the continuum, kernel dynamics, sweeps."""
