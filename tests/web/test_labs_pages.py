"""The lab pages: defaults, presets and bad values all render; results are shareable GET URLs."""

import re
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from app.web import labs
from app.web.labs import LABS, checkpoint, collectives, layout, memory, moe, pipeline
from app.web.labs.forms import (
    Field,
    Preset,
    derive,
    model_bounds,
    parse,
    parse_number,
    preset_query,
)
from tests.conftest import REAL_CONTENT, ClientFactory

LAB_API_MODELS = {
    "memory": memory.MemoryIn,
    "collectives": collectives.CollectiveIn,
    "pipeline": pipeline.PipelineIn,
    "checkpoint": checkpoint.CheckpointIn,
    "moe": moe.MoeIn,
    "layout": layout.LayoutIn,
}
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)", re.IGNORECASE)


def assert_lab_page(html: str) -> None:
    assert '<link rel="stylesheet" href="/static/css/labs.css?v=' in html
    assert not INLINE_SCRIPT.search(html)
    assert "Traceback" not in html


def test_index_lists_every_lab(client: TestClient) -> None:
    page = client.get("/labs")
    assert page.status_code == 200
    assert_lab_page(page.text)
    for name, spec in LABS.items():
        assert f'href="/labs/{name}"' in page.text and spec.title in page.text


@pytest.mark.parametrize("name", sorted(LABS))
def test_each_lab_renders_its_defaults_with_steps_and_a_chart(
    client: TestClient, name: str
) -> None:
    page = client.get(f"/labs/{name}")
    assert page.status_code == 200
    html = page.text
    assert_lab_page(html)
    assert f'action="/labs/{name}" method="get"' in html
    assert "Step by step" in html and "<math" in html and 'class="latex"' not in html
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in html and 'role="img"' in html
    assert "<title id=" in html and "aria-labelledby=" in html
    for spec in LABS[name].fields:
        assert f'id="f-{spec.name}"' in html and f'for="f-{spec.name}"' in html


@pytest.mark.parametrize("name", sorted(LABS))
def test_every_preset_renders_and_is_linked(client: TestClient, name: str) -> None:
    spec = LABS[name]
    html = client.get(f"/labs/{name}").text
    for preset in spec.presets:
        query = preset_query(spec.fields, preset)
        assert f'href="/labs/{name}?{query.replace("&", "&amp;")}"' in html
        page = client.get(f"/labs/{name}?{query}")
        assert page.status_code == 200, (preset.label, page.text[:2000])
        assert_lab_page(page.text)
        assert 'aria-current="true">' + preset.label.replace("&", "&amp;") in page.text


@pytest.mark.parametrize("name", sorted(LABS))
def test_bad_values_are_shown_beside_their_field_and_kept(client: TestClient, name: str) -> None:
    spec = LABS[name]
    defaults = {f.name: f.default for f in spec.fields}
    for field in spec.fields:
        if field.kind == "bool":
            continue
        bad_values = ["banana"] if field.kind == "choice" else ["banana", "-5", "1e400"]
        if field.kind == "int":
            bad_values.append("2.5")
        for bad in bad_values:
            page = client.get(f"/labs/{name}?{urlencode({**defaults, field.name: bad})}")
            assert page.status_code == 422, (field.name, bad)
            html = page.text
            assert_lab_page(html)
            assert f'id="err-{field.name}"' in html, (field.name, bad)
            assert re.search(rf'aria-describedby="[^"]*err-{field.name}[^"]*"', html)
            assert f'href="#f-{field.name}"' in html  # the summary links to the field
            if field.kind != "choice":
                assert f'value="{bad}"' in html  # what was typed stays in the box
            assert "Correct the values marked" in html


def test_lab_function_errors_land_on_their_field(client: TestClient) -> None:
    memory = LABS["memory"]
    query = {f.name: f.default for f in memory.fields} | {"tp": "3", "heads": "32"}
    page = client.get(f"/labs/memory?{urlencode(query)}")
    assert page.status_code == 422 and 'id="err-heads"' in page.text
    assert "divisible by tp" in page.text

    layout = LABS["layout"]
    query = {f.name: f.default for f in layout.fields} | {
        "params": "405e9",
        "layers": "126",
        "hidden": "16384",
        "heads": "128",
        "gpus": "8",
    }
    page = client.get(f"/labs/layout?{urlencode(query)}")
    assert page.status_code == 422 and 'id="err-gpu_memory"' in page.text
    assert "No layout fits" in page.text

    pipeline = {"schedule": "interleaved", "stages": "4", "microbatches": "6", "interleave": "2"}
    page = client.get(f"/labs/pipeline?{urlencode(pipeline)}")
    assert page.status_code == 422 and 'id="err-microbatches"' in page.text

    check = {f.name: f.default for f in LABS["checkpoint"].fields} | {
        "checkpoint_cost_s": "1e7",
        "mtbf_h": "1",
    }
    page = client.get(f"/labs/checkpoint?{urlencode(check)}")
    assert page.status_code == 422 and 'id="err-checkpoint_cost_s"' in page.text


