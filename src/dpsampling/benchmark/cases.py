"""The benchmark cases: identical work for our estimator and the reference implementation.

Each case fixes sigma, T, the sample count m, the method, the adjacency direction, the eps at
which delta is estimated (for importance sampling also the eps of the event E_eps) and, for
order statistics, the order list. Both sides draw m loss samples of the balls-and-bins pair
and return the Monte Carlo estimate of delta(eps) with its standard error.

- ``order_statistics``: chua25 Fig. 4 left: sigma = 0.32, T = 100,000, m = 100,000, the 590
  orders 1..400, 410..1000/10, 1100..10000/100, 11000..50000/1000 (400 + 60 + 90 + 40);
- ``importance``: chua25 Fig. 3 left: T = 5000, sigma = 0.4, m = 200,000, eps = 12 (the eps
  the paper discusses for this panel);
- ``naive``: T = 10,000, sigma = 0.4, m = 20,000.
All in the remove direction (D(P_B || Q_B)), where both implementations sample P_1 =
N(e_1, sigma^2 I). The eps of the order-statistics and naive cases are chosen where delta is
about 6e-3, so that their estimates have relative standard errors of a few percent and the
agreement check has power.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from dpsampling.accountants.ballsbins.orders import parse_orders

FIG4_LEFT_ORDERS = "1..400,410..1000/10,1100..10000/100,11000..50000/1000"


@dataclass(frozen=True)
class Case:
    """One benchmark case (see module docstring)."""

    name: str
    method: str  # "naive", "importance" or "order_statistics"
    sigma: float
    steps: int
    samples: int
    direction: str
    epsilon: float
    orders: str | None = None

    @property
    def order_count(self) -> int:
        return 0 if self.orders is None else int(parse_orders(self.orders).size)

    def scaled(self, scale: float) -> Case:
        """The same case with ceil(scale * m) samples (for quick looks and tests)."""
        return replace(self, samples=max(1, math.ceil(scale * self.samples)))

    def as_dict(self) -> dict:
        return {**asdict(self), "order_count": self.order_count}


CASES = (
    Case("order_statistics", "order_statistics", 0.32, 100_000, 100_000, "remove", 1.0,
         FIG4_LEFT_ORDERS),
    Case("importance", "importance", 0.4, 5000, 200_000, "remove", 12.0),
    Case("naive", "naive", 0.4, 10_000, 20_000, "remove", 0.5),
)
CASE_NAMES = tuple(case.name for case in CASES)
