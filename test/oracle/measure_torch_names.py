"""scripts/measure-torch without PyTorch: its node names are gen's.

Every module call of torchvision's resnet50 and transformers' BertModel and GPT2LMHeadModel that
measure-torch gives nodes (their names as those libraries make them, spelled out here: leaf
modules, the three calls of a ResNet block's ReLU, the modules whose own code launches kernels)
must name nodes of gen's zoo model in the manifest given, each node at most once; every
computing node of the three gets one (but BERT's pooler.first_token: a view in PyTorch, no
kernel). Its accounting
of module times (a module's own kernels: its range's less its children's; each profiler range
counted once) and of rows is held to hand-made profiles. The models' names must be gen's; a
file with another header is refused; without PyTorch the script exits 3, and --list-models
prints the models it has twins of.

    python3 test/oracle/measure_torch_names.py MANIFEST
"""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, "..", "..", "scripts", "measure-torch")
loader = importlib.machinery.SourceFileLoader("measure_torch", script)
spec = importlib.util.spec_from_loader("measure_torch", loader)
mt = importlib.util.module_from_spec(spec)
loader.exec_module(mt)


def resnet50_calls():
    """(module, call in a pass, leaf) for every module call of torchvision's resnet50"""
    calls = [(n, 0, True) for n in ("conv1", "bn1", "relu", "maxpool", "avgpool", "fc")]
    for li, blocks in enumerate([3, 4, 6, 3], 1):
        calls.append((f"layer{li}", 0, False))
        for b in range(blocks):
            p = f"layer{li}.{b}"
            calls.append((p, 0, False))
            calls += [(f"{p}.{k}", 0, True) for k in ("conv1", "bn1", "conv2", "bn2", "conv3", "bn3")]
            calls += [(f"{p}.relu", c, True) for c in range(3)]
            if b == 0:
                calls += [(f"{p}.downsample", 0, False), (f"{p}.downsample.0", 0, True), (f"{p}.downsample.1", 0, True)]
    return calls


def bert_calls():
    """the same for transformers' BertModel"""
    leaves = ["embeddings.word_embeddings", "embeddings.position_embeddings", "embeddings.token_type_embeddings",
              "embeddings.LayerNorm", "embeddings.dropout", "pooler.dense", "pooler.activation"]
    inner = ["embeddings", "encoder", "pooler"]
    for i in range(12):
        p = f"encoder.layer.{i}"
        inner += [p, f"{p}.attention", f"{p}.attention.self", f"{p}.attention.output", f"{p}.intermediate",
                  f"{p}.output"]
        leaves += [f"{p}.attention.self.{k}" for k in ("query", "key", "value", "dropout")]
        leaves += [f"{p}.attention.output.{k}" for k in ("dense", "LayerNorm", "dropout")]
        leaves += [f"{p}.intermediate.dense", f"{p}.intermediate.intermediate_act_fn"]
        leaves += [f"{p}.output.{k}" for k in ("dense", "LayerNorm", "dropout")]
    return [(n, 0, True) for n in leaves] + [(n, 0, False) for n in inner]


def gpt2_calls():
    """the same for transformers' GPT2LMHeadModel"""
    leaves = ["transformer.wte", "transformer.wpe", "transformer.drop", "transformer.ln_f", "lm_head"]
    inner = ["transformer"]
    for i in range(12):
        p = f"transformer.h.{i}"
        inner += [p, f"{p}.attn", f"{p}.mlp"]
        leaves += [f"{p}.ln_1", f"{p}.ln_2"]
        leaves += [f"{p}.attn.{k}" for k in ("c_attn", "c_proj", "attn_dropout", "resid_dropout")]
        leaves += [f"{p}.mlp.{k}" for k in ("c_fc", "c_proj", "act", "dropout")]
    return [(n, 0, True) for n in leaves] + [(n, 0, False) for n in inner]


