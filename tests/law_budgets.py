"""Budgets of one step's discrete laws under engine 4's charges (``certified.rounding``), shared by the
mass-and-mean tests of test_engine, test_ballsbins_laws and test_substitution."""

STEP_RAISE = 1e-8
"""How far above mass 1 one step's upper law may be raised by its per-cell bounds (``rounding.cell_errors``;
observed up to 1.6e-9, sigma 10, q 1e-3: 377 cells whose masses are differences of ndtr values near 1/2)."""
LOWER_DROP = 1e-5
"""How much mass one step's lower law may drop (cells whose mass is not known to ``steps.STEP_KEEP``
relatively; observed up to 1.5e-6, sigma 0.4, q 1e-5: 806,792 cells of about 1e-6 each)."""
