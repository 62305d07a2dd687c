"""gen's operator schemas (the node check's input and output counts and required inputs, and
the opset versions that define each operator, printed by gen --ops) against onnx.defs: for
every operator of the default and training domains, the counts must be the loosest over the
operator's ONNX versions (a node any version accepts passes, a node no version accepts fails),
the opsets its first version to the last before it was deprecated (or to the newest).

    python3 test/oracle/schema_check.py GEN
"""
import subprocess
import sys

import onnx.defs as D


def span(lo, hi):
    hi = "+" if hi > 255 else hi
    return f"{lo}+" if hi == "+" else (str(lo) if lo == hi else f"{lo}-{hi}")


def main():
    out = subprocess.run([sys.argv[1], "--ops"], capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in out if line.startswith("| ")]
    rows = rows[1:]  # the header
    history = D.get_all_schemas_with_history()
    bad = checked = 0
    for op, domain, opsets, ins, req, outs, _kind, _cpu, _cuda in rows:
        dom = "" if domain == "ai.onnx" else domain
        vs = [s for s in history if s.name == op and s.domain == dom]
        if not vs:
            if dom != "com.microsoft":
                print(f"FAIL: {domain} {op}: onnx has no schema")
                bad += 1
            continue
        want_in = span(min(s.min_input for s in vs), max(s.max_input for s in vs))
        single = D.OpSchema.FormalParameterOption.Single
        required = set(range(32))
        for s in vs:
            required &= {i for i, p in enumerate(s.inputs) if p.option == single}
        want_req = ",".join(str(i) for i in sorted(required)) or "-"
        if req != want_req:
            print(f"FAIL: {domain} {op}: gen requires inputs {req}; onnx: {want_req}")
            bad += 1
        want_out = span(min(s.min_output for s in vs), max(s.max_output for s in vs))
        last = max(vs, key=lambda s: s.since_version)
        first = min(s.since_version for s in vs)
        want_ops = f"{first}-{last.since_version - 1}" if last.deprecated else f"{first}-"
        if want_ops.split("-")[0] == want_ops.split("-")[1]:
            want_ops = want_ops.split("-")[0]
        if opsets != want_ops:
            print(f"FAIL: {domain} {op}: gen says opsets {opsets}; onnx: {want_ops}")
            bad += 1
        checked += 1
        if (ins, outs) != (want_in, want_out):
            print(f"FAIL: {domain} {op}: gen says inputs {ins}, outputs {outs}; onnx: {want_in}, {want_out}")
            bad += 1
    print(f"{checked} operator schemas hold against onnx.defs ({len(rows)} operators in gen's table)")
    return 1 if bad or checked < 150 else 0


if __name__ == "__main__":
    sys.exit(main())