def test_numbers_may_be_typed_the_way_people_write_them(client: TestClient) -> None:
    for typed in ("70e9", "70_000_000_000", "70,000,000,000", " 7e10 "):
        assert parse_number(typed) == 70e9
    page = client.get(
        "/labs/memory",
        params={
            "params": "70,000,000,000",
            "dp": "8",
            "tp": "8",
            "pp": "4",
            "zero_stage": "1",
            "gpu_memory": "80",
            "optimizer_bytes_per_param": "12",
            "recompute": "none",
        },
    )
    assert page.status_code == 200
    assert 'value="70,000,000,000"' in page.text
    # 70e9 parameters over TP 8 × PP 4: 2 bytes × 2.1875e9 of weights per GPU.
    assert "4.38\u00a0GB" in page.text


def test_results_use_human_units(client: TestClient) -> None:
    html = client.get("/labs/memory").text
    assert "GB (" in html and "GiB)" in html
    html = client.get("/labs/collectives").text
    assert "µs" in html and "ms" in html and "GB/s" in html
    html = client.get("/labs/checkpoint").text
    assert "\u00a0min" in html and "\u00a0h<" in html and "%" in html


def test_a_submitted_form_reads_an_unticked_checkbox_as_off() -> None:
    fields = (
        Field("n", "N", "int", "4", low=1, low_inclusive=True),
        Field("sp", "SP", "bool", "1"),
    )
    assert parse(fields, {}).values == {"n": 4, "sp": True}  # defaults
    assert parse(fields, {"n": "4"}).values == {"n": 4, "sp": False}
    assert parse(fields, {"n": "4", "sp": "1"}).values == {"n": 4, "sp": True}
    assert preset_query(fields, Preset("p", {"sp": ""})) == "n=4"


def test_big_inputs_compute_without_drawing_what_cannot_be_drawn(client: TestClient) -> None:
    page = client.get(
        "/labs/pipeline",
        params={"schedule": "1f1b", "stages": "100", "microbatches": "1000", "interleave": "1"},
    )
    assert page.status_code == 200 and "drawn for up to 512" in page.text
    assert "<svg" not in page.text
    moe = {f.name: f.default for f in LABS["moe"].fields} | {"tokens": "1e9"}
    page = client.get(f"/labs/moe?{urlencode(moe)}")
    assert page.status_code == 200 and "simulated for up to" in page.text
    assert "312,500,000 tokens" in page.text  # capacity ⌈2 × 1e9 × 1.25 / 8⌉ still shown


def test_one_rank_collective_has_nothing_to_draw(client: TestClient) -> None:
    query = {f.name: f.default for f in LABS["collectives"].fields} | {"ranks": "1"}
    page = client.get(f"/labs/collectives?{urlencode(query)}")
    assert page.status_code == 200 and "nothing to send" in page.text


def test_typed_markup_is_escaped(client: TestClient) -> None:
    page = client.get("/labs/memory", params={"params": "<script>alert(1)</script>"})
    assert page.status_code == 422
    assert "<script>alert(1)</script>" not in page.text and "&lt;script&gt;" in page.text


def test_arithmetic_errors_become_a_message(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def overflow(_values: object) -> object:
        raise OverflowError("math range error")

    monkeypatch.setitem(labs.VIEWS, "memory", overflow)
    page = client.get("/labs/memory")
    assert page.status_code == 422 and "out of the range" in page.text


def test_a_lab_no_topic_uses_says_so(client: TestClient) -> None:
    assert "No topic uses this lab yet" in client.get("/labs/pipeline").text  # fixture content


def test_unknown_lab_is_a_404_page(client: TestClient) -> None:
    page = client.get("/labs/nope")
    assert page.status_code == 404 and "text/html" in page.headers["content-type"]


def test_lab_pages_link_the_topics_and_cards_that_use_them(make_client: ClientFactory) -> None:
    client = make_client(REAL_CONTENT)
    html = client.get("/labs/collectives").text
    assert 'href="/topics/ring-allreduce"' in html and 'href="/cards/' in html
    assert "{{" not in html  # drill placeholders are not shown raw
    index = client.get("/labs").text
    assert "Used in: " in index and 'href="/topics/ring-allreduce"' in index
    topic = client.get("/topics/ring-allreduce").text
    assert 'labs: <a href="/labs/collectives">collectives</a>' in topic


def test_the_stylesheet_is_served_and_themes_the_charts(client: TestClient) -> None:
    css = client.get("/static/css/labs.css")
    assert css.status_code == 200
    assert "prefers-color-scheme: dark" in css.text and "var(--text)" in css.text
    assert "@media (max-width" in css.text


NUMBERISH = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["0", "-1", "1e400", "nan", "1e-300", "1e18", "65537", "2.5", "1_0", "٣"]),
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


