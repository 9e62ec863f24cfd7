"""Encoder backends on CPU: texts/s and agreement with fp32 torch, per encoder
(reports/benchmarks.json, section "encoder_backends").

Encoders: the MiniLM bi-encoder (page scorer, dense and children indexes: one architecture,
256 tokens), the MiniLM cross-encoder (reranker, 256-token pairs) and SPLADE-tiny (512 tokens).
Backends: torch fp32 and bf16 autocast (what the pipeline runs), ONNX Runtime fp32 and dynamic
int8 (per-channel weights, on ORT's fused BERT graph), OpenVINO fp32 and bf16. SPLADE compares
fingap's earlier raw-transformers encoder with the sentence-transformers SparseEncoder port.

Inputs are real FinanceBench pages (the first pages of the first PDFs, by file name), encoded in
fingap's batches (length-sorted, 32). Every backend runs ``--repeats`` times, interleaved, and
the median texts/s is kept. Agreement: cosine to fp32 torch (bi-encoder), top-5 order and
maximum score difference per question (cross-encoder), bitwise equality (SPLADE port).

sentence-transformers' own ``backend="onnx"`` / ``"openvino"`` go through optimum, whose
releases on PyPI pin transformers below the 5.x the project uses (optimum-onnx 0.1.0:
transformers < 4.58; optimum-intel 2.2.0: < 5.6 and torchvision), so the ONNX graphs are
exported here with ``torch.onnx.export`` and run with the runtimes directly.

    pip install -e '.[encoder-bench]'
    python benchmarks/bench_encoder_backends.py
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from fingap.core.io import update_json_section

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reports/benchmarks.json"
BATCH = 32


def real_pages(n: int, n_pdfs: int = 8) -> list[str]:
    import pymupdf

    from fingap.ingestion.corpus import locate_corpus

    pdfs = sorted((locate_corpus() / "pdfs").glob("*.pdf"))[:n_pdfs]
    texts: list[str] = []
    for pdf in pdfs:
        with pymupdf.open(pdf) as doc:
            texts += [t for t in (p.get_text() for p in doc) if len(t) > 200][: n // n_pdfs + 1]
    return texts[:n]


def questions(n: int) -> list[str]:
    import json

    from fingap.ingestion.corpus import locate_corpus

    path = locate_corpus() / "data/financebench_open_source.jsonl"
    return [json.loads(line)["question"] for line in path.read_text().splitlines()[:n]]


def batches(lengths: list[int]) -> list[list[int]]:
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    return [order[b : b + BATCH] for b in range(0, len(order), BATCH)]


def export_onnx(module, sample: dict, path: Path, output: str) -> None:
    """The torch module's forward as an ONNX graph with dynamic batch and length."""
    import torch

    names = list(sample)

    class Forward(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, *args):
            return getattr(self.m(**dict(zip(names, args, strict=True))), output)

    axes = {k: {0: "batch", 1: "length"} for k in names}
    axes[output] = {0: "batch"} if output == "logits" else {0: "batch", 1: "length"}
    torch.onnx.export(Forward(module.eval()), tuple(sample[k] for k in names), str(path),
                      input_names=names, output_names=[output], dynamic_axes=axes,
                      opset_version=17, dynamo=False)


def ort_int8(path: Path, hidden: int) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    fused = path.with_name(path.stem + "_fused.onnx")
    optimizer.optimize_model(str(path), model_type="bert", num_heads=12,
                             hidden_size=hidden).save_model_to_file(str(fused))
    out = path.with_name(path.stem + "_int8.onnx")
    quantize_dynamic(str(fused), str(out), weight_type=QuantType.QInt8, per_channel=True,
                     extra_options={"DefaultTensorType": 1})
    return out


