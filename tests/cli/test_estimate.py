"""Core-hour estimates: linear in the configured work, larger at paper scale, rates from
benchmarks only when the run was comparable, and the command's output."""

import copy
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from answer_schema import check_answer

from dpsampling.cli.main import main
from dpsampling.io import write_table
from dpsampling.papers import registry  # noqa: F401  (registers every paper's cost model)
from dpsampling.papers.registry import COSTS
from dpsampling.pipeline.estimate import Rates, Work, config_experiments, estimate, format_estimate

ROOT = Path(__file__).resolve().parents[2]
TINY = yaml.safe_load((ROOT / ".test/config/config.yaml").read_text())
QUICK = yaml.safe_load((ROOT / "config/config.yaml").read_text())
PAPER = yaml.safe_load((ROOT / "config/paper.yaml").read_text())


class FixedRates(Rates):
    """Calibration replaced by fixed costs: tests of the work model, not of this machine."""

    def __init__(self):
        super().__init__(use_benchmarks=False)
        self.calibrated = []

    def calibrate(self, key, timing):
        self.calibrated.append(key)
        return 0.5, "fixed"

    def probed(self, key, run_at, coarsenings, model, first=1, budget=None):
        self.calibrated.append(key)
        return 0.5, "fixed"

    def cached(self, key, function):
        self.calibrated.append(key)
        return {"g": 1e-6, "e": 1e-6, "generators": {g: {"a": 1e-6, "b": 1e-9, "c": 1e-9}
                                                     for g in ("shuffle", "poisson", "balls_and_bins")}}


def _by_experiment(config, rates):
    works, unknown = estimate(config, rates, COSTS)
    return {w.experiment: w for w in works}, unknown


def _shared(config) -> dict:
    """The config's blocks every experiment reads (the shuffle block only where the schema has it)."""
    return {key: config[key] for key in ("seed", "pld", "shuffle") if key in config}


def _small(config):
    """The tiny config restricted to the experiments these tests calibrate for real."""
    return {**_shared(config), "chua24": {"thm41": config["chua24"]["thm41"]}, "chua25": config["chua25"]}


def test_every_config_experiment_has_an_estimator():
    works, unknown = estimate(QUICK, FixedRates(), COSTS)
    assert unknown == []
    assert [w.experiment for w in works] == config_experiments(QUICK)
    assert {"chua24.fig3", "chua24.thm41", "chua25.fig1"} <= set(COSTS)


def test_estimate_scales_linearly_with_the_configured_counts():
    """Measured for real (a calibration of thm41 and of the training kernel on the tiny config),
    then the same rates for a config with twice the sigmas and twice the training rows (the
    tiny row count splits and batches without rounding, so the work doubles exactly)."""
    rates = Rates(use_benchmarks=False)
    base = _small(TINY)
    doubled = copy.deepcopy(base)
    doubled["chua24"]["thm41"]["sigmas"] = base["chua24"]["thm41"]["sigmas"] + [3.0, 5.0]
    doubled["chua25"]["fig1"]["data"]["rows"] = 2 * base["chua25"]["fig1"]["data"]["rows"]
    one, _ = _by_experiment(base, rates)
    two, _ = _by_experiment(doubled, rates)
    for name in ("chua24_thm41", "chua25_fig1"):
        assert one[name].seconds_per_unit > 0 and one[name].core_hours > 0
        assert two[name].units == 2 * one[name].units
    # the training costs are cached per model: the same rate, twice the work
    assert two["chua25_fig1"].core_hours == pytest.approx(2 * one["chua25_fig1"].core_hours, rel=1e-12)
    # another Thm 4.1 spec is probed again (its timing is cached per spec), at twice the sigmas
    assert two["chua24_thm41"].core_hours > 1.2 * one["chua24_thm41"].core_hours


def test_paper_scale_costs_more_than_quick_scale():
    rates = FixedRates()
    quick, _ = _by_experiment(QUICK, rates)
    paper, _ = _by_experiment(PAPER, rates)
    assert set(quick) == set(paper)
    for name in quick:
        assert paper[name].core_hours >= quick[name].core_hours, name
    assert sum(w.core_hours for w in paper.values()) > sum(w.core_hours for w in quick.values())
    # more rows and hash buckets: the training model predicts a higher cost per example too
    assert paper["chua25_fig1"].seconds_per_unit > quick["chua25_fig1"].seconds_per_unit


