"""Click-through data: a deterministic synthetic default and loaders for the Criteo files.

Every dataset is turned into the same arrays: ``labels`` (0/1, float64), ``numeric``
(float64, n x d, already log1p-transformed), ``categorical`` (int64, n x c, each column's
values hashed into [0, buckets)). Nothing is downloaded.

Synthetic data (the default): numeric features ~ lognormal counts, categorical features with
Zipf-like popularity, and a label from a hidden logistic model
    logit = bias + numeric @ w + sum_j e_j[categorical_j],
with the bias set so that the positive rate is about ``positive_rate`` (Criteo display ads:
~25%). It is generated in chunks, each from its own SeedSequence child, so millions of rows
stream in bounded memory and the same seed always gives the same data.

Criteo Display Ads pCTR (Kaggle 'Display Advertising Challenge' train.txt): tab-separated,
no header, 40 columns: label, I1..I13 (integers, may be empty), C1..C26 (hex strings, may be
empty). Criteo Sponsored Search Conversion Log (CriteoSearchData): tab-separated, no header,
23 columns (see SEARCH_COLUMNS); the label is Sale; the outcome columns SalesAmountInEuro and
time_delay_for_conversion and the leaky product_price are dropped; every other column is
treated as categorical, as in chua25 Sec. 5.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from dpsampling.training.features import example_rows
from dpsampling.validation import check_int_at_least, check_open_unit

PCTR_COLUMNS = ["label"] + [f"I{i}" for i in range(1, 14)] + [f"C{i}" for i in range(1, 27)]
SEARCH_COLUMNS = [
    "Sale", "SalesAmountInEuro", "time_delay_for_conversion", "click_timestamp", "nb_clicks_1week",
    "product_price", "product_age_group", "device_type", "audience_id", "product_gender", "product_brand",
    "product_category1", "product_category2", "product_category3", "product_category4", "product_category5",
    "product_category6", "product_category7", "product_country", "product_id", "product_title", "partner_id",
    "user_id",
]
SEARCH_DROPPED = ["SalesAmountInEuro", "time_delay_for_conversion", "product_price"]


@dataclass(frozen=True)
class Dataset:
    labels: np.ndarray
    numeric: np.ndarray
    categorical: np.ndarray
    buckets: int

    def __len__(self) -> int:
        return len(self.labels)

    @cached_property
    def rows(self) -> np.ndarray:
        """[label | numeric | hashed ids | squared feature norm] per example, built once
        (``features.example_rows``): what the logistic model's gradient reads."""
        return example_rows(self.labels, self.numeric, self.categorical)

    def take(self, index) -> Dataset:
        return Dataset(self.labels[index], self.numeric[index], self.categorical[index], self.buckets)


def _hash_column(values: pd.Series, column: int, buckets: int) -> np.ndarray:
    """Stable (process-independent) hash of (column, value) into [0, buckets)."""
    codes, uniques = pd.factorize(values.astype("string").fillna(""), sort=False)
    table = np.array([zlib.crc32(f"{column}:{u}".encode()) % buckets for u in uniques], dtype=np.int64)
    return table[codes]