def accounting():
    """module_times and node_rows against hand-made profiles; the number of failures"""
    bad = 0
    # two passes: a block (60 us a pass) holding conv (30) and its relu called twice (5 + 4):
    # its own part 21; a module
    # seen in one pass only is left out
    ranges = {("layer1.0", 0): 120.0, ("layer1.0.conv1", 0): 60.0, ("layer1.0.relu", 0): 10.0,
              ("layer1.0.relu", 1): 8.0, ("once", 0): 7.0}
    children = {("layer1.0", 0): {("layer1.0.conv1", 0), ("layer1.0.relu", 0), ("layer1.0.relu", 1)}}
    calls = {k: 2 for k in ranges}
    calls[("once", 0)] = 1
    t = mt.module_times(ranges, children, calls, 2)
    want = {("layer1.0", 0): (60.0, 21.0), ("layer1.0.conv1", 0): (30.0, 30.0), ("layer1.0.relu", 0): (5.0, 5.0),
            ("layer1.0.relu", 1): (4.0, 4.0)}
    if t != want:
        print(f"FAIL: module_times: {t}, expected {want}")
        bad += 1
    # children whose ranges sum past the parent's (clock noise): its own part is 0, not negative
    t = mt.module_times({("a", 0): 5.0, ("b", 0): 6.0}, {("a", 0): {("b", 0)}}, {("a", 0): 1, ("b", 0): 1}, 1)
    if t[("a", 0)] != (5.0, 0.0):
        print(f"FAIL: module_times: an own part below 0: {t[('a', 0)]}")
        bad += 1
    leaves = {"layer1.0.conv1", "layer1.0.relu"}
    rows = mt.node_rows("resnet50", want, leaves, None)
    got = sorted((n, us) for n, us, _ in rows)
    expect = sorted([("layer1.0.add", 21.0), ("layer1.0.1.conv", 30.0), ("layer1.0.1.relu", 5.0),
                     ("layer1.0.2.relu", 4.0)])
    if got != expect:
        print(f"FAIL: node_rows: {got}, expected {expect}")
        bad += 1
    # a module whose own code launched nothing gives no row; --manifest's names filter
    rows = mt.node_rows("resnet50", {("layer1.0", 0): (40.0, 0.0), ("layer1.0.conv1", 0): (30.0, 30.0)}, leaves,
                        {"layer1.0.add"})
    if rows:
        print(f"FAIL: node_rows: {rows}: rows for no kernels or for names the manifest lacks")
        bad += 1
    rows = mt.node_rows("bert_base", {("encoder.layer.0.attention.self.query", 0): (9.0, 9.0)},
                        {"encoder.layer.0.attention.self.query"}, None)
    if [r[0] for r in rows] != ["encoder.layer.0.attention.self.query.matmul+encoder.layer.0.attention.self.query.add"]:
        print(f"FAIL: node_rows: a Linear gives {rows}")
        bad += 1
    # the profiler's events: a kernel outside any range, one inside range a#0 (4 us), and a#0 as
    # its CPU-side annotation (its kernels' 4 us) and as its GPU-side mirror (span 5 us): 4 us
    total, ranges = mt.range_times([("k1", True, 0.0, 2.0), ("k2", True, 0.0, 4.0), ("bz::a#0", False, 4.0, 9.0),
                                    ("bz::a#0", True, 5.0, 5.0), ("aten::add", False, 4.0, 1.0)])
    if total != 6.0 or ranges != {("a", 0): 4.0}:
        print(f"FAIL: range_times: {total}, {ranges}: each range once, at its kernels' time")
        bad += 1
    # a profiler without the CPU side's kernel times: the mirror's span
    total, ranges = mt.range_times([("k1", True, 0.0, 3.0), ("bz::a#0", False, 0.0, 9.0), ("bz::a#0", True, 3.5, 3.5)])
    if ranges != {("a", 0): 3.5}:
        print(f"FAIL: range_times without CPU-side kernel times: {ranges}")
        bad += 1
    return bad


def computing_nodes(path, name):
    """the computing nodes of one model in a manifest"""
    runs, names = set(), set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "run" and len(p) >= 3 and p[2] == name:
                runs.add(p[1])
            elif p[0] == "node" and len(p) >= 9 and p[1] in runs and p[4] == "compute":
                names.add(p[8])
    return names


def main():
    manifest = sys.argv[1]
    bad = accounting()
    for model, calls, want in (("resnet50", resnet50_calls(), 174), ("bert_base", bert_calls(), 151),
                               ("gpt2", gpt2_calls(), 112)):
        nodes = mt.manifest_nodes(manifest, mt.zoo_name(model, 128))
        if not nodes:
            print(f"FAIL: no nodes of {mt.zoo_name(model, 128)} in {manifest}")
            return 1
        mapped = [(m, mt.node_for(model, m, c, leaf)) for m, c, leaf in calls]
        mapped = [(m, n) for m, n in mapped if n]
        missing = [(m, p) for m, n in mapped for p in n.split("+") if p not in nodes]
        for m, p in missing:
            print(f"FAIL: {model} module {m} -> node {p}, which gen's model does not have")
        bad += len(missing)
        if len(mapped) != want:
            print(f"FAIL: {model}: {len(mapped)} module calls mapped, expected {want}")
            bad += 1
        parts = [p for _, n in mapped for p in n.split("+")]
        if len(set(parts)) != len(parts):
            print(f"FAIL: {model}: a node is given to two module calls")
            bad += 1
        left = computing_nodes(manifest, mt.zoo_name(model, 128)) - set(parts) - {"pooler.first_token"}
        if left:
            print(f"FAIL: {model}: computing nodes no module call names: {sorted(left)[:5]}")
            bad += 1
        print(f"{model}: {len(mapped)} module calls name {len(parts)} nodes of gen's model")
    with tempfile.TemporaryDirectory() as d:
        other = os.path.join(d, "m.csv")
        with open(other, "w") as f:
            f.write("model,batch,dtype,device,framework,threads,latency_us,runs,note\n")
        try:
            mt.open_out(other)
            print("FAIL: a file without the node column was accepted")
            bad += 1
        except SystemExit:
            pass
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    if not have_torch:
        r = subprocess.run([sys.executable, script, "--model", "resnet50", "--out", os.devnull],
                           capture_output=True, text=True)
        if r.returncode != 3 or "no PyTorch" not in r.stderr:
            print(f"FAIL: without PyTorch: exit {r.returncode}, {r.stderr.strip()}")
            bad += 1
    # gpu-run picks the zoo models to measure by this list: it needs no PyTorch
    r = subprocess.run([sys.executable, script, "--list-models"], capture_output=True, text=True)
    if r.returncode != 0 or r.stdout.split() != sorted(mt.MODELS) or "resnet50" not in r.stdout.split():
        print(f"FAIL: --list-models: exit {r.returncode}, {r.stdout.split()}")
        bad += 1
    r = subprocess.run([sys.executable, script, "--dtype", "f64"], capture_output=True, text=True)
    if r.returncode != 2:
        print(f"FAIL: a bad --dtype: exit {r.returncode}")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
