"""Analyses layer: loadings, controls, partitions, representations, statistics, predictors, M-PHATE."""
