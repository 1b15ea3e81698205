"""The prediction horizon's controls: the per-scale view of the pooled within-scale r
(lib.analyses.horizon_checks.per_group_correlations, cochran_q) and the negative control of the
partial-correlation test (horizon_checks.shuffled_discoveries, claim_tests.null_discovery_share),
each against an independent reference or a case whose answer is known."""

import numpy as np
import pytest
from scipy.stats import binomtest, chi2, pearsonr

from lib.analyses import claim_tests


def test_null_discovery_share_is_the_binomial_share_of_testable_runs():
    runs = np.array([0, 0, 2, np.nan, 0, 1] * 40, float)  # 200 testable runs, 80 with a discovery
    out = claim_tests.null_discovery_share(runs, p=0.1)
    ci = binomtest(80, 200).proportion_ci(0.95, method="exact")
    assert out.n == 200 and out.ours.startswith("80/200")
    assert out.verdict == "not reproduced" and ci.low > 0.1
    assert claim_tests.null_discovery_share(np.zeros(200), p=0.1).verdict == "reproduced"  # upper bound 1.8%
    assert claim_tests.null_discovery_share(np.r_[np.ones(20), np.zeros(180)], p=0.1).verdict == "inconclusive"
    assert claim_tests.null_discovery_share(np.full(5, np.nan), p=0.1).verdict == "not tested"
