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
