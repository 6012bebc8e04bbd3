#!/usr/bin/env python3
"""Compares two folders of reports (scripts/dev/preset-reports.sh) field by field, bit for bit.

    python3 scripts/dev/compare-reports.py BEFORE AFTER

Every JSON file of BEFORE must exist in AFTER and hold the same document: the same keys, the same list
lengths, the same strings, and numbers equal as written (the reports write f64 with full round-trip
precision, so equal text is equal bits). Timing fields are skipped: any key named `seconds` or ending in
`_seconds` (wall-clock and CPU times, which no two runs share). Prints each difference by its JSON path and
exits 1 when there is one.
"""
import json
import os
import sys


def is_timing(key):
    return key == "seconds" or key.endswith("_seconds")


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if is_timing(k):
                continue
            if k not in a:
                out.append(f"{path}.{k}: only in after")
            elif k not in b:
                out.append(f"{path}.{k}: only in before")
            else:
                diff(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} before, {len(b)} after")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out)
    elif type(a) is not type(b) or (repr(a) != repr(b) if isinstance(a, float) else a != b):
        # Numbers compare as parsed from their shortest round-trip text: equal values are equal bits (NaN is
        # written as null by serde_json); repr tells -0.0 from 0.0.
        out.append(f"{path}: {json.dumps(a)[:80]} before, {json.dumps(b)[:80]} after")


def main():
    before, after = sys.argv[1], sys.argv[2]
    names = sorted(f for f in os.listdir(before) if f.endswith(".json"))
    bad = 0
    for name in names:
        p = os.path.join(after, name)
        if not os.path.exists(p):
            print(f"{name}: missing in {after}")
            bad += 1
            continue
        out = []
        with open(os.path.join(before, name)) as f1, open(p) as f2:
            diff(json.load(f1), json.load(f2), "$", out)
        if out:
            bad += 1
            print(f"{name}: {len(out)} differences")
            for line in out[:20]:
                print("  " + line)
        else:
            print(f"{name}: identical (timings aside)")
    print(f"{len(names) - bad} of {len(names)} reports identical")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