def _previous_run(root: Path, config: dict, cpu_seconds: float):
    spec = config["chua24"]["thm41"]
    write_table(pd.DataFrame({"x": [1.0]}), root / "results/chua24_thm41/bounds.parquet",
                {"experiment": "chua24_thm41", "kind": "theorem_4_1", "spec": spec,
                 **{k: v for k, v in _shared(config).items() if k != "seed"}})
    benchmark = root / "benchmarks/chua24_thm41/compute_bounds.tsv"
    benchmark.parent.mkdir(parents=True)
    benchmark.write_text("s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
                         f"{cpu_seconds * 1.5}\t0:00:10\t200\t1500\t150\t160\t1\t0\t60\t{cpu_seconds}\n")


def _grid_points(spec):
    return len(spec["sigmas"]) * len(spec["steps"]) * len(spec["epochs"]) * spec["epsilon_grid"]["num"]


def test_a_comparable_previous_run_gives_the_rate(tmp_path):
    _previous_run(tmp_path, TINY, cpu_seconds=12.0)
    config = copy.deepcopy(TINY)
    config["chua24"]["thm41"]["epsilon_grid"]["num"] = 70  # more work, same cost per grid point
    rates = FixedRates()
    rates.root, rates.use_benchmarks = tmp_path, True
    work = COSTS["chua24.thm41"]("chua24_thm41", config, rates)
    assert work.seconds_per_unit == pytest.approx(12.0 / _grid_points(TINY["chua24"]["thm41"]))
    assert work.units == _grid_points(config["chua24"]["thm41"])
    assert work.source.startswith("benchmarks") and rates.calibrated == []


def test_a_previous_run_with_other_numerics_is_not_used(tmp_path):
    _previous_run(tmp_path, TINY, cpu_seconds=12.0)
    config = copy.deepcopy(TINY)
    config["chua24"]["thm41"]["steps"] = [1, 100, 10000]  # each grid point costs more at larger T
    rates = FixedRates()
    rates.root, rates.use_benchmarks = tmp_path, True
    work = COSTS["chua24.thm41"]("chua24_thm41", config, rates)
    assert work.source == "fixed" and len(rates.calibrated) == 1


def test_the_command_prints_every_experiment_and_the_total(tmp_path, capsys):
    """A workflow folder whose config holds two tiny experiments; calibration for real."""
    (tmp_path / "Snakefile").write_text("")
    shutil.copytree(ROOT / "workflow/schemas", tmp_path / "workflow/schemas")
    small = {**_shared(TINY),
             "chua24": {"fig2": TINY["chua24"]["fig2"]}, "chua25": {"fig1": TINY["chua25"]["fig1"]}}
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_text(yaml.safe_dump(small))
    assert main(["estimate", "--directory", str(tmp_path), "--json", "--cores", "4"]) == 0
    document = check_answer(json.loads(capsys.readouterr().out))
    rows = {row["experiment"]: row for row in document["rows"]}
    assert set(rows) == {"chua24_fig2", "chua25_fig1"} and document["attrs"]["not_estimated"] == []
    for row in rows.values():
        assert row["core_hours"] == pytest.approx(row["units"] * row["seconds_per_unit"] / 3600)
        assert row["source"].startswith("calibration")
    assert document["attrs"]["total_core_hours"] == pytest.approx(sum(r["core_hours"] for r in rows.values()))
    assert main(["estimate", "--directory", str(tmp_path), "--cores", "4"]) == 0
    table = capsys.readouterr().out
    assert "chua24_fig2" in table and "chua25_fig1" in table and "On 4 cores" in table


def test_papers_calibrated_in_worker_processes_give_the_work_of_one_process(tmp_path):
    """Each paper calibrated in a worker process of its own (``calibrated_works``): the same
    experiments, in the same order, with the same units of work as ``estimate`` in this process,
    and an experiment without a cost entry still listed."""
    import argparse

    from dpsampling.cli.estimate import calibrated_works, papers_of

    config = {**_shared(TINY), "chua24": {"fig2": TINY["chua24"]["fig2"]},
              "lebeda24": {"rr": TINY["lebeda24"]["rr"], "fig9": {"samples": 1}}}
    assert papers_of(config_experiments(config)) == [["chua24_fig2"], ["lebeda24_fig9", "lebeda24_rr"]]
    args = argparse.Namespace(no_benchmarks=True, gpu_benchmark=None)
    works, unknown = calibrated_works(tmp_path, config, args)
    alone, unknown_alone = estimate(config, Rates(tmp_path, use_benchmarks=False), COSTS)
    assert [(w.experiment, w.units, w.unit) for w in works] == [(w.experiment, w.units, w.unit) for w in alone]
    assert unknown == unknown_alone == ["lebeda24_fig9"]


