"""A small, strict safetensors reader and writer (the Python `safetensors` package is not available).

Format: 8-byte little-endian header length N, then N bytes of UTF-8 JSON mapping each tensor
name to {"dtype", "shape", "data_offsets": [begin, end]} plus an optional "__metadata__"
{str: str}, padded with spaces so N is a multiple of 8, then the raw little-endian tensor data
back to back (offsets are relative to the start of the data section).

write(path, tensors, metadata=None, dtype=None)   dtype "F32" (default), "F16" or "BF16"
write_streamed(path, entries, metadata=None, dtype=None)   the same, one chunk of a tensor in memory at a time
read(path) -> (dict name -> float32 tensor, metadata dict or None)

Typed variants (for hub-style checkpoints, which also hold integer/bool buffers):
write_typed(path, tensors, metadata=None, dtypes=None)   dtypes {name: "F32"|"F16"|"BF16"|"U8"|"BOOL"|"I64"},
    default: "F32" for floating tensors, the tensor's own dtype for uint8/bool/int64 ones
read_typed(path) -> (dict name -> tensor in its stored dtype, {name: dtype}, metadata or None)
read() and parse() keep accepting only F32/F16/BF16 (they return float32).

Conversions on write are single round-to-nearest-even steps from the tensor's own dtype
(torch's .to(float16) / .to(bfloat16)); BF16 is the upper 16 bits of float32, rounded.
Tensors are written in the dict's order, data in the same order as the header entries.
"""
import json
import math
import struct
import sys

import torch

# name -> (torch dtype of the stored values, integer dtype of the same width, bytes per element)
DTYPES = {
    "F32": (torch.float32, torch.int32, 4),
    "F16": (torch.float16, torch.int16, 2),
    "BF16": (torch.bfloat16, torch.int16, 2),
}
# Non-float dtypes, for write_typed/read_typed only: name -> (torch dtype, bytes per element)
OTHER_DTYPES = {
    "U8": (torch.uint8, 1),
    "BOOL": (torch.bool, 1),
    "I64": (torch.int64, 8),
}
NATIVE = {torch.uint8: "U8", torch.bool: "BOOL", torch.int64: "I64"}
MAX_HEADER = 100_000_000  # the limit the reference implementation uses

if sys.byteorder != "little":  # raw bytes below are the host's; the format is little-endian
    raise RuntimeError("safetensors_io assumes a little-endian host")


class SafetensorsError(ValueError):
    pass


def _encode(t, dtype):
    store, as_int, _ = DTYPES[dtype]
    if not isinstance(t, torch.Tensor):
        raise SafetensorsError("not a tensor: %r" % type(t))
    if not t.is_floating_point():
        raise SafetensorsError("only floating-point tensors are written, got %s" % t.dtype)
    c = t.detach().cpu().contiguous().to(store)
    return c.view(as_int).numpy().tobytes()


def write(path, tensors, metadata=None, dtype=None):
    dtype = "F32" if dtype is None else dtype
    if dtype not in DTYPES:
        raise SafetensorsError("unsupported dtype %r (F32, F16, BF16)" % (dtype,))
    _write(path, tensors, metadata, lambda name, t: (dtype, _encode(t, dtype)))


def _encode_typed(name, t, dtypes):
    if not isinstance(t, torch.Tensor):
        raise SafetensorsError("not a tensor: %r" % type(t))
    dtype = dtypes.get(name)
    if dtype is None:
        dtype = "F32" if t.is_floating_point() else NATIVE.get(t.dtype)
        if dtype is None:
            raise SafetensorsError("%s: no default safetensors dtype for %s" % (name, t.dtype))
    if dtype in DTYPES:
        return dtype, _encode(t, dtype)
    if dtype not in OTHER_DTYPES:
        raise SafetensorsError("%s: unsupported dtype %r" % (name, dtype))
    store = OTHER_DTYPES[dtype][0]
    if t.dtype != store:
        raise SafetensorsError("%s: %s written as %s needs a %s tensor" % (name, t.dtype, dtype, store))
    return dtype, t.detach().cpu().contiguous().numpy().tobytes()


def write_typed(path, tensors, metadata=None, dtypes=None):
    """Like write(), with one dtype per tensor (see the module docstring)."""
    dtypes = dict(dtypes or {})
    unknown = set(dtypes) - set(tensors)
    if unknown:
        raise SafetensorsError("dtypes for tensors not written: %r" % sorted(unknown))
    _write(path, tensors, metadata, lambda name, t: _encode_typed(name, t, dtypes))


def _header(metadata, entries):
    """The 8-byte length and the padded JSON header for entries [(name, dtype, shape, nbytes)]."""
    header = {}
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise SafetensorsError("metadata must map str to str")
        header["__metadata__"] = dict(metadata)
    offset = 0
    for name, dtype, shape, nbytes in entries:
        if not isinstance(name, str) or name == "__metadata__" or name in header:
            raise SafetensorsError("bad tensor name %r" % (name,))
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text


def _write(path, tensors, metadata, encode):
    encoded = []
    for name, t in tensors.items():
        if not isinstance(name, str) or name == "__metadata__":
            raise SafetensorsError("bad tensor name %r" % (name,))
        encoded.append((name, t.shape, *encode(name, t)))
    with open(path, "wb") as f:
        f.write(_header(metadata, [(name, dtype, shape, len(data)) for name, shape, dtype, data in encoded]))
        for _, _, _, data in encoded:
            f.write(data)


