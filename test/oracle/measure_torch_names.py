"""scripts/measure-torch without PyTorch: its node names are gen's.

Every leaf module of torchvision's resnet50 and transformers' BertModel that measure-torch
gives a node (their names as those libraries make them, spelled out here) must name a node of
gen's zoo model in the manifest given; the models' names must be gen's; a file with another
header is refused; without PyTorch the script exits 3.

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


def resnet50_leaves():
    names = ["conv1", "bn1", "relu", "maxpool", "avgpool", "fc"]
    for li, blocks in enumerate([3, 4, 6, 3], 1):
        for b in range(blocks):
            p = f"layer{li}.{b}"
            names += [f"{p}.{k}" for k in ("conv1", "bn1", "conv2", "bn2", "conv3", "bn3", "relu")]
            if b == 0:
                names += [f"{p}.downsample.0", f"{p}.downsample.1"]
    return names


def bert_leaves():
    names = ["embeddings.word_embeddings", "embeddings.position_embeddings", "embeddings.token_type_embeddings",
             "embeddings.LayerNorm", "embeddings.dropout", "pooler.dense", "pooler.activation"]
    for i in range(12):
        p = f"encoder.layer.{i}"
        names += [f"{p}.attention.self.{k}" for k in ("query", "key", "value", "dropout")]
        names += [f"{p}.attention.output.{k}" for k in ("dense", "LayerNorm", "dropout")]
        names += [f"{p}.intermediate.dense", f"{p}.intermediate.intermediate_act_fn"]
        names += [f"{p}.output.{k}" for k in ("dense", "LayerNorm", "dropout")]
    return names


def main():
    manifest = sys.argv[1]
    bad = 0
    for model, leaves, want in (("resnet50", resnet50_leaves(), 108), ("bert_base", bert_leaves(), 28)):
        nodes = mt.manifest_nodes(manifest, mt.zoo_name(model, 128))
        if not nodes:
            print(f"FAIL: no nodes of {mt.zoo_name(model, 128)} in {manifest}")
            return 1
        mapped = [(m, mt.node_for(model, m)) for m in leaves]
        mapped = [(m, n) for m, n in mapped if n]
        missing = [(m, n) for m, n in mapped if n not in nodes]
        for m, n in missing:
            print(f"FAIL: {model} module {m} -> node {n}, which gen's model does not have")
        bad += len(missing)
        if len(mapped) != want:
            print(f"FAIL: {model}: {len(mapped)} modules mapped, expected {want}")
            bad += 1
        if len(set(n for _, n in mapped)) != len(mapped):
            print(f"FAIL: {model}: two modules map to one node")
            bad += 1
        print(f"{model}: {len(mapped)} leaf modules name nodes of gen's model")
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
    r = subprocess.run([sys.executable, script, "--dtype", "f64"], capture_output=True, text=True)
    if r.returncode != 2:
        print(f"FAIL: a bad --dtype: exit {r.returncode}")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