def runtime(path: Path, kind: str) -> Callable[[dict], np.ndarray]:
    """A function from numpy inputs to the graph's output, on ONNX Runtime or OpenVINO."""
    if kind.startswith("ort"):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        return lambda feed: sess.run(None, feed)[0]
    import openvino as ov

    hint = "bf16" if kind.endswith("bf16") else "f32"
    req = ov.Core().compile_model(str(path), "CPU", {"INFERENCE_PRECISION_HINT": hint,
                                                     "INFERENCE_NUM_THREADS": 2}
                                  ).create_infer_request()
    return lambda feed: req.infer(feed)[0]


def timed(fn: Callable[[], np.ndarray], n: int, repeats: list[float]) -> np.ndarray:
    t0 = time.perf_counter()
    out = fn()
    repeats.append(n / (time.perf_counter() - t0))
    return out


def run_backends(torch_runs: dict[str, Callable[[], np.ndarray]], onnx: Path,
                 graph_run: Callable[[Callable[[dict], np.ndarray]], np.ndarray], n: int,
                 repeats: int) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Median items/s and the last output of every backend, the backends interleaved."""
    runs = dict(torch_runs)
    for kind, path in [("ort_fp32", onnx), ("ort_int8", ort_int8(onnx, 384)),
                       ("openvino_fp32", onnx), ("openvino_bf16", onnx)]:
        runs[kind] = (lambda f: lambda: graph_run(f))(runtime(path, kind))
    speeds: dict[str, list[float]] = {k: [] for k in runs}
    outs = {}
    for _ in range(repeats):
        for kind, fn in runs.items():
            outs[kind] = timed(fn, n, speeds[kind])
    return {k: round(statistics.median(v), 2) for k, v in speeds.items()}, outs


def bi_encoder(texts: list[str], work: Path, repeats: int) -> dict:
    import torch
    from sentence_transformers import SentenceTransformer

    from fingap.core.models import resolve_model
    from fingap.core.precision import autocast

    st = SentenceTransformer(resolve_model("minilm"), device="cpu")
    st.max_seq_length = 256
    tok = st.tokenizer
    groups = batches([len(t) for t in texts])

    def torch_run(precision: str) -> np.ndarray:
        with autocast(precision), torch.inference_mode():
            return st.encode(texts, batch_size=BATCH, normalize_embeddings=True)

    def graph_run(fn) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for idx in groups:
            enc = tok([texts[i] for i in idx], padding=True, truncation=True, max_length=256,
                      return_tensors="np")
            h = fn({k: v.astype(np.int64) for k, v in enc.items()})
            mask = enc["attention_mask"][..., None].astype(np.float32)
            v = (h * mask).sum(1) / mask.sum(1)
            out[idx] = v / np.linalg.norm(v, axis=1, keepdims=True)
        return out

    sample = dict(tok(texts[:2], padding=True, truncation=True, max_length=256,
                      return_tensors="pt"))
    onnx = work / "minilm.onnx"
    export_onnx(st[0].auto_model, sample, onnx, "last_hidden_state")
    speeds, outs = run_backends({"torch_fp32": lambda: torch_run("fp32"),
                                 "torch_bf16": lambda: torch_run("bf16")},
                                onnx, graph_run, len(texts), repeats)
    ref = outs["torch_fp32"]
    return {kind: {"texts_per_s": speeds[kind],
                   "min_cosine_to_fp32": round(float((outs[kind] * ref).sum(1).min()), 5),
                   "mean_cosine_to_fp32": round(float((outs[kind] * ref).sum(1).mean()), 5)}
            for kind in speeds}


def cross_encoder(qs: list[str], pages: list[str], work: Path, repeats: int) -> dict:
    import torch

    from fingap.retrieval.reranking import CrossEncoderReranker

    per_q = len(pages) // len(qs)
    pairs = [(q, pages[i * per_q + j][:2000]) for i, q in enumerate(qs) for j in range(per_q)]
    torch_rr = {p: CrossEncoderReranker("minilm", precision=p, seed=13) for p in ("fp32", "bf16")}
    model = torch_rr["fp32"].model
    tok = model.tokenizer
    groups = batches([len(p[1]) for p in pairs])

    def graph_run(fn) -> np.ndarray:
        out = np.zeros(len(pairs), dtype=np.float32)
        for idx in groups:
            enc = tok([pairs[i][0] for i in idx], [pairs[i][1] for i in idx], padding=True,
                      truncation="only_second", max_length=256, return_tensors="np")
            out[idx] = fn({k: v.astype(np.int64) for k, v in enc.items()}).reshape(-1)
        return out

    sample = dict(tok([pairs[0][0]] * 2, [pairs[0][1]] * 2, padding=True,
                      truncation="only_second", max_length=256, return_tensors="pt"))
    onnx = work / "cross_encoder.onnx"
    with torch.no_grad():
        export_onnx(model.model, sample, onnx, "logits")
    speeds, outs = run_backends(
        {f"torch_{p}": (lambda rr: lambda: rr.score(pairs))(r) for p, r in torch_rr.items()},
        onnx, graph_run, len(pairs), repeats)
    ref = outs["torch_fp32"].reshape(len(qs), per_q)

    def agreement(s: np.ndarray) -> dict:
        s = s.reshape(len(qs), per_q)
        same = sum(list(np.argsort(-a, kind="stable")[:5])
                   == list(np.argsort(-b, kind="stable")[:5]) for a, b in zip(s, ref, strict=True))
        return {"same_top5_order": f"{same}/{len(qs)}",
                "max_abs_score_diff": round(float(np.abs(s - ref).max()), 5)}

    return {kind: {"pairs_per_s": speeds[kind], **agreement(outs[kind])} for kind in speeds}


def splade(texts: list[str], repeats: int) -> dict:
    import importlib.util
    import subprocess
    import sys

    from fingap.retrieval.splade import SpladeEncoder

    # fingap's raw-transformers SPLADE encoder before the port, from git
    old_src = subprocess.run(["git", "show", "b9e593e:src/fingap/retrieval/splade.py"],
                             cwd=ROOT, check=True, capture_output=True, text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(old_src)
    spec = importlib.util.spec_from_file_location("fingap.retrieval._splade_before_port", f.name)
    old_mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = old_mod
    spec.loader.exec_module(old_mod)
    out = {}
    for precision in ("fp32", "bf16"):
        encs = {"raw_transformers": old_mod.SpladeEncoder("splade-tiny", precision=precision),
                "sparse_encoder": SpladeEncoder("splade-tiny", precision=precision)}
        speeds: dict[str, list[float]] = {k: [] for k in encs}
        mats = {}
        for _ in range(repeats):
            for kind, enc in encs.items():
                mats[kind] = timed(lambda e=enc: e.encode(texts, top_terms=256), len(texts),
                                   speeds[kind])
        diff = mats["raw_transformers"] - mats["sparse_encoder"]
        out[precision] = {**{f"{k}_texts_per_s": round(statistics.median(v), 2)
                             for k, v in speeds.items()},
                          "bitwise_equal": bool(diff.nnz == 0 or abs(diff).max() == 0)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--texts", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=OUT, help="JSON file of the section")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(2)
    pages = real_pages(args.texts)
    with tempfile.TemporaryDirectory(prefix="fingap-backends-") as tmp:
        result = {
            "inputs": f"{len(pages)} FinanceBench pages (first pages of the first 8 PDFs), "
                      f"batches of {BATCH}, median of {args.repeats} interleaved repeats",
            "bi_encoder_minilm_256": bi_encoder(pages, Path(tmp), args.repeats),
            "cross_encoder_minilm_256": cross_encoder(questions(16), pages, Path(tmp),
                                                      args.repeats),
            "splade_tiny_512": splade(pages[:128], args.repeats),
        }
    result["command"] = "python benchmarks/bench_encoder_backends.py"
    update_json_section(args.out, "encoder_backends", result)
    print(result)


if __name__ == "__main__":
    main()
