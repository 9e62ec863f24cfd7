import numpy as np
import pytest

from fingap.core.io import read_json, read_jsonl, write_jsonl
from fingap.core.params import ParamError
from fingap.core.runs import write_run
from fingap.evaluation.scoring import add_answer_scores, aggregate_answers
from fingap.generation.llm_base import LLM
from fingap.generation.llm_cache import CachedLLM
from fingap.ingestion.corpus import Evidence, Question
from fingap.retrieval.dense import VectorQueries
from fingap.steps import generate as generation_steps
from fingap.steps import hyde as hyde_steps


class EchoLLM(LLM):
    backend = "fake"
    model_id = "echo"

    def __init__(self):
        self.calls = 0
        self.budgets: dict[str, set[int]] = {}  # reply kind -> max_new_tokens asked

    def generate(self, messages, max_new_tokens, temperature, seed):
        self.calls += 1
        user = messages[-1]["content"]
        kind = "subqueries" if "search queries" in user else "other"
        self.budgets.setdefault(kind, set()).add(max_new_tokens)
        if "Passage:" in user or "search queries" in user:
            return "1. revenue 2022\n2. net income 2022" if "search" in user else "Revenue was 5."
        return "The answer is $1,577 million." if "capex" in user else "unknown"


def q(qid, question, answer, qtype="metrics-generated", doc="D"):
    return Question(qid, "Co", doc, "10K", qtype, "", question, answer,
                    [Evidence(doc, 0, "ev", "ev")])


def test_excerpt_keeps_the_window_with_most_query_terms():
    text = "alpha beta gamma\ndelta capex 2019 capex epsilon zeta eta"
    assert generation_steps.excerpt(text, "What was capex in 2019?", 3) == "capex 2019 capex"
    assert generation_steps.excerpt(text, "nothing shared", 2) == "alpha beta"  # earliest
    assert generation_steps.excerpt(text, "capex", None) == text
    assert generation_steps.excerpt("short text", "capex", 5) == "short text"
    # cut from the original, so a table row's line break survives
    assert generation_steps.excerpt("z z z\na b\ncapex 1 2", "capex of 1", 4) == "a b\ncapex 1"


@pytest.mark.parametrize("bad,word", [
    ({"runs": [], "k": 5, "max_new_tokens": 8}, "generate.runs"),
    ({"runs": [["dense"]], "k": 5, "max_new_tokens": 8}, "generate.runs"),
    ({"runs": [["dense", "standard"]], "k": 0, "max_new_tokens": 8}, "generate.k"),
    ({"runs": [["dense", "standard"]], "k": 5, "max_new_tokens": 8,
      "context_words_per_chunk": 0}, "generate.context_words_per_chunk"),
])
def test_generate_params_fail_fast(bad, word):
    with pytest.raises(ParamError, match=word):
        generation_steps.validate_generate(bad)


def _setup(tmp_path):
    questions = [q("q1", "What was capex in 2022?", "$1,577.00"),
                 q("q2", "Who is the CEO?", "Jane Doe", "domain-relevant")]
    write_jsonl(tmp_path / "questions.jsonl", [x.to_dict() for x in questions])
    write_jsonl(tmp_path / "chunks.jsonl", [
        {"chunk_id": "D::c0", "doc": "D", "page": 0, "text": "Capex was 1,577 in 2022."},
        {"chunk_id": "D::c1", "doc": "D", "page": 1, "text": "The CEO is Jane Doe."}])
    write_run(tmp_path / "runs" / "dense" / "standard.json",
              {"q1": [("D::c0", 0.9), ("D::c1", 0.1)], "q2": [("D::c1", 0.8)]})
    return questions


def test_run_generate_writes_answers_and_a_rerun_makes_no_llm_call(tmp_path, monkeypatch):
    questions = _setup(tmp_path)
    inner = EchoLLM()
    monkeypatch.setattr(generation_steps, "open_llm",
                        lambda p, path: CachedLLM(inner, path, backend_id="fake"))
    params = {"llm": {"backend": "fake"}, "generate": {
        "runs": [["dense", "standard"]], "k": 1, "max_new_tokens": 8,
        "context_words_per_chunk": 50}}
    args = (params, tmp_path / "questions.jsonl", tmp_path / "chunks.jsonl", tmp_path / "runs",
            tmp_path / "answers", tmp_path / "llm.sqlite", tmp_path / "gen.json")
    report = generation_steps.run_generate(*args)
    rows = read_jsonl(tmp_path / "answers" / "dense__standard.jsonl")
    assert [r["chunk_ids"] for r in rows] == [["D::c0"], ["D::c1"]]  # top k=1 each
    assert rows[0]["answer"] == "The answer is $1,577 million." and rows[0]["error"] is None
    assert report["llm_calls"] == 2 and inner.calls == 2

    report = generation_steps.run_generate(*args)  # dvc repro --force
    assert report["llm_calls"] == 0 and report["cache_hit_rate"] == 1.0 and inner.calls == 2
    assert read_json(tmp_path / "gen.json")["runs"]["dense__standard"]["llm_calls"] == 0

    # answers scored against the gold: "$1,577.00" vs "1,577 million" is a numeric match
    from fingap.core.runs import read_run
    from fingap.evaluation.scoring import ChunkLookup, score_run

    lookup = ChunkLookup(["D::c0", "D::c1"], ["D", "D"], [0, 1], ["a", "b"])
    records = score_run(questions, read_run(tmp_path / "runs/dense/standard.json"), lookup, 5)
    add_answer_scores(records, {r["question_id"]: r for r in rows}, questions)
    agg = aggregate_answers(records)
    assert records[0]["NumMatch"] == 1.0 and records[0]["gold_numeric"]
    assert agg["NumMatch"] == 1.0 and agg["n_metrics_generated"] == 1
    assert agg["n_numeric"] == 1 and agg["gen_failed"] == 0
    assert agg["AnsROUGE-L"] == pytest.approx(np.mean([r["AnsROUGE-L"] for r in records]))


