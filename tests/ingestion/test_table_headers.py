from fingap.ingestion.table_headers import columns, end_date, header_cells
from fingap.ingestion.table_lines import Line, Word


def _line(*items: tuple[float, str], y: float = 100.0) -> Line:
    return Line([Word(x, y - 4, x + 5 * len(t), y + 4, t) for x, t in items])


def test_change_columns_and_years():
    header = _line((50, "(In"), (65, "millions)"), (300, "2017"), (360, "2016"),
                   (420, "2017"), (445, "vs."), (465, "2016"), (520, "%"), (530, "Change"))
    cells = header_cells(header, value_left=290)
    assert [y for _, y in cells] == [2017, 2016, None, None]
    cols = columns(header, cells, [])
    assert [(c.year, c.change) for c in cols] == [(2017, False), (2016, False), (0, True),
                                                  (0, True)]


def test_a_data_row_is_no_header():
    assert header_cells(_line((50, "Revenue"), (300, "2019"), (360, "1,234")), 290) is None


def test_durations_by_head_cell_and_end_dates():
    above = [_line((290, "Three"), (320, "Months"), (355, "Ended"), (385, "June"),
                   (410, "30,"), (440, "Six"), (460, "Months"), (495, "Ended"), (525, "June"),
                   (550, "30,"), y=80)]
    header = _line((300, "2023"), (360, "2022"), (450, "2023"), (510, "2022"))
    cols = columns(header, header_cells(header, 290), above)
    assert [(c.year, c.duration, end_date(c)) for c in cols] == [
        (2023, "3M", "2023-06-30"), (2022, "3M", "2022-06-30"),
        (2023, "6M", "2023-06-30"), (2022, "6M", "2022-06-30")]


def test_full_dates_over_columns_of_one_year_and_over_fiscal_years():
    # a 10-Q balance sheet: two columns of 2023 and one of 2022, each under its own date
    header = _line((300, "July"), (325, "29,"), (345, "2023"), (400, "January"), (440, "28,"),
                   (460, "2023"), (515, "July"), (540, "30,"), (560, "2022"))
    cols = columns(header, header_cells(header, 290), [])
    assert [end_date(c) for c in cols] == ["2023-07-29", "2023-01-28", "2022-07-30"]
    # fiscal years over the dates they end on: the date keeps its own year
    above = [_line((290, "January"), (330, "1,"), (345, "2023"), (400, "January"), (440, "2,"),
                   (455, "2022"), y=80)]
    header = _line((300, "2022"), (410, "2021"))
    cols = columns(header, header_cells(header, 290), above)
    assert [(c.year, end_date(c)) for c in cols] == [(2022, "2023-01-01"), (2021, "2022-01-02")]
