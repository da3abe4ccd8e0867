"""A recorded take's WebM gets the duration Chrome's MediaRecorder cannot write (app.mock.webm).

The fixture is a real recording: 4.2 s of chromium's fake microphone, recorded as the mock
page records (Opus in WebM, one chunk a second) and joined as the server joins chunks.
"""

import struct
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from app.mock import webm

TAKE = (Path(__file__).parent.parent / "fixtures" / "audio" / "chrome-4s.webm").read_bytes()
CLUSTER = bytes.fromhex("1F43B675")
DURATION = bytes.fromhex("4489")


def stored_duration(data: bytes) -> float | None:
    """The Duration element's value in seconds (TimecodeScale is Chrome's 1 ms), if any."""
    info = data[: data.index(CLUSTER)]
    at = info.find(DURATION + b"\x88")
    return None if at < 0 else struct.unpack(">d", info[at + 3 : at + 11])[0] / 1000


def test_a_take_from_chrome_gets_its_duration_and_keeps_its_audio() -> None:
    assert stored_duration(TAKE) is None  # what makes players say "Infinity"
    fixed = webm.with_duration(TAKE)
    assert stored_duration(fixed) == 4.2  # recorded for 4.2 s
    # The audio itself is byte for byte the same: only the header gained an element.
    assert fixed[fixed.index(CLUSTER) :] == TAKE[TAKE.index(CLUSTER) :]
    assert len(fixed) == len(TAKE) + 18
    assert webm.with_duration(fixed) == fixed  # a file that has one is left alone


def test_a_take_cut_short_still_gets_the_duration_it_has() -> None:
    # The tab closed while a chunk was on its way: the file ends mid-block.
    cut = TAKE[: len(TAKE) * 2 // 3 + 7]
    duration = stored_duration(webm.with_duration(cut))
    assert duration is not None and 2.0 < duration < 4.2


def test_what_it_cannot_read_is_left_as_it_is() -> None:
    for data in (b"", b"OggS\x00\x02" + bytes(100), bytes(range(256)), TAKE[:30]):
        assert webm.with_duration(data) == data
    # A SeekHead's offsets would point wrong once the Info grows: left as it is.
    segment = TAKE.index(bytes.fromhex("18538067"))
    body = segment + 4 + 8  # Chrome writes the unknown size on 8 bytes
    seek_head = bytes.fromhex("114D9B74") + b"\x80"  # an empty SeekHead
    with_seek_head = TAKE[:body] + seek_head + TAKE[body:]
    assert webm.duration_of(with_seek_head) == 4.2  # readable, and still left alone
    assert webm.with_duration(with_seek_head) == with_seek_head


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_damage_to_a_take_is_served_without_an_error(data: st.DataObject) -> None:
    """Recordings are uploaded by users: a take cut anywhere, with bytes changed anywhere, or
    plain noise is served (as it is, or with a duration), never an error."""
    end = data.draw(st.integers(0, len(TAKE)))
    damaged = bytearray(TAKE[:end])
    for _ in range(data.draw(st.integers(0, 8))):
        if damaged:
            damaged[data.draw(st.integers(0, len(damaged) - 1))] = data.draw(st.integers(0, 255))
    noise = data.draw(st.binary(max_size=64))
    for sample in (bytes(damaged), noise, bytes(damaged) + noise):
        served = webm.with_duration(sample)
        assert isinstance(served, bytes)
        assert len(served) >= len(sample)  # a duration is added, nothing taken away


def test_a_timecode_longer_than_matroska_allows_is_left_as_it_is() -> None:
    """A cluster timecode of 200 bytes (damage: Matroska's integers have at most 8) would
    overflow the Duration's float; the take is served as it is."""
    cluster = TAKE.index(CLUSTER)
    timecode = cluster + 4 + 8  # after the Cluster's id and its unknown size on 8 bytes
    assert TAKE[timecode : timecode + 3] == bytes.fromhex("E78100")  # Timecode 0, 1 byte
    damaged = TAKE[:timecode] + bytes.fromhex("E740C8") + b"\xff" * 200 + TAKE[timecode + 3 :]
    assert webm.with_duration(damaged) == damaged
    assert webm.duration_of(damaged) is None