def test_no_typed_value_breaks_a_page(client: TestClient) -> None:
    @settings(max_examples=150, deadline=None)
    @given(st.sampled_from(sorted(LABS)), st.data())
    def check(name: str, data: st.DataObject) -> None:
        spec = LABS[name]
        query = {f.name: f.default for f in spec.fields}
        for field in data.draw(st.lists(st.sampled_from(spec.fields), min_size=1, max_size=3)):
            query[field.name] = data.draw(NUMBERISH)
        page = client.get(f"/labs/{name}?{urlencode(query)}")
        assert page.status_code in (200, 422), (name, query)

    check()


@pytest.mark.parametrize("name", sorted(LABS))
def test_form_bounds_are_the_input_models(name: str) -> None:
    """Each numeric field's bounds are its model field's, in the form's unit (no second copy)."""
    spec = LABS[name]
    for field in spec.fields:
        if field.kind not in ("int", "float"):
            continue
        low, inclusive, high = model_bounds(spec.model, field.key)
        assert field.low == pytest.approx(low / field.scale), field.name
        assert field.high == pytest.approx(high / field.scale), field.name
        assert field.low_inclusive is inclusive, field.name
        if field.key in LAB_API_MODELS[name].model_fields:  # the page and the API agree
            api_low, _, api_high = model_bounds(LAB_API_MODELS[name], field.key)
            assert (api_low, api_high) == (low, high), field.name


def test_a_form_is_derived_only_from_fields_its_model_has() -> None:
    with pytest.raises(LookupError, match="no field"):
        derive(LAB_API_MODELS["memory"], [Field("nope", "Nope", "int", "1")])


def test_the_layout_page_ranks_the_layouts(client: TestClient) -> None:
    html = client.get("/labs/layout").text
    assert 'class="ranking-table"' in html and 'id="ranking-chart-title"' in html
    assert "Every layout that fits, by step time" in html
    assert html.count('<tr class="chosen">') == 1
    assert "runner-up" in html and "Left out" in html
    assert "can hide behind" in html


def test_the_collectives_page_shows_the_effective_rate(client: TestClient) -> None:
    spread = {f.name: f.default for f in LABS["collectives"].fields}  # 1,024 ranks, 8 per node
    html = client.get("/labs/collectives").text
    assert "8 rings at once" in html and "400\u00a0GB/s" in html
    html = client.get(f"/labs/collectives?{urlencode(spread | {'ranks': '8'})}").text
    assert "Effective bandwidth per rank" in html and "450\u00a0GB/s" in html
    flat = spread | {"ranks_per_node": "1"}
    html = client.get(f"/labs/collectives?{urlencode(flat)}").text
    assert "one rank per node" in html and "50\u00a0GB/s" in html
    broken = spread | {"ranks": "12"}
    page = client.get(f"/labs/collectives?{urlencode(broken)}")
    assert page.status_code == 422 and 'id="err-ranks"' in page.text


@pytest.mark.parametrize("name", sorted(LABS))
def test_every_lab_says_where_its_numbers_come_from(client: TestClient, name: str) -> None:
    html = client.get(f"/labs/{name}").text
    assert "Where the numbers come from, and what the model leaves out" in html
    notes = html.split('class="model-notes"', 1)[1].split("</ul>", 1)[0]
    assert "left out" in notes.lower()


def test_the_collectives_defaults_are_the_topics_node_aware_ring(client: TestClient) -> None:
    """Topic 02: 1,024 GPUs in 128 nodes, 1,792 NVLink hops at 0.85 µs and 254 network hops at
    2.7 µs, ≈ 2.2 ms of latency; the tree overtakes below 3.85 GB. The derivation shows both
    terms with their numbers. A link from before the intra-node latency existed (no
    intra_alpha_us) keeps one α for every hop: 10.2 ms and 18 GB at 5 µs."""
    html = client.get("/labs/collectives").text
    assert "2.21\u00a0ms" in html and "faster below 3.85\u00a0GB" in html
    assert "<mn>1792</mn>" in html and "<mn>254</mn>" in html
    assert "<mtext>intra</mtext>" in html and "<mtext>net</mtext>" in html
    old = {f.name: f.default for f in LABS["collectives"].fields if f.name != "intra_alpha_us"}
    html = client.get(f"/labs/collectives?{urlencode(old | {'alpha_us': '5'})}").text
    assert "10.2\u00a0ms" in html and "faster below 18\u00a0GB" in html
