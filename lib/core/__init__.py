"""Core layer: tasks, models, losses, training, kernels, parameter checks and the results cache."""
