"""A recorded take's WebM file given its duration, so that players can show it and seek.

Chrome's MediaRecorder writes WebM as a live stream: the Segment and its Clusters have an
unknown size and the Segment's Info has no Duration, so an <audio> element reports an
infinite duration and its seek bar does not work until the whole file has played. The chunks
of a take are joined into one such file (app.mock.audio); `with_duration` adds the Duration
element the recorder could not write, from the timecodes of the blocks (the Matroska
specification: https://www.matroska.org/technical/elements.html), as fix-webm-duration does
in browsers. Nothing else changes: the audio is not decoded or re-encoded.

Only what this needs of EBML is read: element IDs and sizes, the Info's TimecodeScale and
Duration, and each Cluster's Timecode and its blocks' relative timecodes. A file it does not
understand (another writer's layout, a SeekHead whose offsets an insertion would shift, a
truncated header) is returned unchanged: playing as before is better than a broken file.
"""

import struct

EBML = 0x1A45DFA3
SEGMENT = 0x18538067
SEEK_HEAD = 0x114D9B74
INFO = 0x1549A966
TIMECODE_SCALE = 0x2AD7B1
DURATION = 0x4489
CLUSTER = 0x1F43B675
CUES = 0x1C53BB6B
TIMECODE = 0xE7
SIMPLE_BLOCK = 0xA3
BLOCK_GROUP = 0xA0
BLOCK = 0xA1
# What may follow a Cluster at the Segment's level: where a Cluster of unknown size ends.
_SEGMENT_CHILDREN = {SEEK_HEAD, INFO, CLUSTER, CUES, 0x1654AE6B, 0x1043A770, 0x1941A469,
                     0x1254C367}  # fmt: skip
UNKNOWN = -1


class _Unreadable(Exception):
    pass


def _element_id(data: bytes, pos: int) -> tuple[int, int]:
    """The ID at `pos` (marker bits kept, as IDs are written) and its length in bytes."""
    if pos >= len(data) or data[pos] == 0:
        raise _Unreadable
    length = 8 - data[pos].bit_length() + 1
    if length > 4 or pos + length > len(data):
        raise _Unreadable
    return int.from_bytes(data[pos : pos + length], "big"), length


def _size(data: bytes, pos: int) -> tuple[int, int]:
    """The element size at `pos` (UNKNOWN when all its bits are set) and its length."""
    if pos >= len(data) or data[pos] == 0:
        raise _Unreadable
    length = 8 - data[pos].bit_length() + 1
    if pos + length > len(data):
        raise _Unreadable
    value = int.from_bytes(data[pos : pos + length], "big") & ((1 << (7 * length)) - 1)
    return (UNKNOWN if value == (1 << (7 * length)) - 1 else value), length


def _header(data: bytes, pos: int) -> tuple[int, int, int]:
    """(id, size, where its data starts) of the element at `pos`."""
    element, id_length = _element_id(data, pos)
    size, size_length = _size(data, pos + id_length)
    return element, size, pos + id_length + size_length


def _uint(data: bytes) -> int:
    """An unsigned integer element: at most 8 bytes in Matroska; a longer one is damage (its
    value would overflow the Duration's float)."""
    if len(data) > 8:
        raise _Unreadable
    return int.from_bytes(data, "big")


def _block_timecodes(data: bytes, start: int, end: int, cluster_time: int) -> list[int]:
    """The absolute timecodes of the blocks in a BlockGroup's or a SimpleBlock's data."""
    _track, length = _size(data, start)  # the track number, a vint like a size
    if start + length + 2 > end:
        raise _Unreadable
    (relative,) = struct.unpack(">h", data[start + length : start + length + 2])
    return [cluster_time + relative]


def _cluster(data: bytes, start: int, end: int | None) -> tuple[list[int], int]:
    """The block timecodes of a Cluster whose data starts at `start` (ends at `end`, or, for
    one of unknown size, at the next element of the Segment's level), and where it ends."""
    cluster_time, pos = 0, start
    times: list[int] = []
    while pos < (end if end is not None else len(data)):
        element, size, body = _header(data, pos)
        if end is None and element in _SEGMENT_CHILDREN:
            return times, pos
        if size == UNKNOWN or body + size > len(data):
            # A block cut short at the end of a take the tab closed during: keep what came.
            if element in (SIMPLE_BLOCK, BLOCK) and body + 4 <= len(data):
                times += _block_timecodes(data, body, len(data), cluster_time)
            return times, len(data)
        if element == TIMECODE:
            cluster_time = _uint(data[body : body + size])
        elif element == SIMPLE_BLOCK:
            times += _block_timecodes(data, body, body + size, cluster_time)
        elif element == BLOCK_GROUP:
            inner = body
            while inner < body + size:
                child, child_size, child_body = _header(data, inner)
                if child == BLOCK:
                    times += _block_timecodes(
                        data, child_body, child_body + child_size, cluster_time
                    )
                inner = child_body + child_size
        pos = body + size
    return times, pos


