from fingap.answers.described import name_described_items
from fingap.answers.formulas import load_library
from fingap.answers.labels import Vocabulary
from fingap.answers.question import asked_phrase, parse_question

# the glossary's readings, as a fake reader: words -> (concept, score)
READ = {"stock of goods": ("inventory", 0.8),
        "everything it owed within the year": ("total_current_liabilities", 0.75),
        "income statement": ("operating_income", 0.9)}


def _name(question: str, skip: frozenset[str] = frozenset()):
    return name_described_items(question, asked_phrase(question) or question, READ.get,
                                Vocabulary.load(), load_library(), skip)


def test_a_described_line_item_is_named_and_the_metric_built_around_it():
    q = "What was Foo's stock of goods turnover in fiscal 2021?"
    text, done = _name(q)
    assert text == "What was Foo's inventory turnover in fiscal 2021?"
    assert [(r.words, r.concept) for r in done] == [("stock of goods", "inventory")]
    assert parse_question(text).metric == "inventory_turnover"


def test_a_maturity_is_read_whole_and_known_names_are_left_alone():
    q = ("What was the ratio of Foo's total current assets to everything it owed within the "
         "year at December 31, 2021?")
    text, done = _name(q, frozenset({"foo", "foos"}))
    assert [r.words for r in done] == ["everything it owed within the year"]
    assert "total current assets to total current liabilities at" in text


def test_statements_dates_and_shape_words_are_never_read_as_line_items():
    q = ("Using its income statement, what was Foo's widget turnover for the year ended "
         "May 31, 2021?")
    assert _name(q) == (q, [])
    # a word the question's other parts name ("of" in "cost of goods sold") does not block a
    # span elsewhere
    q = ("How many times did Foo turn over its stock of goods in 2021? Divide cost of goods "
         "sold by average inventory.")
    assert [r.words for r in _name(q)[1]] == ["stock of goods"]


def test_the_holders_after_attributable_to_are_never_read_as_a_line_item():
    read = {"own shareholders": ("total_equity", 0.79)}
    q = ("What return did Foo earn, measured as the profit attributable to Foo's own "
         "shareholders divided by the average of the asset totals?")
    text, done = name_described_items(q, asked_phrase(q) or q, read.get, Vocabulary.load(),
                                      load_library(), frozenset({"foo", "foos"}))
    assert done == [] and text == q
    # the same words elsewhere are read as before
    q2 = "What was the value of Foo's own shareholders in 2022?"
    _, done2 = name_described_items(q2, asked_phrase(q2) or q2, read.get, Vocabulary.load(),
                                    load_library(), frozenset({"foo", "foos"}))
    assert [r.words for r in done2] == ["own shareholders"]
