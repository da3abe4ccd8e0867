"""A mock answer spoken out loud, in chromium with a fake microphone: the page asks for the
microphone on click, shows a moving level meter, uploads chunks while recording, and the
report plays the recording back beside the rubric."""

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.audit import audit
from tests.browser.conftest import ARTIFACTS, CHROMIUM, screenshot, serve, watched_page
from tests.transcription_server import Behaviour, transcription_server

FAKE_MICROPHONE = [
    "--use-fake-device-for-media-stream",  # a generated tone instead of a real microphone
    "--use-fake-ui-for-media-stream",  # accept the permission prompt
    "--autoplay-policy=no-user-gesture-required",
]


@pytest.fixture(scope="module")
def voice_browser(browser: Any) -> Iterator[Any]:
    """Chromium started with a fake microphone (the shared browser has none), by the same
    Playwright driver."""
    launched = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"] + FAKE_MICROPHONE,
    )
    yield launched
    launched.close()


@pytest.fixture
def voice_page(voice_browser: Any) -> Iterator[Any]:
    with watched_page(voice_browser) as opened:
        yield opened


def answering(page: Any, live_server: str) -> str:
    """A one-question, two-minute session without follow-up, its clock started; its URL."""
    page.goto(f"{live_server}/mock")
    page.fill("#questions", "1")
    page.fill("#minutes", "2")
    page.uncheck("input[name=followups]")
    page.click("form.settings-form > button")
    page.wait_for_url(re.compile(r"/mock/\d+$"))
    mock_url: str = page.url
    page.click(".mock-start button")
    page.locator("textarea#answer").wait_for()
    return mock_url


def test_an_answer_spoken_out_loud_is_played_back_in_the_report(
    voice_page: Any, live_server: str
) -> None:
    page = voice_page
    mock_url = answering(page, live_server)

    # Nothing is asked of the microphone before the click.
    assert page.locator(".voice-live").is_hidden()
    page.get_by_role("button", name="Answer out loud").click()
    page.locator(".voice-live").wait_for()
    # The level meter moves with the fake microphone's tone.
    page.wait_for_function("() => document.querySelector('.voice-level').value > 0.01")
    # Chunks upload while recording (one every 3 s), before the stop button is pressed.
    page.wait_for_function(
        "() => /kB saved/.test(document.querySelector('.voice-status').textContent)",
        timeout=15000,
    )
    audit(page, "mock-voice-recording")
    page.wait_for_timeout(2500)
    page.get_by_role("button", name="Stop recording").click()
    page.wait_for_function(
        "() => document.querySelector('.voice-status').textContent.startsWith('Recording saved')",
        timeout=15000,
    )
    api = mock_url.replace("/mock/", "/api/mock/")
    stored = page.request.get(f"{api}/audio/1/main/1")
    assert stored.status == 200
    assert stored.headers["content-type"].startswith("audio/webm")
    assert stored.body()[:4] == b"\x1a\x45\xdf\xa3"  # a WebM file: its EBML header first
    assert len(stored.body()) > 4000  # some seconds of Opus at 32 kbit/s

    page.fill("textarea#answer", "ring: reduce-scatter then all-gather")
    page.click(".mock-answer button[type=submit]")
    page.locator(".mock-grade").wait_for()
    assert page.locator(".voice-take audio").count() == 1  # heard again while grading
    page.click(".mock-grade .grade-3")

    page.wait_for_url(f"{mock_url}/report")
    page.click("details.card > summary")
    player = page.locator("details.card .voice-take audio")
    assert player.get_attribute("src") == f"{api.removeprefix(live_server)}/audio/1/main/1"
    assert page.locator("details.card .user-text").inner_text() == (
        "ring: reduce-scatter then all-gather"
    )
    assert page.locator("details.card .rubric-review li").count() >= 1
    # The browser decodes and plays it: time advances, no media error.
    played = page.evaluate(
        """async () => {
            const audio = document.querySelector('details.card .voice-take audio');
            await audio.play();
            await new Promise((resolve) => setTimeout(resolve, 1200));
            audio.pause();
            return { time: audio.currentTime, error: audio.error && audio.error.code };
        }"""
    )
    assert played["error"] is None and played["time"] > 0.3, played
    audit(page, "mock-voice-report")


