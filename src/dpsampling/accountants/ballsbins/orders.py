"""Order lists k_1 < ... < k_r for order-statistics sampling (Alg. 6) and their text form.

The paper writes its lists as runs, e.g. (1, ..., 500, 510, ..., 1000, 1100, ..., 19900);
the text form here is ``"1..500,510..1000/10,1100..19900/100"``: comma-separated items, each
``a`` or ``a..b`` (every integer from a to b inclusive) or ``a..b/s`` (a, a+s, ..., b; b - a
must be a multiple of s). The whole list must be strictly increasing.

For T steps a usable list lies in [1, T - 1] and starts at 1: the upper bound (4) covers the
ranks below k_1 only when k_1 = 1, and the remove direction draws order statistics of
R = T - 1 coordinates, so k_r <= T - 1.
"""

from __future__ import annotations

import re

import numpy as np

from dpsampling.validation import check_int_at_least

_ITEM = re.compile(r"^\s*(\d+)\s*(?:\.\.\s*(\d+)\s*(?:/\s*(\d+)\s*)?)?$")


def parse_orders(text: str) -> np.ndarray:
    """Parse ``"1..500,510..1000/10"`` into an increasing int64 array; ValueError if malformed."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"orders must be a non-empty text such as '1..500,510..1000/10'; got {text!r}")
    values: list[int] = []
    for item in text.split(","):
        match = _ITEM.match(item)
        if match is None:
            raise ValueError(f"orders must be comma-separated items 'a', 'a..b' or 'a..b/s' "
                             f"with non-negative integers; got {item.strip()!r} in {text!r}")
        start = int(match.group(1))
        stop = int(match.group(2)) if match.group(2) is not None else start
        step = int(match.group(3)) if match.group(3) is not None else 1
        if step < 1:
            raise ValueError(f"orders must use a step >= 1; got {item.strip()!r} in {text!r}")
        if stop < start or (stop - start) % step != 0:
            raise ValueError(f"orders must have items a..b/s with a <= b and b - a a multiple "
                             f"of s; got {item.strip()!r} in {text!r}")
        values.extend(range(start, stop + 1, step))
    result = np.array(values, dtype=np.int64)
    if np.any(np.diff(result) <= 0):
        raise ValueError(f"orders must be strictly increasing; got {text!r}")
    return result


def format_orders(orders) -> str:
    """Inverse of parse_orders: the shortest run encoding of an increasing integer list."""
    orders = [int(k) for k in orders]
    items = []
    i = 0
    while i < len(orders):
        j = i
        if i + 1 < len(orders):
            step = orders[i + 1] - orders[i]
            while j + 1 < len(orders) and orders[j + 1] - orders[j] == step:
                j += 1
        if j == i:
            items.append(str(orders[i]))
        elif j == i + 1 and step != 1:
            items.append(str(orders[i]))
            j = i
        else:
            items.append(f"{orders[i]}..{orders[j]}" + (f"/{step}" if step != 1 else ""))
        i = j + 1
    return ",".join(items)


def validate_orders(orders, steps) -> np.ndarray:
    """Return ``orders`` as int64 after checking: 1-d, non-empty, integers, strictly increasing,
    first element 1, last element <= T - 1 (so T >= 2). A string is parsed first."""
    steps = check_int_at_least("steps", steps, 2)
    if isinstance(orders, str):
        orders = parse_orders(orders)
    array = np.asarray(orders)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"orders must be a non-empty 1-d list of integers; got {orders!r}")
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)) or np.any(array != np.round(array)):
            raise ValueError(f"orders must be integers; got {orders!r}")
    elif array.dtype.kind not in "iu":
        raise ValueError(f"orders must be integers; got {orders!r}")
    array = array.astype(np.int64)
    if np.any(np.diff(array) <= 0):
        raise ValueError(f"orders must be strictly increasing; got {_short(array)}")
    if array[0] != 1 or array[-1] > steps - 1:
        raise ValueError(f"orders must start at 1 and stay inside [1, T - 1] = [1, {steps - 1}]; "
                         f"got {_short(array)}")
    return array


def _short(array: np.ndarray) -> str:
    if array.size <= 8:
        return repr(array.tolist())
    head = ", ".join(str(v) for v in array[:4])
    tail = ", ".join(str(v) for v in array[-3:])
    return f"[{head}, ..., {tail}] ({array.size} orders)"
