"""Compression codecs of a record batch (Kafka's org.apache.kafka.common.compress.*, CompressionType).

The broker stores compressed batches exactly as the producer sent them (seed 002: batching "allows
compression to be done in a more efficient way"). It still has to look inside them: the leader's
LogValidator checks every record before it appends a batch, and a ListOffsets by timestamp reads
the records of one batch. Those reads go through `decompress_chunks`, which hands out the records
section a bounded piece at a time (Kafka reads it through a decompressing InputStream): a 30 KB
batch that inflates to a gigabyte costs CPU while it is read, never a gigabyte of memory.

`decompress` returns everything at once, for the clients and the tools. Each codec is a well-kept
C library.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Iterator
from enum import IntEnum

import lz4.frame
import snappy
import zstandard


class CompressionType(IntEnum):
    """The low three bits of a batch's attributes."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4


class UnsupportedCompressionTypeError(ValueError):
    """Attributes naming a codec that does not exist (5, 6, 7): UNSUPPORTED_COMPRESSION_TYPE."""


class CompressionError(ValueError):
    """Data that does not decompress with its batch's codec: garbage, truncated, or trailing bytes."""


def compression_type_for_id(codec_id: int) -> CompressionType:
    """Kafka's CompressionType.forId, with an error the broker can answer with."""
    if 0 <= codec_id <= 4:
        return CompressionType(codec_id)
    raise UnsupportedCompressionTypeError(f"Unknown compression type id: {codec_id}")


# The Java client frames snappy the way snappy-java's SnappyOutputStream does ("xerial" framing):
# a magic header, then length-prefixed raw snappy blocks. librdkafka writes raw snappy. We read both.
_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = struct.Struct(">8sii")  # magic, version, compatible version
_XERIAL_BLOCK = 32 * 1024
# A snappy element writes at most 64 bytes for 3 of input: a block claiming more than 22 times its
# size is lying, and is refused before the library allocates what it claims.
_SNAPPY_MAX_RATIO = 22

CHUNK_BYTES = 64 * 1024  # what `decompress_chunks` hands out at a time
# zstd's decoder keeps a window as large as the frame asks for (up to 2 GiB). 8 MiB is what level 19
# asks for when the compressor does not know the input's size; librdkafka's frames ask for less.
ZSTD_MAX_WINDOW_BYTES = 8 << 20


def compress(codec: CompressionType, data: bytes) -> bytes:
    if codec == CompressionType.NONE:
        return data
    if codec == CompressionType.GZIP:
        return gzip.compress(data)
    if codec == CompressionType.SNAPPY:
        return _xerial_compress(data)
    if codec == CompressionType.LZ4:
        return lz4.frame.compress(data)
    if codec == CompressionType.ZSTD:
        return zstandard.ZstdCompressor().compress(data)
    raise ValueError(f"unknown compression codec {codec}")


def decompress(codec: CompressionType, data: bytes) -> bytes:
    """All of it at once: for clients and tools, which hold the records anyway."""
    if codec == CompressionType.NONE:
        return bytes(data)
    if codec == CompressionType.GZIP:
        return gzip.decompress(data)
    if codec == CompressionType.SNAPPY:
        return _snappy_decompress(bytes(data))
    if codec == CompressionType.LZ4:
        return lz4.frame.decompress(data)
    if codec == CompressionType.ZSTD:
        # Producers do not always write the content size into the zstd frame, so stream it.
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    raise ValueError(f"unknown compression codec {codec}")


