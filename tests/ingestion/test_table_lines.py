from fingap.ingestion.table_lines import Line, Word, continues, line_cells, page_lines, split_values


def _words(*items: tuple[float, str], y: float = 100.0) -> list[Word]:
    """Words at x positions on one line, 5 points wide per character."""
    return [Word(x, y - 4, x + 5 * len(t), y + 4, t) for x, t in items]


def test_values_at_the_end_of_a_line_with_marks_and_leaders():
    line = Line(_words((50, "Other"), (80, "income"), (400, "(1,666)"), (470, "631"),
                       (520, "*")))
    split_values(line)
    assert line.label == "Other income" and [w.text for w in line.values] == ["(1,666)", "631"]
    line = Line(_words((50, "Net"), (70, "income......"), (131, "$"), (140, "629,551")))
    split_values(line)
    assert line.label == "Net income" and [w.text for w in line.values] == ["629,551"]


def test_a_second_text_cell_is_no_part_of_the_label():
    line = Line(_words((50, "2025"), (75, "Notes"), (200, "Senior"), (240, "Secured"),
                       (450, "971")))
    split_values(line)
    assert line.label == "2025 Notes"


def test_lines_cells_and_wrapped_labels():
    words = _words((50, "Purchases"), (100, "of"), (115, "plant"), (145, "and"), y=100) + \
        _words((55, "equipment"), (400, "(1,577)"), y=110)
    upper, lower = page_lines(words)
    split_values(upper)
    split_values(lower)
    assert continues(upper, lower, lower.label)
    assert line_cells(_words((300, "Three"), (330, "months"), (400, "Six"), (420, "months"))) \
        == [(0, 2), (2, 4)]


def test_amounts_inside_a_label_sentence_are_no_second_table():
    """'net of allowances of $9,151 and $6,214, respectively' runs on at word spacing: the
    row is read, where a label standing apart after a value is another table beside it."""
    line = Line(_words((58, "Trade"), (85, "receivables,"), (150, "of"), (162, "$9,151"),
                       (195, "and"), (213, "$6,214,"), (251, "respectively"),
                       (448, "1,217,968"), (528, "833,033")))
    split_values(line)
    assert not line.text_between_values
    assert line.label.endswith("respectively") and [w.text for w in line.values] == \
        ["1,217,968", "833,033"]
    beside = Line(_words((50, "Revenue"), (310, "1,234"), (400, "Cost"), (425, "of"),
                         (440, "sales"), (600, "3,000")))
    split_values(beside)
    assert beside.text_between_values
