import pytest

from fingap.training.folds import FoldLeak
from fingap.training.synthetic_questions import template_questions


def fact(doc, page, label, concept, fy, rank=0, percent=0, tbl=0):
    return {"doc": doc, "page": page, "tbl": tbl, "label": label, "concept": concept,
            "concept_rank": rank, "fiscal_year": fy, "percent": percent}


FACTS = [
    fact("A_2022", 40, "Net income", "net_income", 2022),
    fact("A_2022", 41, "Net earnings:", "net_income", 2022, rank=1),   # a worse label
    fact("A_2022", 40, "Net income", "net_income", 2021),
    fact("A_2022", 45, "Purchases of property and equipment", "capex", 2022),
    fact("A_2022", 45, "Gross margin", "gross_margin", 2022, percent=1),  # a percent
    fact("A_2022", 46, "Other", None, 2022),                             # no concept
    fact("B_2021", 12, "EBITDA", "ebitda", 2021),
    fact("T_2023", 7, "Revenue", "revenue", 2023),                       # a test document
]
COMPANY = {"A_2022": "Acme", "B_2021": "Bolt", "T_2023": "Test"}


def test_one_question_per_line_item_and_year_on_the_preferred_labels_page():
    qs = template_questions(FACTS, COMPANY, ["A_2022", "B_2021"], ["T_2023"], per_doc=10,
                            seed=0)
    assert [(q.doc, q.page, q.question) for q in qs] == [
        ("A_2022", 45, "What was Acme's purchases of property and equipment in FY2022?"),
        ("A_2022", 40, "What was Acme's net income in FY2021?"),
        ("A_2022", 40, "What was Acme's net income in FY2022?"),
        ("B_2021", 12, "What was Bolt's EBITDA in FY2021?"),
    ]
    assert len({q.id for q in qs}) == 4


def test_per_doc_sampling_is_reproducible_and_bounded():
    a = template_questions(FACTS, COMPANY, ["A_2022"], [], per_doc=2, seed=3)
    b = template_questions(FACTS, COMPANY, ["A_2022"], [], per_doc=2, seed=3)
    assert a == b and len(a) == 2 and all(q.doc == "A_2022" for q in a)


def test_test_documents_are_never_used_and_asking_for_one_raises():
    qs = template_questions(FACTS, COMPANY, ["A_2022"], ["T_2023"], per_doc=10, seed=0)
    assert "T_2023" not in {q.doc for q in qs}
    with pytest.raises(FoldLeak, match="T_2023"):
        template_questions(FACTS, COMPANY, ["A_2022", "T_2023"], ["T_2023"], per_doc=10,
                           seed=0)