def test_closing_the_tab_mid_answer_keeps_what_was_said(voice_page: Any, live_server: str) -> None:
    page = voice_page
    mock_url = answering(page, live_server)
    page.get_by_role("button", name="Answer out loud").click()
    page.wait_for_function(
        "() => /kB saved/.test(document.querySelector('.voice-status').textContent)",
        timeout=15000,
    )
    context = page.context
    page.close()  # never stopped: the tab is simply gone
    again = context.new_page()
    again.goto(mock_url)
    assert again.locator(".voice-status").inner_text() == "1 recording saved for this answer."
    assert again.locator(".voice").get_attribute("data-take") == "2"
    kept = again.request.get(f"{mock_url.replace('/mock/', '/api/mock/')}/audio/1/main/1")
    assert kept.status == 200 and kept.body()[:4] == b"\x1a\x45\xdf\xa3"


def test_a_take_is_heard_back_before_submitting_with_the_question_in_view(
    voice_page: Any, live_server: str
) -> None:
    page = voice_page
    page.set_viewport_size({"width": 390, "height": 844})
    mock_url = answering(page, live_server)
    # The recorder sits right under the question, above the typed answer.
    order = page.evaluate(
        """() => [...document.querySelectorAll('.mock-question, .voice, .mock-answer')]
                 .map((e) => e.className.split(' ').pop())"""
    )
    assert order == ["mock-question", "voice", "mock-answer"], order
    page.get_by_role("button", name="Answer out loud").click()
    page.locator(".voice-live").wait_for()
    # Scrolled down to the typed notes, the question is still on screen, under the clock.
    page.mouse.wheel(0, 2000)
    page.wait_for_timeout(300)
    question = page.locator(".mock-question").bounding_box()
    bar = page.locator(".mock-bar").bounding_box()
    assert question is not None and bar is not None
    assert page.evaluate("() => window.scrollY") > 0
    assert bar["y"] + bar["height"] - 1 <= question["y"] < 844 / 2, (bar, question)
    stop = page.get_by_role("button", name="Stop recording").bounding_box()
    assert stop is not None and question["y"] < stop["y"] < 844 / 2, (question, stop)
    for width, height in ((390, 844), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        # What the screen shows (a full-page shot puts the sticky parts where they stick).
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"mock-voice-recording-question-{width}.png"))
    page.wait_for_timeout(3000)
    page.get_by_role("button", name="Stop recording").click()
    page.wait_for_function(
        "() => document.querySelector('.voice-status').textContent.startsWith('Recording saved')",
        timeout=15000,
    )
    # Before submitting: the take plays back, with a duration, and can be seeked.
    assert page.locator(".voice .voice-take audio").count() == 1
    assert "Take 1" in page.locator(".voice .voice-take figcaption").inner_text()
    heard = page.evaluate(
        """async () => {
            const audio = document.querySelector('.voice .voice-take audio');
            const once = (name) => new Promise((r) => audio.addEventListener(name, r));
            if (audio.readyState < 1) await once('loadedmetadata');
            const duration = audio.duration;
            const target = duration / 2;
            audio.currentTime = target;
            await once('seeked');
            const landed = audio.currentTime;
            await audio.play();
            await new Promise((r) => setTimeout(r, 600));
            audio.pause();
            const error = audio.error && audio.error.code;
            return { duration, target, landed, now: audio.currentTime, error };
        }"""
    )
    assert heard["error"] is None, heard
    assert 2.5 < heard["duration"] < 8, heard  # finite: about the 3 s or so recorded
    assert abs(heard["landed"] - heard["target"]) < 0.3 and heard["now"] > heard["landed"], heard
    assert (
        page.evaluate(
            "() => document.querySelector('.mock-page').classList.contains('is-recording')"
        )
        is False
    )
    for width, height in ((390, 844), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"mock-voice-take-to-hear-{width}")
    assert page.url == mock_url  # nothing was submitted