def test_unregistered_experiments_are_listed_not_guessed():
    config = dict(QUICK, lebeda24={"fig9": {"samples": 10}})
    works, unknown = estimate(config, FixedRates(), COSTS)
    assert unknown == ["lebeda24_fig9"] and "lebeda24_fig9" not in [w.experiment for w in works]
    assert isinstance(works[0], Work)


def _gpu_config(device, names=("fig2",)):
    return {**_shared(TINY), "device": device,
            "chua25": {name: TINY["chua25"][name] for name in names}}


def _benchmark(path, rows):
    path.write_text(json.dumps({"gpu": "Test GPU", "rows": rows}))


ORDER_ROW = {"case": "order_statistics", "method": "order_statistics", "samples": 1000, "steps": 1563, "orders": 99,
             "cpu_seconds": 1.0, "gpu_seconds": 0.01}  # 0.01 s / (1000 samples x 100 steps) = 1e-7 s per step


def test_gpu_hours_come_from_the_gpu_benchmark_when_device_is_cuda(tmp_path):
    rates = FixedRates()
    rates.gpu_benchmark_path = tmp_path / "gpu.json"
    _benchmark(rates.gpu_benchmark_path, [ORDER_ROW, dict(ORDER_ROW, gpu_seconds=None, method="naive")])
    (work,), _ = estimate(_gpu_config("cuda"), rates, COSTS)
    assert work.gpu_seconds == pytest.approx(work.units * 1e-7, rel=1e-12)
    assert f"GPU rate from {rates.gpu_benchmark_path} (Test GPU)" in work.source
    (cpu,), _ = estimate(_gpu_config("cpu"), rates, COSTS)
    assert cpu.gpu_seconds == 0 and "GPU" not in cpu.source
    # on the GPU config only the deterministic and certified bounds stay on the CPU: the CPU config's
    # total less its Monte Carlo part (0.5 s per kernel step in FixedRates)
    bounds = cpu.units * cpu.seconds_per_unit - cpu.units * 0.5
    assert bounds > 0
    assert work.units * work.seconds_per_unit == pytest.approx(bounds)


def test_without_a_gpu_benchmark_the_cpu_rate_is_used_and_labelled(tmp_path):
    rates = FixedRates()
    rates.gpu_benchmark_path = tmp_path / "missing.json"
    (work,), _ = estimate(_gpu_config("cuda"), rates, COSTS)
    (cpu,), _ = estimate(_gpu_config("cpu"), rates, COSTS)
    assert work.gpu_seconds == 0 and work.units * work.seconds_per_unit == pytest.approx(cpu.units * cpu.seconds_per_unit)
    assert f"device cuda but no GPU benchmark at {rates.gpu_benchmark_path}" in work.source
    _benchmark(rates.gpu_benchmark_path, [ORDER_ROW])  # times order statistics only: fig3's methods stay on the CPU
    (fig3,), _ = estimate(_gpu_config("cuda", ("fig3",)), rates, COSTS)
    assert fig3.gpu_seconds == 0 and "(importance, naive not in the benchmark: CPU rate)" in fig3.source


def test_the_table_shows_gpu_hours():
    works = [Work("chua25_fig2", 1e6, "kernel steps", 1e-3, "x", gpu_seconds=7200.0), Work("chua24_fig1", 10, "u", 360.0, "y")]
    text = format_estimate(works, [])
    total = next(line for line in text.splitlines() if line.startswith("total"))
    assert "+ 2 GPU-h" in text and total.endswith("+ 2 GPU-hours (one GPU per sampling job)")


