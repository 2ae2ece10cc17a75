"""Compression codecs of a record batch (Kafka's org.apache.kafka.common.compress.*, CompressionType).

The broker stores compressed batches exactly as the producer sent them (seed 002: batching "allows
compression to be done in a more efficient way"); it decompresses only where a feature needs the
individual records (tools, tests, later compaction). Each codec is a well-kept C library.
"""

from __future__ import annotations

import gzip
import struct
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


# The Java client frames snappy the way snappy-java's SnappyOutputStream does ("xerial" framing):
# a magic header, then length-prefixed raw snappy blocks. librdkafka writes raw snappy. We read both.
_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = struct.Struct(">8sii")  # magic, version, compatible version
_XERIAL_BLOCK = 32 * 1024


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
