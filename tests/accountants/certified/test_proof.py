"""docs/PROOF.md and the code in step, and the proof's assumptions A (FFT) and C (exp, log, expm1,
log1p) verified at the lengths and over the ranges the certified engine uses (B: test_rounding.py).

Each measured worst ratio (error / the bound the proof uses) is printed (``pytest -s``) and
asserted <= 1 / MARGIN: the proof's constants keep at least that factor over what is measured."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import fft as sfft

from dpsampling.accountants.certified import engine, rounding

ROOT = Path(__file__).resolve().parents[3]
PROOF = ROOT / "docs" / "PROOF.md"
CERTIFIED = ROOT / "src" / "dpsampling" / "accountants" / "certified"
U = 2.0**-53
FFT_MARGIN = 2.0  # assumption A: the measured normwise error stays below eta(N) / FFT_MARGIN
LARGEST_FFT = 2 * engine.DEFAULT_MAX_GRID_POINTS  # a convolution of two arrays of the largest grid


def _lemmas_in_document() -> list[int]:
    return [int(n) for n in re.findall(r"^### Lemma (\d+) \(", PROOF.read_text(), flags=re.MULTILINE)]


def _lemmas_cited() -> dict[int, list[str]]:
    cited: dict[int, list[str]] = {}
    for path in sorted(ROOT.joinpath("src").rglob("*.py")):
        for number, line in ((int(m.group(1)), m.string) for m in
                             (re.search(r"PROOF Lemma (\d+)", line) for line in path.read_text().splitlines()) if m):
            cited.setdefault(number, []).append(f"{path.name}: {line.strip()}")
    return cited


def test_every_lemma_is_cited_and_every_citation_exists():
    """The lemmas of docs/PROOF.md are numbered 1..n, each cited (``PROOF Lemma n``) at a line of
    the code that charges it, and the code cites no lemma the document lacks."""
    lemmas = _lemmas_in_document()
    assert lemmas == list(range(1, len(lemmas) + 1)), f"lemmas not numbered 1..n: {lemmas}"
    cited = _lemmas_cited()
    assert set(cited) - set(lemmas) == set(), f"cited but not in docs/PROOF.md: {sorted(set(cited) - set(lemmas))}"
    assert set(lemmas) - set(cited) == set(), f"in docs/PROOF.md but cited nowhere: {sorted(set(lemmas) - set(cited))}"


def test_the_answers_fp_model_names_the_documents_sections():
    text = PROOF.read_text()
    sections = re.findall(r"^## §(\d) ", text, flags=re.MULTILINE)
    assert sections == ["1", "2", "3", "4", "5"]
    assert engine.FP_MODEL.startswith("docs/PROOF.md")
    for n in sections:
        assert f"section {n}" in engine.FP_MODEL
    assert f"lemmas 1-{len(_lemmas_in_document())} " in engine.FP_MODEL


def test_the_engine_only_uses_power_of_two_fft_lengths():
    """Assumption A is verified at N = 2^m only: every FFT in certified/ takes its length from
    rounding.fft_size, a power of two (no Bluestein, no mixed radices)."""
    calls = [(path.name, line.strip()) for path in CERTIFIED.glob("*.py")
             for line in path.read_text().splitlines() if re.search(r"\b(i?rfft|i?fft|fftconvolve)\(", line)]
    assert calls and all(name == "convolution.py" and ", size," in line for name, line in calls), calls
    for n in [1, 2, 3, 5, 17, 1000, 2**20 + 1, 2**21, 2**22 - 1, 2**22]:
        size = rounding.fft_size(n)
        assert size >= n and size & (size - 1) == 0 and size < 2 * max(n, 2)


def _inputs(size: int, rng: np.random.Generator, full: bool) -> dict[str, np.ndarray]:
    """Adversarial non-negative and signed inputs of length ``size``: a spike beside a tail decaying
    geometrically down to subnormals (the laws' shape), alternating signs, uniform noise."""
    k = np.arange(size)
    tail = np.exp(-745.0 * k / max(size - 1, 1))  # 1 down to ~5e-324 at the end
    tail[size // 2:] *= 2.0**-30  # a cliff: the spike's neighbours far above the rest
    spike = tail.copy()
    spike[0] = 1e12
    out = {"spike beside a tail to subnormals": spike}
    out["alternating signs"] = (-1.0) ** k * (1.0 + rng.random(size))
    if full:
        out["uniform"] = rng.random(size)
    return out


def _full_norm(half: np.ndarray, size: int) -> float:
    """2-norm over the full Hermitian spectrum of a real DFT's half spectrum (bins 1..N/2-1 twice)."""
    weight = np.full(half.size, 2.0)
    weight[0] = 1.0
    if size % 2 == 0:
        weight[-1] = 1.0
    return float(np.sqrt(np.sum(weight * np.abs(half) ** 2)))


def _fft_ratios(size: int, rng: np.random.Generator, full: bool) -> dict[str, float]:
    """Normwise error of rfft and irfft (double) over eta(N), against scipy.fft in extended
    precision (x87 long double: 2^-11 of the double's error)."""
    eta = rounding.fft_eta(size)
    ratios = {}
    for name, x in _inputs(size, rng, full).items():
        exact = sfft.rfft(x.astype(np.longdouble))
        computed = sfft.rfft(x)
        ratios[f"rfft, {name}"] = _full_norm(computed - exact, size) / _full_norm(exact, size) / eta
        # irfft of a spectrum the engine could pass: a product of two computed spectra
        spectrum = computed * computed if name != "alternating signs" else computed
        exact_inv = sfft.irfft(spectrum.astype(np.clongdouble), size)
        computed_inv = sfft.irfft(spectrum, size)
        ratios[f"irfft, {name}"] = float(np.linalg.norm((computed_inv - exact_inv).astype(np.float64))
                                         / np.linalg.norm(exact_inv.astype(np.float64))) / eta
    return ratios


def test_the_long_double_reference_fft_is_exact_enough():
    """The reference: scipy.fft in long double within 1e-17 (normwise) of an exact DFT (mpmath,
    40 digits), so it measures the double FFT's ~1e-16 errors to a few per cent."""
    mpmath = pytest.importorskip("mpmath")
    if np.finfo(np.longdouble).nmant != 63:  # quad (aarch64) is software: too slow at 2^22
        pytest.skip("long double is not the 64-bit-significand extended format here")
    mpmath.mp.dps = 40
    rng = np.random.default_rng(7)
    for size in (8, 64):
        x = rng.random(size) * np.exp(-20.0 * rng.random(size))
        reference = sfft.rfft(x.astype(np.longdouble))
        worst, norm = 0.0, 0.0
        for j in range(size // 2 + 1):
            exact = mpmath.fsum(mpmath.mpf(float(v)) * mpmath.expj(-2 * mpmath.pi * j * i / size)
                                for i, v in enumerate(x))
            diff = mpmath.mpc(str(reference[j].real), str(reference[j].imag)) - exact
            worst += float(abs(diff)) ** 2
            norm += float(abs(exact)) ** 2
        assert math.sqrt(worst / norm) <= 1e-17


@pytest.mark.parametrize("exponents", [range(1, 11), range(11, 17), range(17, 20), [20], [21], [22]],
                         ids=lambda e: f"N=2^{min(e)}..2^{max(e)}")
def test_assumption_a_rfft_and_irfft_within_eta_at_every_length_the_engine_uses(exponents):
    """Assumption A (docs/PROOF.md section 2) at every FFT length 2^1 .. 2^22 the engine can choose
    (its largest grid DEFAULT_MAX_GRID_POINTS = 2^21, a convolution of two such arrays 2^22), for
    rfft and irfft, on adversarial inputs: the normwise error stays below eta(N) / FFT_MARGIN."""
    if np.finfo(np.longdouble).nmant != 63:  # quad (aarch64) is software: too slow at 2^22
        pytest.skip("long double is not the 64-bit-significand extended format here: no reference")
    assert max(exponents) <= LARGEST_FFT.bit_length() - 1
    rng = np.random.default_rng(min(exponents))
    worst = {}
    for m in exponents:
        for name, ratio in _fft_ratios(2**m, rng, full=m <= 20).items():
            if ratio > worst.get(name, (0.0, 0))[0]:
                worst[name] = (ratio, m)
    print({name: f"{ratio:.3f} at 2^{m}" for name, (ratio, m) in worst.items()})
    for name, (ratio, m) in worst.items():
        assert ratio <= 1.0 / FFT_MARGIN, f"{name} at N = 2^{m}: error / eta(N) = {ratio:.3g}"


def _ulp_ratio(values: np.ndarray, computed: np.ndarray, exact_fn) -> float:
    """max |computed - exact| / (2 U |exact| + 2^-1074): assumption C's bound is 1."""
    import mpmath

    worst = 0.0
    for x, y in zip(values.tolist(), computed.tolist()):
        exact = exact_fn(mpmath.mpf(x))
        worst = max(worst, float(abs(mpmath.mpf(y) - exact) / (2 * U * abs(exact) + mpmath.mpf(2) ** -1074)))
    return worst


def _c_cases(rng: np.random.Generator):
    n = 5000
    edges_exp = np.array([-745.13, -745.0, -708.5, -708.39, -1e-300, 0.0, 1e-300, 1e-8, 1.0, 700.0, 709.78])
    yield "exp", np.exp, math.exp, "exp", np.r_[rng.uniform(-745.0, 709.7, n), rng.uniform(-40.0, 40.0, n),
                                                 -np.geomspace(1e-300, 1.0, 200), edges_exp]
    edges_log = np.array([5e-324, 2.2250738585072014e-308, 1.0 - 2**-53, 1.0, 1.0 + 2**-52, 1.7976931348623157e308])
    yield "log", np.log, math.log, "log", np.r_[np.exp2(rng.uniform(-1074.0, 1023.0, n)), 1.0 + rng.uniform(-0.1, 0.1, n),
                                                 edges_log]
    edges_expm1 = np.array([-745.0, -40.0, -1e-300, 5e-324, 1e-300, 1e-16, 1e-8, 30.0, 709.78])
    yield "expm1", np.expm1, math.expm1, "expm1", np.r_[rng.uniform(-40.0, 709.0, n), rng.uniform(-1.0, 1.0, n),
                                                         np.geomspace(1e-300, 1.0, 400), edges_expm1]
    edges_log1p = np.array([-0.999, -0.5, -1e-13, -5e-324, 5e-324, 1e-300, 1e-16, 1.0, 1e300])
    yield "log1p", np.log1p, math.log1p, "log1p", np.r_[-np.geomspace(1e-300, 0.999, n), np.geomspace(1e-300, 1e300, n),
                                                         edges_log1p]


@pytest.mark.parametrize("case", range(4), ids=["exp", "log", "expm1", "log1p"])
def test_assumption_c_exp_log_expm1_log1p_within_one_ulp(case):
    """Assumption C (docs/PROOF.md section 2): numpy's vectorised exp / log / expm1 / log1p (numpy's
    own SIMD routines where the CPU has them, not glibc's) and libm's (Python math, Numba) within
    2 U relatively plus 2^-1074 of the exact value (mpmath, 120 bits), over the ranges the engine
    uses and at their edges."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 120
    rng = np.random.default_rng(11 + case)
    name, vectorised, scalar, exact_name, values = list(_c_cases(rng))[case]
    exact_fn = getattr(mpmath, exact_name)
    with np.errstate(over="ignore", under="ignore"):
        numpy_ratio = _ulp_ratio(values, vectorised(values), exact_fn)
    subset = values[:: max(1, values.size // 2000)]
    libm_ratio = _ulp_ratio(subset, np.array([scalar(float(v)) for v in subset]), exact_fn)
    print(f"{name}: numpy {numpy_ratio:.3f}, libm {libm_ratio:.3f} of the bound")
    assert numpy_ratio <= 1.0 and libm_ratio <= 1.0


def test_assumption_b_balls_and_bins_cells_within_step_law_accuracy_on_the_engines_grids(monkeypatch):
    """Assumption B, balls and bins (docs/PROOF.md section 2): ``ballsbins._cell_integrals``' 8-point
    Gauss-Legendre masses and upper shares, on the grids two runs actually use (recorded), within
    STEP_LAW_ACCURACY of mpmath's integrals (relative to the mass; the share's allowance
    STEP_LAW_ACCURACY (1 + theta) mass, as ``y_laws`` charges), over the whole range y_range keeps."""
    mpmath = pytest.importorskip("mpmath")
    from dpsampling import Accountant, Phase
    from dpsampling.accountants.certified import ballsbins

    grids = set()
    original = ballsbins._cell_integrals

    def recording(sigma, k_lo, k_hi, h):
        grids.add((sigma, k_lo, k_hi, h))
        return original(sigma, k_lo, k_hi, h)

    monkeypatch.setattr(ballsbins, "_cell_integrals", recording)
    for sigma in (0.6, 2.0):
        Accountant(Phase("balls_and_bins", sigma, steps_per_epoch=100, epochs=1)).epsilon_bounds([1e-6])
    assert grids
    mpmath.mp.dps = 30
    worst = 0.0
    for sigma, k_lo, k_hi, h in sorted(grids):
        mass, theta = original(sigma, k_lo, k_hi, h)
        mu, sd = -0.5 / sigma**2, 1.0 / sigma
        for i in sorted(set(range(0, k_hi - k_lo, max(1, (k_hi - k_lo) // 40))) | {k_hi - k_lo - 1}):
            a, b = mpmath.mpf((k_lo + i) * h), mpmath.mpf((k_lo + i + 1) * h)
            exact_mass = mpmath.quad(lambda x, mu=mu, sd=sd: mpmath.npdf(x, mu, sd), [a, b])
            exact_share = mpmath.quad(lambda x, mu=mu, sd=sd, a=a: mpmath.npdf(x, mu, sd) * mpmath.expm1(x - a),
                                      [a, b]) / mpmath.expm1(h)
            allowed = rounding.STEP_LAW_ACCURACY * exact_mass
            worst = max(worst, float(abs(mass[i] - exact_mass) / allowed),
                        float(abs(theta[i] * mass[i] - exact_share) / (allowed * (1 + theta[i]))))
    print(f"balls-and-bins cells: worst error / allowance {worst:.3f}")
    assert worst <= 1.0