class FakeClock:
    """time.process_time for the estimate module: advanced by hand, so that the logic is tested, not this machine."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _work_and_compile(clock, fake):
    """1 s of work, a 5 s compilation during which a called function compiles for 2 s (counted
    once, inside the outer one), 1 s of work: 2 s of work and 7 s of compiling in all."""
    fake.now += 1.0
    clock.on_start(None)
    fake.now += 5.0
    clock.on_start(None)
    fake.now += 2.0
    clock.on_end(None)
    clock.on_end(None)
    fake.now += 1.0


def test_compile_time_is_kept_out_of_the_rate_and_reported_apart(monkeypatch):
    from dpsampling.pipeline import estimate as estimate_module

    fake = FakeClock()
    monkeypatch.setattr(estimate_module.time, "process_time", fake)
    clock = estimate_module.compile_clock()

    def demo_work(experiment, config, rates):
        rate = rates.calibrate("demo kernel", lambda: (estimate_module.cpu_seconds(lambda: _work_and_compile(clock, fake)),
                                                       2.0))
        return Work(experiment, 10.0, "demo units", *rate)

    monkeypatch.setitem(COSTS, "demo24", demo_work)
    config = {"demo24": {"fig1": {}, "fig2": {}}}
    rates = Rates(use_benchmarks=False, job_start=lambda experiment: 0.5)
    works, unknown = estimate(config, rates, COSTS, jobs={"demo24_fig1": 3})
    first, second = works
    assert unknown == []
    assert first.seconds_per_unit == pytest.approx(1.0, rel=1e-12)  # 2 s of work for 2 units: the 7 s of compiling left out
    assert first.compile_seconds == pytest.approx(7.0, rel=1e-12) and second.compile_seconds == 0.0  # compiled once, by the first calibration
    assert first.compute_hours == 10.0 / 3600 and first.start_hours == 3 * 0.5 / 3600
    assert first.core_hours == first.compute_hours + first.start_hours
    assert second.jobs == 0 and second.core_hours == second.compute_hours == 10.0 / 3600
    text = format_estimate(works, unknown, cores=2)
    assert "Numba compilation, apart: 7 CPU s" in text and "3 x 0.5" in text


def test_a_previous_run_gives_the_rate_less_its_job_starts(tmp_path):
    _previous_run(tmp_path, TINY, cpu_seconds=12.0)  # one job
    rates = FixedRates()
    rates.root, rates.use_benchmarks = tmp_path, True
    rates.job_start = lambda experiment: 2.0
    work = COSTS["chua24.thm41"]("chua24_thm41", TINY, rates)
    assert work.seconds_per_unit == pytest.approx((12.0 - 2.0) / _grid_points(TINY["chua24"]["thm41"]))
    assert "less 2 s of 1 job starts" in work.source
    rates.job_start = lambda experiment: 11.5  # nearly all of it start-up: says nothing about the work
    work = COSTS["chua24.thm41"]("chua24_thm41", TINY, rates)
    assert work.source == "fixed" and rates.calibrated


def test_jobs_are_counted_per_experiment_from_a_dry_run():
    from dpsampling.pipeline.estimate import count_benchmarked_jobs

    dry_run = """rule sample_chua25_losses:
    output: results/chua25_fig4/samples/left/add/naive/shard-0.parquet
    benchmark: benchmarks/chua25_fig4/samples/left/add/naive/shard-0.tsv
rule merge_chua25_delta:
    benchmark: benchmarks/chua25_fig4/merge_delta.tsv
rule compute_chua24_bounds:
    benchmark: benchmarks/chua24_fig3/compute_bounds.tsv
rule plot_chua24_figure:
    output: figures/chua24_fig3.pdf
