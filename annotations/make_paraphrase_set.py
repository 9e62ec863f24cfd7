"""Build ``annotations/paraphrase_questions.jsonl``: the 45 public metrics-generated questions
(those whose PDF is here) reworded by hand, with FinanceBench's gold answers and gold pages.

The rewordings below were written for the trust issue: other names for the line items (never
the label the page prints: ``verify_questions.py`` fails a copied label), other sentence
orders, definitions phrased differently or left out for standard metrics, and periods given as
dates. Each question keeps the original's metric, period, unit and rounding, so FinanceBench's
gold stays right. Inputs and formulas come from ``annotations/numeric_inputs.jsonl`` (the
line items the gold was computed from); evidence is each gold page's PyMuPDF text, so the
checker reads the same pages.

    python annotations/make_paraphrase_set.py && \
        python annotations/verify_questions.py annotations/paraphrase_questions.jsonl
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from rewording_builder import build  # noqa: E402

REWORDED = {
    "financebench_id_03029": "How much did 3M spend on capital investment in fixed assets during "
    "the year ended December 31, 2018, according to its statement of cash flows? Give the "
    "amount in millions of dollars.",
    "financebench_id_04672": "At December 31, 2018, what was the carrying value of 3M's fixed "
    "assets after accumulated depreciation, in billions of US dollars?",
    "financebench_id_02987": "For Activision Blizzard's 2019 fiscal year, how many dollars of "
    "revenue did each dollar of net fixed assets generate, using the average of the 2018 and "
    "2019 year-end balances of property and equipment? Two decimal places.",
    "financebench_id_07966": "Over fiscal 2017 through 2019, what did Activision Blizzard's "
    "capital spending average as a percentage of its revenue? Compute the ratio for each of the "
    "three years and take the mean; answer in percent to one decimal.",
    "financebench_id_04735": "Adobe, fiscal year ended November 27, 2015: how well did the cash "
    "its operations generated cover its short-term obligations? Divide operating cash flow by "
    "current liabilities at year end and round to two decimals.",
    "financebench_id_07507": "By what percentage did Adobe's income from operations rise between "
    "fiscal 2015 and fiscal 2016? One decimal place.",
    "financebench_id_03856": "What was Adobe's operating cash flow ratio for the fiscal year "
    "ended December 1, 2017? Round to two decimals.",
    "financebench_id_06655": "Amazon, 2017: how many days did it take to pay its suppliers? Use "
    "365 times the average of the 2016 and 2017 year-end trade payables, divided by purchases, "
    "where purchases are 2017 cost of goods sold plus the increase in inventory over the year. "
    "Two decimals.",
    "financebench_id_08135": "How fast did Amazon's top line grow in 2017 compared with 2016? "
    "Answer in percent with one decimal.",
    "financebench_id_08286": "What was Amazon's bottom line for the year ended December 31, 2019, "
    "in USD millions?",
    "financebench_id_03069": "For AMD's fiscal 2015, express the non-cash D&A charge shown in the "
    "cash flow statement as a share of sales, in percent with one decimal.",
    "financebench_id_05718": "How much cash did American Water Works hand to its shareholders as "
    "dividends during 2020? Answer in USD billions, to one decimal place.",
    "financebench_id_04254": "What was American Water Works' EBITDA for the year ended December "
    "31, 2021, in millions of dollars? Take operating profit as reported and add back the D&A "
    "shown in the cash flow statement, with no other adjustments.",
    "financebench_id_02608": "Averaged over fiscal years 2015, 2016 and 2017, what share of each "
    "sales dollar did Best Buy keep as net profit attributable to its shareholders? Compute each "
    "year's margin, then the mean; percent, one decimal.",
    "financebench_id_04417": "What was the balance-sheet value of the merchandise Best Buy had on "
    "hand at February 2, 2019? USD millions.",
    "financebench_id_04660": "What was Block's (then Square) current ratio at the end of 2016? "
    "Two decimals.",
    "financebench_id_03838": "Block (formerly Square) roughly doubled its sales in 2020. What was "
    "the exact percentage increase in its revenue from 2019 to 2020? One decimal.",
    "financebench_id_07661": "How much cash did Block's operations throw off in the year ended "
    "December 31, 2020? Give USD millions.",
    "financebench_id_10285": "Boeing's net fixed assets at December 31, 2018, in millions of "
    "dollars?",
    "financebench_id_03473": "What was Coca-Cola's 2017 return on average assets, computed as the "
    "profit attributable to its shareowners divided by the mean of the 2016 and 2017 year-end "
    "asset base? Give it as a decimal rounded to two places.",
    "financebench_id_10130": "Corning's days payable outstanding for 2020: 365 times average trade "
    "payables (2019 and 2020 year ends), divided by 2020 cost of goods sold plus the year's "
    "change in inventory. Two decimals.",
    "financebench_id_02981": "Corning's operating margin averaged across 2019, 2020 and 2021, each "
    "year's margin computed first? Percent, one decimal.",
    "financebench_id_04209": "How large was Costco's asset base at the end of fiscal 2021 (August "
    "29, 2021), in USD millions?",
    "financebench_id_05915": "CVS Health 2018: sales divided by average net PP&E of the 2017 and "
    "2018 year ends. Two decimals.",
    "financebench_id_04103": "How many days was General Mills' cash conversion cycle in fiscal "
    "2019 (ended May 26, 2019)? Take days of inventory (average inventory over cost of goods "
    "sold) plus days of sales outstanding (average trade receivable balances over sales) minus "
    "days of payables (average trade payables over cost of goods sold plus the change in "
    "inventory), each times 365, with averages over the fiscal 2018 and 2019 year ends. Two "
    "decimals.",
    "financebench_id_03471": "General Mills' current ratio at the end of fiscal 2020 (May 31, "
    "2020), to two decimals?",
    "financebench_id_04854": "What free cash flow did General Mills generate in fiscal 2020, "
    "taken as operating cash flow less capital spending? USD millions.",
    "financebench_id_10136": "What fraction of its fiscal 2022 profit attributable to "
    "shareholders did General Mills keep rather than pay out as cash dividends? Answer as a "
    "decimal with two places.",
    "financebench_id_10499": "How many times did Kraft Heinz turn over its stock in 2019, i.e. "
    "cost of goods sold divided by average inventory of the 2018 and 2019 year ends? Two "
    "decimals.",
    "financebench_id_04412": "Lockheed Martin 2020: how many dollars of sales did each dollar of "
    "assets support, using average assets over the 2019 and 2020 year ends? Two decimals.",
    "financebench_id_03031": "What was Lockheed Martin's working capital at December 31, 2021, "
    "current assets minus current liabilities, in USD millions?",
    "financebench_id_03718": "At what compound annual rate did Lockheed Martin's sales grow over "
    "the two years from 2020 to 2022? Percent, one decimal.",
    "financebench_id_04171": "How much did MGM Resorts owe its trade suppliers at December 31, "
    "2018? USD millions.",
    "financebench_id_03849": "MGM Resorts: average capital intensity (capex over revenue, year by "
    "year) across 2018, 2019 and 2020, in percent to one decimal?",
    "financebench_id_04700": "What did it cost Microsoft to deliver its products and services in "
    "the year ended June 30, 2016, i.e. its cost of goods sold, in USD millions?",
    "financebench_id_04458": "Netflix 2015 EBITDA margin, with EBITDA = operating profit + the D&A "
    "add-back from the cash flow statement, unadjusted? Percent, one decimal.",
    "financebench_id_03282": "What were Netflix's current liabilities as of December 31, 2017, in "
    "USD millions?",
    "financebench_id_04302": "Across fiscal 2016 to 2018, what share of Nike's revenue went to "
    "cost of goods sold on average (compute each year, then average)? Percent, one decimal.",
    "financebench_id_03531": "Nike's current assets at May 31, 2019, in millions of dollars?",
    "financebench_id_04080": "How many times did Nike turn its inventory in the fiscal year ended "
    "May 31, 2021? Use cost of goods sold over average inventory of the 2020 and 2021 year ends. "
    "Two decimals.",
    "financebench_id_04980": "What were PepsiCo's capital expenditures in the fiscal year ended "
    "December 25, 2021, in billions of dollars?",
    "financebench_id_03620": "For PepsiCo's fiscal 2022, take operating income, add back D&A from "
    "the cash flow statement and subtract capital expenditures. What is the result in USD "
    "millions?",
    "financebench_id_04481": "PepsiCo's unadjusted EBITDA as a percentage of sales for the fiscal "
    "year ended December 31, 2022, EBITDA being operating income plus the cash-flow D&A? One "
    "decimal.",
    "financebench_id_06247": "Walmart's days payable outstanding for the fiscal year ended January "
    "31, 2018: 365 x average trade payables (fiscal 2017 and 2018 year ends) / (cost of goods "
    "sold + change in inventory). Two decimals.",
    "financebench_id_06741": "What was Walmart's average EBITDA margin over fiscal 2018-2020? "
    "Build EBITDA from operating profit plus the D&A shown in the cash flow statement, compute the "
    "margin on revenue for each year and average the three. Percent, one decimal.",
}

def main() -> int:
    build(REWORDED, "paraphrase", HERE / "paraphrase_questions.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