def test_what_was_said_shows_beside_the_take_and_can_be_corrected(
    voice_page: Any, tmp_path: Path
) -> None:
    """With a transcription server (the test's own, tests/transcription_server.py), a take's
    transcript appears beside its player once stopped; a correction is saved as typed."""
    heard = "ring all-reduce: a reduce-scatter, then an all-gather"
    behaviour = Behaviour(default=heard, delay_s=1.0)  # long enough to see "Transcribing…"
    with (
        transcription_server(behaviour) as transcriber,
        serve(tmp_path / "t.db", transcribe_url=transcriber) as server,
    ):
        page = voice_page
        page.set_viewport_size({"width": 390, "height": 844})
        mock_url = answering(page, server)
        page.get_by_role("button", name="Answer out loud").click()
        page.wait_for_function(
            "() => /kB saved/.test(document.querySelector('.voice-status').textContent)",
            timeout=15000,
        )
        page.get_by_role("button", name="Stop recording").click()
        said = page.locator(".voice .voice-take .voice-transcript")
        said.locator(".transcript-state", has_text="Transcribing…").wait_for(timeout=15000)
        box = page.get_by_label("What you said in recording 1")
        box.wait_for(timeout=15000)
        assert box.input_value() == heard
        (upload,) = behaviour.uploads
        assert upload.audio[:4] == b"\x1a\x45\xdf\xa3" and upload.content_type == "audio/webm"
        # Beside the player, inside the screen's width.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        screenshot(page, "mock-voice-transcript-390")
        page.set_viewport_size({"width": 1280, "height": 800})
        screenshot(page, "mock-voice-transcript-1280")

        # Corrected with the keyboard: saved as the typed answer is, without a click.
        box.focus()
        page.keyboard.press("End")
        page.keyboard.type(" over the ring")
        said.locator(".transcript-state", has_text="Saved").wait_for(timeout=10000)
        api = mock_url.replace("/mock/", "/api/mock/")
        stored = page.request.get(f"{api}/transcripts/1/main/1").json()
        assert (stored["text"], stored["edited"]) == (heard + " over the ring", True)

        # A second take while the server fails: the page says so, and Retry (by keyboard) works.
        behaviour.status, behaviour.delay_s = 503, 0.0
        page.set_viewport_size({"width": 390, "height": 844})
        page.get_by_role("button", name="Record another take").click()
        page.wait_for_function(
            "() => /kB saved/.test(document.querySelector('.voice-status').textContent)",
            timeout=15000,
        )
        page.get_by_role("button", name="Stop recording").click()
        second = page.locator(".voice .voice-take .voice-transcript").nth(1)
        second.locator(".transcript-state", has_text="Transcription failed").wait_for(timeout=15000)
        assert "HTTP 503" in second.locator(".transcript-state").inner_text()
        second.scroll_into_view_if_needed()
        screenshot(page, "mock-voice-transcript-failed-390")
        behaviour.status = 200
        retry = second.get_by_role("button", name="Retry")
        retry.focus()
        page.keyboard.press("Enter")
        again = page.get_by_label("What you said in recording 2")
        again.wait_for(timeout=15000)  # shown once transcribed
        assert again.input_value() == heard

        # Graded beside the typed answer: the grading page shows it with the recording.
        page.click(".mock-answer button[type=submit]")
        page.locator(".mock-grade").wait_for()
        assert page.get_by_label("in recording 1").input_value() == heard + " over the ring"
        audit(page, "mock-voice-transcript-grade")


# The browser's recogniser, scripted: it "hears" two phrases, as Chrome's reports them (an
# interim result, then final ones), so the test needs no network and no speech service.
SCRIPTED_RECOGNITION = """
window.SpeechRecognition = window.webkitSpeechRecognition = class {
  constructor() { this.listeners = {}; window.recognitions = (window.recognitions || 0) + 1; }
  addEventListener(name, listener) { (this.listeners[name] ||= []).push(listener); }
  emit(name, event) { (this.listeners[name] || []).forEach((listener) => listener(event)); }
  start() {
    window.recognitionRunning = true;
    const result = (text, isFinal) => Object.assign([{ transcript: text }], { isFinal });
    const heard = (results) => this.emit("result", { resultIndex: 0, results });
    setTimeout(() => heard([result("ring all", false)]), 200);
    setTimeout(() => heard([result("ring all-reduce", true), result("in two phases", true)]), 500);
  }
  stop() { window.recognitionRunning = false; }
  abort() { window.recognitionRunning = false; }
};
"""


def test_live_captions_show_while_speaking_when_ticked(voice_page: Any, live_server: str) -> None:
    page = voice_page
    page.add_init_script(SCRIPTED_RECOGNITION)
    answering(page, live_server)
    option = page.get_by_label(re.compile("Live captions while I speak"))
    assert option.is_visible() and not option.is_checked()  # off unless ticked
    option.check()  # remembered on this device
    page.get_by_role("button", name="Answer out loud").click()
    captions = page.locator(".voice-captions")
    captions.wait_for()
    page.wait_for_function(
        "() => document.querySelector('.voice-captions-text').textContent"
        " === 'ring all-reduce in two phases'",
        timeout=5000,
    )
    assert "not saved" in captions.inner_text()
    page.set_viewport_size({"width": 390, "height": 844})
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "mock-voice-live-captions-390.png"))
    page.get_by_role("button", name="Stop recording").click()
    captions.wait_for(state="hidden")
    assert page.evaluate("() => window.recognitionRunning") is False
    assert page.evaluate("() => localStorage.getItem('ringside-live-captions')") == "on"
