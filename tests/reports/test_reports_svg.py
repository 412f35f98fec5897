"""The inline SVG charts: well-formed, escaped, honest about empty data."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from trialrun.reports._svg import Series, bar_chart, curve_chart, dumbbell, histogram

NS = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    assert root.get("viewBox")
    return root


def test_curve_chart_draws_a_band_and_a_line_per_series() -> None:
    svg = curve_chart("curves <&>", [
        Series("solve^k", [1.0, 0.5, 0.2], [0.8, 0.3, 0.1], [1.0, 0.7, 0.4]),
        Series("pass@k", [0.6, 0.8, 0.9], [0.4, 0.6, 0.7], [0.8, 0.9, 1.0]),
        Series("finished", [1.0, 1.0, 1.0], dashed=True),
    ])
    root = _parse(svg)
    assert root.find(f"{NS}title").text == "curves <&>"
    assert len(root.findall(f"{NS}polygon")) == 2  # two bands
    assert len(root.findall(f"{NS}polyline")) == 3
    tips = [c.find(f"{NS}title").text for c in root.findall(f"{NS}circle")]
    assert "solve^k k=2: 50.0%" in tips


def test_curve_chart_with_one_k_and_without_data() -> None:
    _parse(curve_chart("one", [Series("s", [0.5], [0.2], [0.8])]))
    empty = curve_chart("none", [Series("s", [])])
    assert "no task has enough counted trials" in empty
    _parse(empty)


def test_bar_chart_escapes_and_clips() -> None:
    root = _parse(bar_chart("by tier", [("T1 <b>", 1.5, "(2/2)"), ("T2", None, "(0/0)")]))
    rects = root.findall(f"{NS}rect")
    assert len(rects) == 1  # None draws no bar
    assert float(rects[0].get("width")) <= 560
    assert any(t.text == "T1 <b>" for t in root.iter(f"{NS}text"))


def test_histogram_marks_p50_and_p95() -> None:
    values = [0.1 * i for i in range(1, 101)]
    root = _parse(histogram("latency", values, " s"))
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert any(t and t.startswith("P50 5.05") for t in texts)
    assert any(t and t.startswith("P95 9.5") for t in texts)
    assert "n = 100" in texts
    assert "no values recorded" in histogram("cost", [], "$")
    _parse(histogram("same", [2.0, 2.0, 2.0]))  # zero spread: still drawn


def test_dumbbell_colours_each_kind() -> None:
    root = _parse(dumbbell("before → after", [
        ("a", 1.0, 0.0, "regression"), ("b", 1.0, 0.67, "within noise"),
        ("c", 0.2, 0.9, "improved"), ("d", 1.0, 0.8, "within noise · drift"),
    ]))
    lines = [ln for ln in root.findall(f"{NS}line") if ln.get("stroke-width") == "2"]
    assert [ln.get("stroke") for ln in lines] == ["#dc2626", "#d97706", "#059669", "#d97706"]
    assert "within noise · drift" in "".join(root.itertext())
    assert "no task in common" in dumbbell("x", [])


def test_heatmap_cells_coloured_by_value_grey_without_verdict_blank_when_not_run() -> None:
    from trialrun.reports._svg import NO_VERDICT, heat_color, heatmap

    root = _parse(heatmap("history", [("11-23 18:28", "run-1"), ("11-24 09:00", "run-2")], [
        ("task-a", [(1.0, "a1"), (0.0, "a2 <x>")]),
        ("task-b", [None, (None, "b2: no verdict")]),
    ]))
    cells = [r for r in root.findall(f"{NS}rect") if r.find(f"{NS}title") is not None]
    assert [r.find(f"{NS}title").text for r in cells] == ["a1", "a2 <x>", "b2: no verdict"]
    fills = [r.get("style") for r in cells]
    assert fills == [f"fill:{heat_color(1.0)}", f"fill:{heat_color(0.0)}", f"fill:{NO_VERDICT}"]
    # columns read as start times (the run id in their tooltip); a legend reads the colours
    texts = "".join(root.itertext())
    assert "11-23 18:28" in texts and "run-1" in texts
    assert all(word in texts for word in ("0%", "50%", "100%", "no verdict", "not in that run"))
    assert heat_color(0.0).startswith("hsl(0,") and heat_color(1.0).startswith("hsl(140,")
    assert "no finished run" in heatmap("history", [], [])