"""
    assert count_benchmarked_jobs(dry_run) == {"chua25_fig4": 2, "chua24_fig3": 1}


def _b_vs_p_probes(monkeypatch, budget):
    """(settings and eps counts each probe of b_vs_p's cost entry ran, its Work) with free stubs."""
    from dpsampling.papers.chua25 import b_vs_p

    seen = []
    monkeypatch.setattr(b_vs_p, "certified_bounds", lambda sigma, steps, epochs, eps, certified: None)
    monkeypatch.setattr(b_vs_p, "poisson_bounds",
                        lambda sigma, steps, epochs, eps, accuracy: seen.append(((sigma, steps, epochs), len(eps))))
    monkeypatch.setattr(b_vs_p, "first_use_seconds", lambda setup, statement: 1.0)
    work = b_vs_p.b_vs_p_work("chua25_b_vs_p", QUICK, Rates(use_benchmarks=False, probe_budget=budget))
    return seen, work


def test_b_vs_p_is_timed_on_its_whole_eps_grid(monkeypatch):
    """One eps can cost 30x the others (a PLD refined until its delta is resolved): every probe
    times every eps of the grid, not two of them; with a budget that allows it (the stubs cost
    nothing) the last probe is every setting."""
    from dpsampling.papers.chua25 import b_vs_p
    from dpsampling.papers.chua25.privacy import epsilon_grid

    seen, work = _b_vs_p_probes(monkeypatch, 2.0)
    spec = QUICK["chua25"]["b_vs_p"]
    probes = [count for _, count in seen[1:]]  # the first: the engines' first use, on two eps
    settings = len(b_vs_p.settings(spec))
    assert seen[0][1] == 2 and set(probes) == {len(epsilon_grid(spec))} and len(probes) > 2 * settings
    assert work.units == settings


def test_b_vs_p_always_probes_its_dearest_setting(monkeypatch):
    """The quick grid's (sigma 0.5, T 1000) is 16.9 of its 21 CPU s: even with no budget (only the
    first probe of each ladder), it is probed, and no spread probe of the others reaches it."""
    from dpsampling.papers.chua25 import b_vs_p

    seen, _ = _b_vs_p_probes(monkeypatch, 0.0)
    dear = b_vs_p.dearest_setting(b_vs_p.settings(QUICK["chua25"]["b_vs_p"]))
    assert (dear["sigma"], dear["steps"], dear["epochs"]) == (0.5, 1000, 1)
    probed = [setting for setting, _ in seen[1:]]
    assert probed[0] == (0.5, 1000, 1) and (0.5, 1000, 1) not in probed[1:]


def test_sigma_vs_rate_times_one_bisection_per_curve_at_rates_spread_over_the_grid():
    from dpsampling.papers.lebeda24.sigma_vs_rate import sample_cells

    spec = QUICK["lebeda24"]["sigma_vs_rate"]
    curves = [("poisson", e) for e in spec["poisson_epsilons"]] + [("wor", e) for e in spec["wor_epsilons"]]
    cells = sample_cells(curves, spec["rates"])
    assert [cell[:2] for cell in cells] == curves
    rates = [cell[2] for cell in cells]
    assert rates[0] == min(spec["rates"]) and rates[-1] == max(spec["rates"])
    assert len(set(rates)) == len(curves) and rates == sorted(rates)


def test_job_starts_are_added_after_the_estimate():
    from dpsampling.pipeline.estimate import with_job_starts

    works = [Work("a_x", 10.0, "u", 1.0, "fixed"), Work("b_y", 1.0, "u", 1.0, "fixed")]
    counted = with_job_starts(works, {"a_x": 3}, lambda experiment: 2.0)
    assert [(w.jobs, w.job_start_seconds) for w in counted] == [(3, 2.0), (0, 0.0)]
    assert counted[0].core_hours == pytest.approx((10.0 + 6.0) / 3600)
    assert [w.jobs for w in with_job_starts(works, None, lambda experiment: 2.0)] == [0, 0]


def test_chua24_delta_vs_eps_curves_are_timed_whole():
    """Pieces of the eps grid do not add up (the laws are refined for the dearest eps): one timing
    of the whole spec, its result the estimate."""
    from dpsampling.papers.chua24.cost import _pieces

    spec = QUICK["chua24"]["fig7"]
    timed = []
    assert _pieces("delta_vs_epsilon", spec, lambda small: timed.append(small) or 2.5) == 2.5
    assert timed == [spec]


def test_the_certified_curve_is_scaled_only_when_one_more_refinement_is_due():
    from dpsampling.papers.chua25.cost import CERTIFIED_COARSENING, certified_factor

    assert certified_factor({"accuracy_reached": 0.03, "converged": True}, 0.01) == CERTIFIED_COARSENING
    assert certified_factor({"accuracy_reached": 0.008, "converged": True}, 0.01) == 1.0  # already there
    assert certified_factor({"accuracy_reached": 0.05, "converged": False}, 0.01) == 1.0  # at the grid cap


def test_every_paper_experiment_has_an_estimator():
    works, unknown = estimate(PAPER, FixedRates(), COSTS)
    assert unknown == [] and [w.experiment for w in works] == config_experiments(PAPER)


def _probed_law(law):
    """A synthetic computation whose CPU seconds at coarsening c are ``law(c)``, recording its probes."""
    calls = []

    def run_at(coarsening):
        calls.append(coarsening)
        return law(coarsening)

    return run_at, calls


def test_the_ladder_recovers_a_power_law_it_stopped_short_of():
    from dpsampling.pipeline.estimate import power_law, probe_ladder

    run_at, calls = _probed_law(lambda c: 40.0 * c ** -0.7)
    whole, probes, spent = probe_ladder(run_at, (100, 30, 10, 3, 1), budget=10.0, model=power_law(0.7))
    assert calls[0] == 100 and 1.0 not in calls  # coarsest first; the whole (40 s) is never run
    assert whole == pytest.approx(40.0, rel=1e-9)
    assert spent == pytest.approx(sum(40.0 * c ** -0.7 for c in calls)) and spent <= 10.0


def test_the_ladder_recovers_a_fixed_part_and_a_part_per_point():
    from dpsampling.pipeline.estimate import affine_in_points, in_proportion, probe_ladder

    points = lambda c: (400 / c) + 1  # noqa: E731
    run_at, calls = _probed_law(lambda c: 3.0 + 0.05 * points(c))
    whole, probes, _ = probe_ladder(run_at, (16, 8, 4, 2, 1), budget=15.0, model=affine_in_points(points))
    assert len(calls) >= 2 and 1.0 not in calls
    assert whole == pytest.approx(3.0 + 0.05 * 401, rel=1e-9)
    model = affine_in_points(points)
    assert model([(16, 2.0), (8, 1.9)], 1.0) == 1.9  # a finer probe cheaper: a fixed cost
    assert model([(16, 1.0), (8, 4.0)], 1.0) == pytest.approx(4.0 * 401 / 51)  # no fixed part: in proportion
    assert in_proportion(points)([(16, 1.0), (8, 4.0)], 1.0) == pytest.approx(4.0 * 401 / 51)


def test_the_ladder_starts_no_probe_its_model_says_would_overrun_the_budget():
    """By construction, not by timing: with costs that follow the model, the probes spend at most
    the budget (the first, cheapest one is always run), and a larger budget runs more of them."""
    from dpsampling.pipeline.estimate import power_law, probe_ladder

    law = lambda c: 100.0 / c  # noqa: E731
    ladder = (64, 16, 4, 1)
    for budget, expected in [(1.0, [64]), (8.0, [64, 16]), (33.0, [64, 16, 4]), (200.0, [64, 16, 4, 1])]:
        run_at, calls = _probed_law(law)
        whole, probes, spent = probe_ladder(run_at, ladder, budget, power_law(1.0))
        assert calls == expected, budget
        assert spent <= max(budget, law(64))
        assert whole == pytest.approx(100.0)  # predicted, or timed whole at the largest budget


def test_the_ladder_answers_the_whole_timing_when_it_reaches_it():
    """A computation the model does not describe (cost flat in the coarsening): once c = 1 is run,
    its time is the answer, not the model's."""
    from dpsampling.pipeline.estimate import power_law, probe_ladder

    run_at, calls = _probed_law(lambda c: 7.0 if c == 1 else 1.0)
    whole, probes, _ = probe_ladder(run_at, (4, 2, 1), budget=100.0, model=power_law(1.0))
    assert calls == [4, 2, 1] and whole == 7.0
    with pytest.raises(ValueError):
        probe_ladder(run_at, (4, 2), budget=1.0, model=power_law(1.0))


def test_the_budget_counts_what_a_probe_spent_and_the_first_probes_always_run():
    """A probe whose time is scaled back by a model factor (here x 10) spends a tenth of what it
    counts: the budget is on the spending; ``first`` probes run whatever the budget."""
    from dpsampling.pipeline.estimate import power_law, probe_ladder

    calls = []
    run_at = lambda c: calls.append(c) or (1000.0 / c, 100.0 / c)  # noqa: E731
    probe_ladder(run_at, (64, 16, 4, 1), budget=10.0, model=power_law(1.0))
    assert calls == [64, 16]  # spent 1.6 + 6.3; the next would spend 25
    calls.clear()
    probe_ladder(run_at, (64, 16, 4, 1), budget=0.0, model=power_law(1.0), first=2)
    assert calls == [64, 16]


def test_every_timing_of_an_estimate_is_a_probe_ladder_or_a_fixed_size_kernel():
    """What bounds the estimate's own time: every experiment's calibration goes through
    ``Rates.probed`` (within the probing budget) or through ``Rates.calibrate``/``cached`` of a
    kernel whose size is fixed by the cost model, not by the config's grids (listed here)."""
    seen = {"probed": [], "calibrate": []}

    class Recording(FixedRates):
        def probed(self, key, run_at, coarsenings, model, first=1, budget=None):
            seen["probed"].append(key.split(" ")[0])
            return super().probed(key, run_at, coarsenings, model, first)

        def calibrate(self, key, timing):
            seen["calibrate"].append(key.split(" ")[0])
            return super().calibrate(key, timing)

    estimate(PAPER, Recording(), COSTS)
    fixed_size = {"chua25_fig2", "chua25_fig3", "chua25_fig4", "chua25_epochs", "chua25_props",  # 5e5 kernel steps
                  "chua25_trunc", "lebeda24_rr", "lebeda24_substitution",  # closed forms, timed whole
                  "lebeda24_addremove",  # 1e5 draws
                  "bandmf26_bands",  # ~2e7 units of its Monte Carlo
                  "sorting", "lebeda24_conj12", "lebeda24_sigma_vs_rate",  # one cell / one bisection per curve
                  "chua24_engine_first_use",  # one sigma or two eps at the coarsest accuracy
                  "chua25_engine_first_use"}  # b_vs_p's cheapest setting on two eps
    assert set(seen["calibrate"]) <= fixed_size, set(seen["calibrate"]) - fixed_size
    for name in ("chua24_fig1", "chua24_fig4", "chua24_fig3", "chua24_thm41", "chua25_b_vs_p", "chua25_fig2",
                 "chua25_epochs", "lebeda24_table1", "lebeda24_subst_gaussian"):
        assert name in seen["probed"], name


def test_the_first_use_is_what_a_new_process_pays_once():
    from dpsampling.pipeline.estimate import first_use_seconds

    setup = "seen = []\ndef work():\n    t = time.process_time()\n    while not seen and time.process_time() - t < 0.3:\n        pass\n    seen.append(1)"
    assert first_use_seconds(setup, "work()") > 0.2  # the busy first call, not the second
    assert first_use_seconds("seen = [1]\n" + setup.split("\n", 1)[1], "work()") < 0.1  # nothing paid once


def test_each_sigma_of_eps_vs_sigma_is_its_own_probe_ladder():
    """The cheap sigmas reach the asked accuracy on their own ladders (a third of the budget each),
    not scaled by the power law from the dearest one's coarse probe."""
    ladders = []

    class Recording(FixedRates):
        def probed(self, key, run_at, coarsenings, model, first=1, budget=None):
            ladders.append((key.rsplit(" ", 2)[-2:], budget))
            return super().probed(key, run_at, coarsenings, model, first)

    rates = Recording()
    COSTS["chua24.fig1"]("chua24_fig1", QUICK, rates)
    sigmas = QUICK["chua24"]["fig1"]["sigmas"]
    ends = sorted({min(sigmas), sorted(sigmas)[len(sigmas) // 2], max(sigmas)})
    assert ladders == [(["sigma", f"{sigma:g}"], rates.probe_budget / 3) for sigma in ends]


def test_job_starts_are_timed_once_per_paper(monkeypatch):
    from dpsampling.pipeline import estimate as estimate_module

    started = []
    monkeypatch.setattr(estimate_module, "start_seconds", lambda module: started.append(module) or float(len(module)))
    starts = estimate_module.JobStarts()
    starts.measure(["chua24_fig1", "chua24_fig2", "lebeda24_table1", "lebeda24_rr"])
    assert sorted(started) == ["dpsampling.papers.chua24.fig1", "dpsampling.papers.lebeda24.table1"]
    assert starts("chua24_fig2") == starts("chua24_fig1") == len("dpsampling.papers.chua24.fig1")
    assert starts("lebeda24_rr") == len("dpsampling.papers.lebeda24.table1")