def write_streamed(path, entries, metadata=None, dtype=None):
    """Like write(), for files larger than memory: entries is a list of (name, shape, chunks), where
    chunks() yields floating tensors holding the tensor's values in row-major order (their sizes summing
    to the shape's); each chunk is converted and written as it comes, so one chunk is held at a time."""
    dtype = "F32" if dtype is None else dtype
    if dtype not in DTYPES:
        raise SafetensorsError("unsupported dtype %r (F32, F16, BF16)" % (dtype,))
    size = DTYPES[dtype][2]
    with open(path, "wb") as f:
        f.write(_header(metadata, [(name, dtype, shape, math.prod(shape) * size) for name, shape, _ in entries]))
        for name, shape, chunks in entries:
            written = 0
            for chunk in chunks():
                data = _encode(chunk, dtype)
                f.write(data)
                written += len(data)
            if written != math.prod(shape) * size:
                raise SafetensorsError("%s: chunks gave %d bytes for shape %r %s" % (name, written, list(shape), dtype))


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise SafetensorsError("duplicate key in header: %r" % sorted(k for k in keys if keys.count(k) > 1)[0])
    return dict(pairs)


def _bad_constant(name):
    raise SafetensorsError("header holds %s" % name)


def _is_uint(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def parse(buf):
    """(dict name -> float32 tensor in header order, metadata or None) from the file's bytes."""
    tensors, _, metadata = _parse(buf, typed=False)
    return tensors, metadata


def parse_typed(buf):
    """(dict name -> tensor in its stored dtype, {name: dtype}, metadata or None); also U8/BOOL/I64."""
    return _parse(buf, typed=True)


def _size(dtype):
    return DTYPES[dtype][2] if dtype in DTYPES else OTHER_DTYPES[dtype][1]


def _parse(buf, typed):
    if len(buf) < 8:
        raise SafetensorsError("file shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", buf[:8])
    if n > MAX_HEADER:
        raise SafetensorsError("header length %d too large" % n)
    if 8 + n > len(buf):
        raise SafetensorsError("header length %d runs past the end of the file (%d bytes)" % (n, len(buf)))
    raw = bytes(buf[8:8 + n])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SafetensorsError("header is not UTF-8: %s" % e)
    if not text.startswith("{"):
        raise SafetensorsError("header does not start with '{'")
    try:
        header = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_bad_constant)
    except json.JSONDecodeError as e:
        raise SafetensorsError("header is not JSON: %s" % e)
    if not isinstance(header, dict):
        raise SafetensorsError("header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
            raise SafetensorsError("__metadata__ must map str to str")
    data = memoryview(buf)[8 + n:]
    entries = []
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise SafetensorsError("%s: entry must have exactly dtype, shape, data_offsets" % name)
        dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if dtype not in DTYPES and not (typed and isinstance(dtype, str) and dtype in OTHER_DTYPES):
            allowed = "F32, F16, BF16" + (", U8, BOOL, I64" if typed else "")
            raise SafetensorsError("%s: unsupported dtype %r (%s)" % (name, dtype, allowed))
        if not isinstance(shape, list) or not all(_is_uint(d) for d in shape):
            raise SafetensorsError("%s: bad shape %r" % (name, shape))
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_uint(o) for o in offsets):
            raise SafetensorsError("%s: bad data_offsets %r" % (name, offsets))
        begin, end = offsets
        if end < begin:
            raise SafetensorsError("%s: data_offsets end before begin" % name)
        size = math.prod(shape) * _size(dtype)
        if end - begin != size:
            raise SafetensorsError("%s: %d bytes for shape %r %s, expected %d" % (name, end - begin, shape, dtype, size))
        entries.append((begin, end, name, dtype, shape))
    # The tensors must tile the data section exactly: no gap, no overlap, nothing left over.
    pos = 0
    for begin, end, name, _, _ in sorted(entries):
        if begin != pos:
            raise SafetensorsError("%s: data starts at %d, expected %d (gap or overlap)" % (name, begin, pos))
        pos = end
    if pos != len(data):
        raise SafetensorsError("tensors cover %d bytes of data but the file holds %d" % (pos, len(data)))
    tensors = {}
    for begin, end, name, dtype, shape in entries:
        if dtype in DTYPES:
            store, as_int, _ = DTYPES[dtype]
            target = store if typed else torch.float32
        else:
            store = as_int = target = OTHER_DTYPES[dtype][0]
        if begin == end:
            t = torch.zeros(shape, dtype=target)
        elif dtype == "BOOL":
            raw_bytes = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.uint8)
            if bool((raw_bytes > 1).any()):
                raise SafetensorsError("%s: BOOL data holds a byte other than 0 or 1" % name)
            t = raw_bytes.to(torch.bool)
        else:
            t = torch.frombuffer(bytearray(data[begin:end]), dtype=as_int).view(store).to(target)
        tensors[name] = t.reshape(shape)
    return tensors, {name: dtype for _, _, name, dtype, _ in entries}, metadata


def read(path):
    with open(path, "rb") as f:
        return parse(f.read())


def read_typed(path):
    with open(path, "rb") as f:
        return parse_typed(f.read())


def dtypes(path):
    """{name: dtype string} from a file's header (unchecked; for tests)."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    return {k: v["dtype"] for k, v in header.items() if k != "__metadata__"}