def decompress_chunks(codec: CompressionType, data: bytes | memoryview,
                      chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The decompressed bytes, in pieces of at most `chunk_bytes` (a snappy block, which its library
    inflates whole, at most 22 times its compressed size). Raises CompressionError, lazily, where
    the data stops making sense."""
    try:
        if codec == CompressionType.NONE:
            view = memoryview(data)
            for start in range(0, len(view), chunk_bytes):
                yield bytes(view[start : start + chunk_bytes])
        elif codec == CompressionType.GZIP:
            yield from _gzip_chunks(data, chunk_bytes)
        elif codec == CompressionType.SNAPPY:
            yield from _snappy_chunks(bytes(data), chunk_bytes)
        elif codec == CompressionType.LZ4:
            yield from _lz4_chunks(data, chunk_bytes)
        elif codec == CompressionType.ZSTD:
            yield from _zstd_chunks(data, chunk_bytes)
        else:
            raise UnsupportedCompressionTypeError(f"Unknown compression type id: {int(codec)}")
    except (zlib.error, RuntimeError, zstandard.ZstdError, snappy.UncompressError, struct.error,
            IndexError) as e:
        # lz4 reports a bad frame as RuntimeError; struct and IndexError come from a header cut short.
        raise CompressionError(f"{codec.name} data does not decompress: {e}") from None


def _gzip_chunks(data: bytes | memoryview, chunk_bytes: int) -> Iterator[bytes]:
    pending = bytes(data)
    while True:  # a gzip stream may hold several members, one after the other (as GZIPInputStream reads)
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while not inflater.eof:
            out = inflater.decompress(pending, chunk_bytes)
            pending = inflater.unconsumed_tail
            if out:
                yield out
            elif not pending:
                raise CompressionError("GZIP data ends inside a member")
        pending = inflater.unused_data
        if not pending:
            return


def _lz4_chunks(data: bytes | memoryview, chunk_bytes: int) -> Iterator[bytes]:
    pending = bytes(data)
    while True:  # frames, one after the other
        decompressor = lz4.frame.LZ4FrameDecompressor()
        out = decompressor.decompress(pending, max_length=chunk_bytes)
        while True:
            if out:
                yield out
            if decompressor.eof:
                break
            if decompressor.needs_input:
                raise CompressionError("LZ4 data ends inside a frame")
            out = decompressor.decompress(b"", max_length=chunk_bytes)
        pending = decompressor.unused_data
        if not pending:
            return


def _zstd_chunks(data: bytes | memoryview, chunk_bytes: int) -> Iterator[bytes]:
    data = bytes(data)
    decompressor = zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW_BYTES)
    with decompressor.stream_reader(data, read_size=chunk_bytes, read_across_frames=True) as reader:
        while chunk := reader.read(chunk_bytes):
            yield chunk
    # The reader stops quietly where the data stops, even inside a frame: walk the frames to be sure.
    _check_zstd_frames(data)


def _check_zstd_frames(data: bytes) -> None:
    """Raise CompressionError unless `data` is whole zstd frames (RFC 8878), end to end. Only the
    headers are read: the decoder has already checked what is inside the blocks."""
    pos = 0
    while pos < len(data):
        (magic,) = struct.unpack_from("<I", data, pos)
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # a skippable frame
            (size,) = struct.unpack_from("<I", data, pos + 4)
            pos += 8 + size
            continue
        if magic != 0xFD2FB528:
            raise CompressionError(f"ZSTD data holds bytes that are not a frame at {pos}")
        descriptor = data[pos + 4]
        single_segment = descriptor & 0x20
        pos += 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[descriptor & 3]
        pos += (1 if single_segment else 0, 2, 4, 8)[descriptor >> 6]
        last = False
        while not last:
            if pos + 3 > len(data):
                raise CompressionError("ZSTD data ends inside a frame")
            header = data[pos] | data[pos + 1] << 8 | data[pos + 2] << 16
            last, kind, size = header & 1, (header >> 1) & 3, header >> 3
            pos += 3 + (1 if kind == 1 else size)
        pos += 4 if descriptor & 4 else 0  # the content checksum
    if pos != len(data):
        raise CompressionError("ZSTD data ends inside a frame")


def _snappy_chunks(data: bytes, chunk_bytes: int) -> Iterator[bytes]:
    for block in _snappy_blocks(data):
        _check_snappy_length(block)
        out = snappy.decompress(block)
        for start in range(0, len(out), chunk_bytes):
            yield out[start : start + chunk_bytes]


def _snappy_blocks(data: bytes) -> Iterator[bytes]:
    if not data.startswith(_XERIAL_MAGIC):
        yield data
        return
    pos = _XERIAL_HEADER.size
    while pos < len(data):
        (length,) = struct.unpack_from(">i", data, pos)
        pos += 4
        if length < 0 or pos + length > len(data):
            raise CompressionError(f"a snappy block of {length} bytes runs past the end of the data")
        yield data[pos : pos + length]
        pos += length


def _check_snappy_length(block: bytes) -> None:
    """A raw snappy block starts with its uncompressed length (a varint): check it is possible."""
    length, shift, pos = 0, 0, 0
    while True:
        if pos >= len(block) or shift > 28:
            raise CompressionError("a snappy block without a valid length")
        byte = block[pos]
        length |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            break
    if length > _SNAPPY_MAX_RATIO * len(block) + 64:
        raise CompressionError(f"a snappy block of {len(block)} bytes claims to hold {length}")


def _xerial_compress(data: bytes) -> bytes:
    out = [_XERIAL_HEADER.pack(_XERIAL_MAGIC, 1, 1)]
    for start in range(0, len(data), _XERIAL_BLOCK):
        block = snappy.compress(data[start : start + _XERIAL_BLOCK])
        out.append(struct.pack(">i", len(block)))
        out.append(block)
    return b"".join(out)


def _snappy_decompress(data: bytes) -> bytes:
    if not data.startswith(_XERIAL_MAGIC):
        return snappy.decompress(data)
    out = []
    pos = _XERIAL_HEADER.size
    while pos < len(data):
        (length,) = struct.unpack_from(">i", data, pos)
        pos += 4
        out.append(snappy.decompress(data[pos : pos + length]))
        pos += length
    return b"".join(out)