def synthetic_ctr(rows: int, seed: int = 0, numeric_features: int = 4, categorical_features: int = 6,
                  cardinality: int = 2000, buckets: int = 2**14, positive_rate: float = 0.25,
                  chunk_rows: int = 1_000_000) -> Dataset:
    """The deterministic synthetic CTR-like dataset (see the module docstring)."""
    rows = check_int_at_least("rows", rows, 1)
    positive_rate = check_open_unit("positive_rate", positive_rate)
    check_int_at_least("buckets", buckets, 2)
    root = np.random.SeedSequence([seed, 0xC7])
    model_rng = np.random.default_rng(root.spawn(1)[0])
    numeric_weights = model_rng.normal(0, 0.6, numeric_features)
    embeddings = model_rng.normal(0, 1.0, (categorical_features, cardinality))
    popularity = 1.0 / np.arange(1, cardinality + 1) ** 1.1
    popularity /= popularity.sum()
    chunks = []
    for start, child in zip(range(0, rows, chunk_rows), root.spawn((rows + chunk_rows - 1) // chunk_rows + 1)[1:]):
        rng = np.random.default_rng(child)
        size = min(chunk_rows, rows - start)
        numeric = np.log1p(np.floor(rng.lognormal(1.0, 1.2, (size, numeric_features))))
        raw = np.stack([rng.choice(cardinality, size=size, p=popularity) for _ in range(categorical_features)], axis=1)
        logit = (numeric - 1.0) @ numeric_weights + embeddings[np.arange(categorical_features), raw].sum(axis=1)
        chunks.append((numeric, raw, logit, rng.random(size)))
    numeric = np.concatenate([c[0] for c in chunks])
    raw = np.concatenate([c[1] for c in chunks])
    logit = np.concatenate([c[2] for c in chunks])
    uniform = np.concatenate([c[3] for c in chunks])
    bias = _bias_for_rate(logit, positive_rate)
    labels = (uniform < 1 / (1 + np.exp(-(logit + bias)))).astype(np.float64)
    hashed = (raw + cardinality * np.arange(categorical_features)) * 2654435761 % buckets
    return Dataset(labels, numeric, hashed.astype(np.int64), buckets)


def _bias_for_rate(logit: np.ndarray, rate: float) -> float:
    """The bias b with mean(sigmoid(logit + b)) = rate (bisection; the mean is increasing in b)."""
    low, high = -30.0, 30.0
    for _ in range(80):
        middle = (low + high) / 2
        if np.mean(1 / (1 + np.exp(-(logit + middle)))) < rate:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _read(path, columns: list[str], chunk_rows: int):
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"data file {path} does not exist")
    if path.stat().st_size == 0:
        raise ValueError(f"data file {path} is empty")
    try:
        reader = pd.read_csv(path, sep="\t", header=None, names=columns, dtype="string", chunksize=chunk_rows,
                             on_bad_lines="error", engine="c")
        frames = list(reader)
    except pd.errors.ParserError as error:
        raise ValueError(f"data file {path} is malformed: {error}") from error
    frame = pd.concat(frames, ignore_index=True)
    if frame.empty:
        raise ValueError(f"data file {path} has no rows")
    return path, frame


def _labels(path, frame, column) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = ~values.isin([0, 1])
    if bad.any():
        row = int(np.argmax(bad.to_numpy()))
        raise ValueError(f"data file {path}, row {row + 1}: label column {column} must be 0 or 1; got {frame[column].iloc[row]!r}")
    return values.to_numpy(dtype=np.float64)


def _check_width(path, frame, columns):
    if frame[columns[-1]].isna().all():
        raise ValueError(f"data file {path} has fewer than the {len(columns)} tab-separated columns expected "
                         f"(missing column {columns[-1]})")


def load_criteo_pctr(path, buckets: int = 2**18, chunk_rows: int = 1_000_000) -> Dataset:
    """Criteo Display Ads train.txt (see module docstring for the layout)."""
    path, frame = _read(path, PCTR_COLUMNS, chunk_rows)
    _check_width(path, frame, PCTR_COLUMNS)
    labels = _labels(path, frame, "label")
    integers = frame[[f"I{i}" for i in range(1, 14)]].apply(pd.to_numeric, errors="coerce").fillna(0).clip(lower=0)
    numeric = np.log1p(integers.to_numpy(dtype=np.float64))
    categorical = np.stack([_hash_column(frame[f"C{i}"], i, buckets) for i in range(1, 27)], axis=1)
    return Dataset(labels, numeric, categorical, buckets)


def load_criteo_search(path, buckets: int = 2**18, chunk_rows: int = 1_000_000) -> Dataset:
    """Criteo Sponsored Search Conversion Log (see module docstring for the layout)."""
    path, frame = _read(path, SEARCH_COLUMNS, chunk_rows)
    _check_width(path, frame, SEARCH_COLUMNS)
    labels = _labels(path, frame, "Sale")
    features = [c for c in SEARCH_COLUMNS if c != "Sale" and c not in SEARCH_DROPPED]
    categorical = np.stack([_hash_column(frame[c], i, buckets) for i, c in enumerate(features)], axis=1)
    return Dataset(labels, np.zeros((len(frame), 0)), categorical, buckets)


def split(dataset: Dataset, test_fraction: float, chronological: bool = True, seed: int = 0):
    """Train/test split: the last rows (chronological, as for pCTR) or a seeded random split."""
    test_fraction = check_open_unit("test_fraction", test_fraction)
    n = len(dataset)
    order = np.arange(n) if chronological else np.random.default_rng(seed).permutation(n)
    cut = n - max(1, int(round(n * test_fraction)))
    return dataset.take(order[:cut]), dataset.take(order[cut:])
