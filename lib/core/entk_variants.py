"""The two variants of the t=0 eNTK analysis, named once for every layer.

An eNTK matrix ``A[n, m]`` of one output has rows over the inputs whose outputs change and
columns over the training inputs whose loss drives the change. The book computes its leading
vector in two ways (:mod:`lib.analyses.entk_vectors` has the details):

* ``"principled"`` (the book's default): rows and columns over the training inputs; per output
  the leading right singular vector.
* ``"authors"`` (the authors' code): rows over the test inputs, columns over the training
  inputs; per output the first eigenvector ``np.linalg.eig`` returns for the transposed matrix.

The same pair names the rows a streamed kernel is evaluated on in
:mod:`lib.experiments.kernel_dynamics` (training inputs for ``"principled"``, test inputs for
``"authors"``).
"""

from __future__ import annotations

ENTK_VARIANTS = ("principled", "authors")