def _encode_size(value: int, length: int) -> bytes:
    if value >= (1 << (7 * length)) - 1:
        raise _Unreadable
    return (value | (1 << (7 * length))).to_bytes(length, "big")


def duration_of(data: bytes) -> float | None:
    """The take's length in seconds, from its blocks' timecodes; None when unreadable."""
    try:
        found = _scan(data)
    except _Unreadable:
        return None
    return found.seconds if found else None


class _Scan:
    def __init__(self) -> None:
        self.segment_size_at = 0  # where the Segment's size is written
        self.segment_size = UNKNOWN
        self.segment_size_length = 0
        self.info_at = self.info_body = self.info_end = -1
        self.scale = 1_000_000  # TimecodeScale's default: timecodes in milliseconds
        self.has_duration = False
        self.has_seek_head = False
        self.times: list[int] = []

    @property
    def ticks(self) -> float:
        """The duration in timecode units: the last block's time plus one block's length
        (taken as the last gap between blocks: each Opus packet is as long as the others)."""
        times = sorted(set(self.times))
        last_gap = times[-1] - times[-2] if len(times) > 1 else 0
        return float(times[-1] + last_gap)

    @property
    def seconds(self) -> float:
        return self.ticks * self.scale / 1e9


def _scan(data: bytes) -> "_Scan | None":
    element, size, body = _header(data, 0)
    if element != EBML or size == UNKNOWN:
        return None
    pos = body + size
    scan = _Scan()
    element, scan.segment_size, segment_body = _header(data, pos)
    if element != SEGMENT:
        return None
    scan.segment_size_at = pos + _element_id(data, pos)[1]
    scan.segment_size_length = segment_body - scan.segment_size_at
    end = (
        len(data)
        if scan.segment_size == UNKNOWN
        else min(len(data), segment_body + scan.segment_size)
    )
    pos = segment_body
    while pos < end:
        element, size, body = _header(data, pos)
        if element == CLUSTER:
            times, pos = _cluster(data, body, None if size == UNKNOWN else body + size)
            scan.times += times
            continue
        if size == UNKNOWN:
            return None
        if element == SEEK_HEAD:
            scan.has_seek_head = True
        elif element == INFO:
            scan.info_at, scan.info_body, scan.info_end = pos, body, body + size
            inner = body
            while inner < body + size:
                child, child_size, child_body = _header(data, inner)
                if child == TIMECODE_SCALE:
                    scan.scale = _uint(data[child_body : child_body + child_size]) or scan.scale
                elif child == DURATION:
                    scan.has_duration = True
                inner = child_body + child_size
        pos = body + size
    return scan if scan.times and scan.info_at >= 0 else None


def with_duration(data: bytes) -> bytes:
    """`data` (a WebM file) with a Duration in its Info; unchanged when it has one already or
    cannot be read safely (see the module doc)."""
    try:
        scan = _scan(data)
        if scan is None or scan.has_duration or scan.has_seek_head:
            return data
        duration = bytes([0x44, 0x89, 0x88]) + struct.pack(">d", scan.ticks)
        info_size = scan.info_end - scan.info_body + len(duration)
        info = bytes([0x15, 0x49, 0xA9, 0x66]) + _encode_size(info_size, 8)
        grown = len(info) + info_size - (scan.info_end - scan.info_at)
        segment_size = b""
        if scan.segment_size != UNKNOWN:  # a known size grows by what is inserted
            segment_size = _encode_size(scan.segment_size + grown, scan.segment_size_length)
    except _Unreadable:
        return data
    head = data[: scan.info_at]
    if segment_size:
        at = scan.segment_size_at
        head = head[:at] + segment_size + head[at + scan.segment_size_length :]
    return head + info + data[scan.info_body : scan.info_end] + duration + data[scan.info_end :]
