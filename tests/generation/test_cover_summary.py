from fingap.generation.cover_summary import SYSTEM, clean_summary, summary_messages


def test_summary_prompt_names_the_filing_and_cuts_its_pages():
    msgs = summary_messages("Acme", "10-K", "ACME_2022_10K", ["a" * 40, "b" * 40], max_chars=50)
    assert msgs[0] == {"role": "system", "content": SYSTEM}
    user = msgs[1]["content"]
    assert user.startswith("The first pages of Acme's 10-K (ACME_2022_10K):")
    # the pages joined by a blank line, cut to 50 characters: 40 a's, 2 newlines, 8 b's
    assert "a" * 40 + "\n\n" + "b" * 8 + "\n\n" in user and "b" * 9 not in user
    assert "fiscal period" in user


def test_clean_summary_is_one_line_within_its_length():
    reply = "  Acme's 10-K\n covers\tfiscal 2022. "
    assert clean_summary(reply) == "Acme's 10-K covers fiscal 2022."
    assert clean_summary("word " * 200, max_chars=20) == "word word word word "
    assert clean_summary(" \n ") == ""
