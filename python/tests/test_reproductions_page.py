"""scripts/reproductions.py's merge of setup-table changes into rows' notes
(`mark_setup_decided`, `decided_notes`): hand-written results in the
shapes setup.rs and mobile.rs write, old and new."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("reproductions", REPO / "scripts" / "reproductions.py")
page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page)


def claim(cid, verdict, explanation=""):
    return {"id": cid, "verdict": verdict, "explanation": explanation}


def paper(name, cells, claims):
    """A results.json of one experiment of `claims` and a setup table
    whose rows are (metric, ours) pairs."""
    return {
        "paper": name,
        "experiments": [
            {"id": "x", "claims": claims, "rows": []},
            {"id": "setup", "claims": [], "rows": [{"metric": m, "ours": o, "paper": ""} for m, o in cells]},
        ],
    }


def test_every_move_is_named_once_with_its_key():
    a = claim("row-a", "contradicted")
    b = claim("row-b", "reproduced")
    p = paper("or3", [("fig7-rtt = 300 ms",
                       "200 ms: 2 of 9 verdicts change: row-a (contradicted -> inconclusive), "
                       "row-b (reproduced -> contradicted); 100 ms: no verdict changes (9 rows)")],
              [a, b])
    page.mark_setup_decided(p)
    assert a["explanation"] == (f"{page.DECIDED}: the verdict changes under fig7-rtt=200 "
                                "(inconclusive) (setup table)")
    assert page.decided_by_setup(b)
    assert page.decided_under_to(b, "contradicted")
    # A second pass adds nothing: the note names it already.
    page.mark_setup_decided(p)
    assert a["explanation"].count(page.DECIDED) == 1


def test_a_row_that_names_some_alternatives_gets_the_others():
    a = claim("row-a", "contradicted",
              f"not yet explained; {page.DECIDED}: the verdict changes under fig7-length=2 "
              "(inconclusive) (setup table)")
    p = paper("or3", [("fig7-length = 1 x the run length",
                       "0.5 x the run length: 1 of 3 verdicts change: row-a (contradicted -> "
                       "inconclusive); 2 x the run length: 1 of 3 verdicts change: row-a "
                       "(contradicted -> inconclusive)")],
              [a])
    page.mark_setup_decided(p)
    notes = page.decided_notes(a)
    assert len(notes) == 2
    assert "fig7-length=2 (inconclusive)" in notes[0]
    assert notes[1] == ", not explained by it: the verdict also changes under fig7-length=0.5 (inconclusive)"


def test_rows_not_judged_on_one_side_are_not_changes_but_unmeasurable_ones_are():
    # Written before setup.rs told the two apart: "not measured" in an
    # arrow was by construction (the PRR paper's er-judged-hold), no change.
    old = claim("row-old", "reproduced")
    # Listed apart (premise-exempt): no change.
    apart = claim("row-apart", "reproduced")
    # Not measurable for want of an interval: a change.
    lost = claim("row-lost", "reproduced")
    p = paper("prr", [("er-judged-hold = 40 ms",
                       "25 ms: 2 of 14 verdicts change: row-old (reproduced -> not measured), "
                       "row-lost (reproduced -> not measurable), and 1 judged on one side only: "
                       "row-apart (not measured there); 60 ms: no verdict changes (14 rows)")],
              [old, apart, lost])
    page.mark_setup_decided(p)
    assert old["explanation"] == "" and apart["explanation"] == ""
    assert lost["explanation"] == (f"{page.DECIDED}: the verdict changes under "
                                   "er-judged-hold=25 (not measurable) (setup table)")


def test_mobile_cells_name_the_alternative_by_how():
    h = claim("hl1-row", "reproduced")
    o = claim("other-row", "inconclusive")
    p = paper("mobile", [("receive-buffer = 2 x the window",
                          "receive buffer 1.25 x: 2 of 40 verdicts change; headline rows: hl1-row "
                          "(reproduced -> contradicted); others: other-row (inconclusive -> "
                          "reproduced); receive buffer 1 x: no verdict changes (40 rows)")],
              [h, o])
    page.mark_setup_decided(p)
    assert "changes under receive buffer 1.25 x (contradicted)" in h["explanation"]
    assert "changes under receive buffer 1.25 x (reproduced)" in o["explanation"]


def test_decided_notes_cut_each_form_where_it_ends():
    c = claim("r", "contradicted",
              f"{page.DECIDED}: the verdict changes under a (inconclusive); under the setup "
              f"alternatives (setup table): a gives 1, inconclusive; {page.DECIDED}: the verdict "
              "also changes under b (reproduced) (the setup table); tail")
    assert page.decided_notes(c) == [
        ", not explained by it: the verdict changes under a (inconclusive)",
        ", not explained by it: the verdict also changes under b (reproduced)",
    ]


def or3_run(cells):
    """An OR3 results.json with a setup table of (metric, ours, paper)
    rows and no claims."""
    return {"paper": "or3", "experiments": [
        {"id": "setup", "claims": [],
         "rows": [{"metric": m, "ours": o, "paper": w} for m, o, w in cells]}]}


def test_the_or3_review_blocks_read_which_answers_the_run_carries():
    # A run of d88c888's code: fig7-rtt with the fifth review's rule, no
    # fig7-rtt-same-mb.
    fifth = or3_run([
        ("fig7-length = 1 x", "0.5 x: no verdict changes (11 rows)", ""),
        ("fig7-buffers = 1 x", "0.5 x: no verdict changes (11 rows)", ""),
        ("fig7-rtt = 300 ms", "100 ms: 1 of 11 verdicts change: row-a (reproduced -> contradicted)",
         "not given: ... runs instead at the main arm's share of the BDP ..."),
    ])
    text = "\n".join(page.open_review_or3(fifth, []))
    sixth_block = text.split("The page's sixth review", 1)[1]
    assert "The run on this page predates the answers" in sixth_block
    assert "This run: `fig7-rtt`" not in sixth_block
    fifth_block = text.split("The page's fifth review", 1)[1].split("The page's sixth", 1)[0]
    assert "This run carries the answers" in fifth_block
    assert "This run: 100 ms: 1 of 11" in fifth_block
    # A run with the sixth review's two keys carries every answer, and the
    # blocks quote both keys' cells, sizes run included.
    cell = ("100 ms, buffers scaled with it: 1 of 11 verdicts change: fig7b-or3-above-bbr-38mb "
            "(reproduced -> contradicted) at 12.67 MB (nominal 38 MB)")
    same = ("100 ms, buffers kept in MB: no verdict changes (6 rows), and 5 judged on one side "
            "only: fig7a-or3-above-bbr-4mb (not measured there, outside the reading)")
    sixth = or3_run([
        ("fig7-length = 1 x", "0.5 x: no verdict changes (11 rows)", ""),
        ("fig7-buffers = 1 x", "0.5 x: no verdict changes (11 rows)", ""),
        ("fig7-rtt = 300 ms, buffers scaled with it", cell, "not given: ..."),
        ("fig7-rtt-same-mb = 300 ms, buffers kept in MB", same, "not given: ..."),
    ])
    text = "\n".join(page.open_review_or3(sixth, []))
    for block in text.split("The page's ")[2:]:
        assert "predates the answers:" not in block.split("\n")[0], block[:200]
    sixth_block = text.split("The page's sixth review", 1)[1]
    assert f"This run: `fig7-rtt` {cell}; `fig7-rtt-same-mb` {same}." in sixth_block
    fourth_block = text.split("The page's fourth review", 1)[1].split("The page's fifth", 1)[0]
    assert f"sizes kept in MB (`fig7-rtt-same-mb`, the sixth review's key): {same}." in fourth_block
    # The third review measured with the sizes in MB: its block quotes
    # that key first.
    third_block = text.split("The page's third review", 1)[1].split("The page's fourth", 1)[0]
    assert f"as in the reviewer's runs): {same}; and `fig7-rtt`" in third_block
    seventh_block = text.split("The page's seventh review", 1)[1]
    assert "This run carries the answers" in seventh_block
    # A run whose choices were not rerun (--quick, the default) carries
    # none of these answers, whatever rows its setup table has.
    quick = or3_run([(m, "not rerun at this scale (alternatives 200 and 100: run --thorough or "
                      "--full)", "not given: ...")
                     for m in ["fig7-length = 1 x", "fig7-buffers = 1 x", "fig7-rtt = 300 ms",
                               "fig7-rtt-same-mb = 300 ms"]])
    text = "\n".join(page.open_review_or3(quick, []))
    for name in ["fourth", "fifth", "sixth", "seventh"]:
        block = text.split(f"The page's {name} review", 1)[1].split("\n", 1)[0]
        assert "predates the answers" in block, (name, block)
    # ... the first review's block included: its fig7-length answer is a
    # rerun, not the row's presence.
    first_block = text.split("The page's third review", 1)[0]
    assert "The run on this page predates the answers" in first_block
    assert "gives: not rerun" not in first_block
    assert "`fig7-length` (0.5 and 2 x the scale's length) varies it from the next run." \
        in first_block


def test_a_size_after_the_arrow_leaves_the_move_readable():
    # setup.rs writes what a row ran at after its arrow: the page still
    # reads the move and names the alternative.
    a = claim("fig7b-or3-above-bbr-38mb", "reproduced")
    p = paper("or3", [("fig7-rtt = 300 ms, buffers scaled with it",
                       "100 ms, buffers scaled with it: 1 of 11 verdicts change: "
                       "fig7b-or3-above-bbr-38mb (reproduced -> contradicted) at 12.67 MB "
                       "(nominal 38 MB); 200 ms, buffers scaled with it: no verdict changes "
                       "(11 rows)")],
              [a])
    page.mark_setup_decided(p)
    assert f"{page.DECIDED}: the verdict changes under fig7-rtt=100 (contradicted)" in a["explanation"]
