"""bandmf26: this project's extension (issue 44), not a paper: DP matrix factorization with banded
Toeplitz C under balls-and-bins, cyclic Poisson and b-min-sep (``dpsampling.accountants.matrix``)."""
