"""Certified upper and lower bounds on delta(eps) and eps(delta) of balls-and-bins sampling.

Balls-and-bins (each example in one uniformly random step of T per epoch, K epochs) is
dominated (chua25 Thm 3.1) by P = (1/T) sum_t N(e_t, s^2 I_T) vs Q = N(0, s^2 I_T), s = sigma.
Under Q the x_t are iid N(0, s^2) and
    dP/dQ(x) = A(x) = (1/T) sum_t Y_t,   Y_t = exp((2 x_t - 1) / (2 s^2)),
because N(e_t, s^2 I)/N(0, s^2 I) = exp((x_t^2 - (x_t - 1)^2) / (2 s^2)); so log Y_t ~
N(-1/(2 s^2), 1/s^2) iid and E[Y] = 1. With K independent epochs the likelihood ratio is
G = prod_k A_k (A_k iid copies of A) and the hockey-stick divergences are
    remove: delta(eps) = E_Q[(G - e^eps)_+],     add: delta(eps) = E_Q[(1 - e^eps G)_+].
Both integrands are convex functions f of G. Everything reduces to the law of G.

Grid: g_k = exp(k h). Two discrete laws are carried through the same computation:

Upper bound (convex order). V dominates X in convex order (X <=_cx V) when E f(X) <= E f(V)
for every convex f. (i) Mass at a point u in [g_k, g_{k+1}] split onto g_k and g_{k+1} with
its mean kept is a mean-preserving spread, so it dominates in convex order. (ii) Convex order
is preserved by averages of independent variables with fixed positive weights and by products
of independent non-negative variables (E f(X Z) = E_Z E_X f(X z), and x -> f(x z) is convex
for z >= 0; same for w x + (1-w) z). (iii) For a fixed copy, f(G) is a convex function of it
(G is affine in each copy with a non-negative coefficient), so replacing copies one at a time
is valid. Hence: spread Y's cells onto their ends, then build A_T by binary splitting
A_{a+b} = (a A_a + b A_b)/(a+b) and G by products, spreading every result onto the grid again:
E f(G) <= E f(V_final) for both directions. A product of grid points is a grid point (index
sum), so products need no spreading.

Lower bound (Jensen). Replacing a variable by its conditional mean given the grid cell it
falls in gives W <=_cx X (conditional Jensen). Each discrete law is kept as one atom per cell
at the conditional mean of the mass in that cell; averages and products of such laws are
computed pair by pair and again collapsed to per-cell conditional means, so by (ii)-(iii)
E f(W_final) <= E f(G). Cells at the two ends are open ([0, g) and [g, inf)), so nothing is
ever dropped; folding tail cells into them is another coarsening.

Tails of the upper law (each term is added to the reported bound, never assumed small):
- Y is clipped to [g_lo, g_hi]. Below: moving mass up is free for remove (f increasing in G,
  G increasing in Y) and for add costs at most the moved probability (union bound, 0 <= f <= 1);
  ``add_excess`` sums these over all copies (T K of Y). Above: moving mass down is free for add
  (f decreasing); for remove, with X = X_c + R, R >= 0, (a + b)_+ <= a_+ + b gives
  E f(G) <= E f(G_c) + E[G - G_c], and the mean loss is tracked (``remove_excess``): weighted
  averages under averaging, d1 m2 + m1 d2 + d1 d2 under products (independence). The same rules
  fold negligible tails (mass or first moment <= PRUNE_MASS = 1e-30) during the computation.
- E[(Y - g_hi)_+] <= E[Y; Y >= g_hi] = Phi((mu + s_L^2 - l_hi)/s_L) in closed form.

Grids: the average of n copies uses step h_n = h_top 2^j (h_n shrinking like the spread of
A_n, so that every level costs about the same and contributes errors of the same size; a
coarse grid's points and cells are unions of fine ones, so moving a law to a finer grid only
relabels it). The error of both constructions is second order in h (variance added or
removed per step), so halving h shrinks the gap about 4x.

Cost: an average of two laws of n cells costs O(n * min(n, log(2)/h)) with prefix sums (pairs
of cells whose result falls in the same cell are summed at once); a product costs O(n m).

Floating point: sums use double precision without directed rounding; prefix sums are taken
from the end nearer the range summed. Absolute errors are ~1e-16 of the mass around, far below
the 1e-12 floor used for accuracy; "certified" is in this sense.
"""

from .accountant import (
                         DEFAULT_MAX_GRID_POINTS,
                         ENGINE_VERSION,
                         ballsbins_delta_bounds,
                         ballsbins_epsilon_bounds,
                         calibrate_ballsbins_sigma,
)

__all__ = ["DEFAULT_MAX_GRID_POINTS", "ENGINE_VERSION", "ballsbins_delta_bounds",
           "ballsbins_epsilon_bounds", "calibrate_ballsbins_sigma"]