def test_run_generate_names_a_missing_run_before_any_llm_call(tmp_path, monkeypatch):
    _setup(tmp_path)
    monkeypatch.setattr(generation_steps, "open_llm", lambda *a: pytest.fail("LLM opened"))
    params = {"llm": {}, "generate": {"runs": [["hybrid", "standard"]], "k": 5,
                                      "max_new_tokens": 8}}
    with pytest.raises(ParamError, match="hybrid"):
        generation_steps.run_generate(params, tmp_path / "questions.jsonl",
                                      tmp_path / "chunks.jsonl", tmp_path / "runs",
                                      tmp_path / "answers", tmp_path / "c.sqlite",
                                      tmp_path / "g.json")


def test_run_hyde_and_the_vectors_it_feeds(tmp_path, monkeypatch):
    _setup(tmp_path)
    inner = EchoLLM()
    monkeypatch.setattr(hyde_steps, "open_llm",
                        lambda p, path: CachedLLM(inner, path, backend_id="fake"))
    params = {"llm": {}, "hyde": {"temperature": 0.7, "max_new_tokens": 20, "seed": 1,
                                  "n_subqueries": 2, "multi_hyde_mode": "mean",
                                  "subquery_max_new_tokens": 30}}
    report = hyde_steps.run_hyde(params, tmp_path / "questions.jsonl", tmp_path / "hyde",
                                 tmp_path / "c.sqlite", tmp_path / "hyde.json")
    # 2 HyDE passages + 2 sub-query lists + 4 Multi-HyDE passages, but both questions get the
    # same two sub-queries (same text, same seed), so the cache sends only 2 of those 4
    assert report["llm_requests"] == 8 and report["llm_calls"] == 6
    assert report["hyde_failed"] == 0
    assert inner.budgets == {"subqueries": {30}, "other": {20}}  # each its own budget
    multi = read_jsonl(tmp_path / "hyde" / "multi_hyde.jsonl")
    assert multi[0]["subqueries"] == ["revenue 2022", "net income 2022"]
    rerun = hyde_steps.run_hyde(params, tmp_path / "questions.jsonl", tmp_path / "hyde",
                                tmp_path / "c.sqlite", tmp_path / "hyde.json")
    assert rerun["llm_calls"] == 0 and rerun["cache_hit_rate"] == 1.0

    class Enc:  # one-hot by text length parity, enough to check plumbing
        def encode(self, texts, desc=""):
            return np.array([[1.0, 0.0] if len(t) % 2 else [0.0, 1.0] for t in texts])

    slots = hyde_steps.multi_hyde_vectors(tmp_path / "hyde", Enc(), ["q1", "q2"])
    assert len(slots) == 2
    mean = hyde_steps.mean_vectors(slots)
    assert np.linalg.norm(mean["q1"]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="rerun the hyde stage"):
        hyde_steps.hyde_vectors(tmp_path / "hyde", Enc(), ["q1", "q9"])

    bad = dict(params["hyde"], multi_hyde_mode="max")
    with pytest.raises(ParamError, match="hyde.multi_hyde_mode"):
        hyde_steps.validate_hyde(bad)


def test_vector_queries_search_by_question_id():
    from fingap.retrieval.dense import DenseRetriever

    dense = DenseRetriever(["c0", "c1"], np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32))
    vq = VectorQueries(dense, {"q1": np.array([0.1, 0.9], dtype=np.float32)})
    assert [c for c, _ in vq.search({"q1": "q1"}, 2)["q1"]] == ["c1", "c0"]
    restricted = vq.search({"q1": "q1"}, 2, {"q1": np.array([0])})
    assert [c for c, _ in restricted["q1"]] == ["c0"]
