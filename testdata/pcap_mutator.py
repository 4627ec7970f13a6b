"""Reads a pcap/pcapng capture into records, mutates them, writes them back.

Used by mutation_property_test.py. A record is [ts_ns or None, data, origlen,
iface]; ts None is written as a pcapng Simple Packet Block (it has no time).
Mutations change what a real capture point can produce (drops, duplicates,
reordering, clock steps, bit errors, truncation), one RNG per mutant.
"""
import struct

NS = 1_000_000_000


class Capture:
    def __init__(self, fmt, linktypes, records, ns=False):
        self.fmt = fmt              # "pcap" or "pcapng"
        self.linktypes = linktypes  # per interface
        self.records = records
        self.ns = ns                # pcap: nanosecond magic


def read(raw):
    magic = raw[:4]
    if magic == b"\x0a\x0d\x0d\x0a":
        return _read_ng(raw)
    for endian in "<>":
        m = struct.unpack(endian + "I", magic)[0]
        if m in (0xA1B2C3D4, 0xA1B23C4D):
            return _read_pcap(raw, endian, m == 0xA1B23C4D)
    raise ValueError("not a pcap or pcapng file")


def _read_pcap(raw, e, ns):
    linktype = struct.unpack(e + "I", raw[20:24])[0] & 0x0FFFFFFF
    off, recs = 24, []
    while off + 16 <= len(raw):
        sec, frac, incl, orig = struct.unpack(e + "IIII", raw[off:off + 16])
        data = raw[off + 16:off + 16 + incl]
        if len(data) < incl:
            break
        recs.append([sec * NS + (frac if ns else frac * 1000), data, orig, 0])
        off += 16 + incl
    return Capture("pcap", [linktype], recs, ns)


def _read_ng(raw):
    e = "<" if raw[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    off, links, res, recs = 0, [], [], []
    while off + 12 <= len(raw):
        btype, blen = struct.unpack(e + "II", raw[off:off + 8])
        if blen < 12 or off + blen > len(raw):
            break
        body = raw[off + 8:off + blen - 4]
        if btype == 1:
            links.append(struct.unpack(e + "H", body[:2])[0])
            res.append(_tsresol(body[8:], e))
        elif btype == 6 and len(body) >= 20:
            iface, hi, lo, cap, orig = struct.unpack(e + "IIIII", body[:20])
            units = (hi << 32) | lo
            r = res[iface] if iface < len(res) else 10 ** 6
            recs.append([units * NS // r, body[20:20 + cap], orig, iface])
        elif btype == 3 and len(body) >= 4:
            orig = struct.unpack(e + "I", body[:4])[0]
            recs.append([None, body[4:4 + orig], orig, 0])
        off += blen
    return Capture("pcapng", links or [1], recs)


def _tsresol(opts, e):
    off = 0
    while off + 4 <= len(opts):
        code, ln = struct.unpack(e + "HH", opts[off:off + 4])
        if code == 0:
            break
        if code == 9 and ln >= 1:
            v = opts[off + 4]
            return 2 ** (v & 0x7F) if v & 0x80 else 10 ** v
        off += 4 + ((ln + 3) & ~3)
    return 10 ** 6


def write(cap):
    if cap.fmt == "pcap" and all(r[0] is not None for r in cap.records):
        return _write_pcap(cap)
    return _write_ng(cap)


def _write_pcap(cap):
    magic = 0xA1B23C4D if cap.ns else 0xA1B2C3D4
    out = [struct.pack("<IHHiIII", magic, 2, 4, 0, 0, 262144, cap.linktypes[0])]
    for ts, data, orig, _ in cap.records:
        ts = max(0, ts) % (2 ** 32 * NS)
        frac = ts % NS if cap.ns else (ts % NS) // 1000
        out.append(struct.pack("<IIII", ts // NS, frac, len(data), max(orig, len(data))) + data)
    return b"".join(out)


def _block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def _write_ng(cap):
    out = [_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))]
    for lt in cap.linktypes:   # if_tsresol = 9: nanoseconds
        out.append(_block(1, struct.pack("<HHI", lt, 0, 262144) + struct.pack("<HHB3x", 9, 1, 9) + b"\0" * 4))
    for ts, data, orig, iface in cap.records:
        if ts is None:
            out.append(_block(3, struct.pack("<I", len(data)) + data))
        else:
            ts = max(0, ts) % 2 ** 64
            out.append(_block(6, struct.pack("<IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(data),
                                             max(orig, len(data))) + data))
    return b"".join(out)


# --- mutations: each takes (rng, records) and changes records in place -------------------

def _pick(rng, recs):
    return rng.randrange(len(recs))


def flip_bytes(rng, recs):
    for _ in range(rng.randint(1, 8)):
        r = recs[_pick(rng, recs)]
        if r[1]:
            b = bytearray(r[1])
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8) if rng.random() < 0.7 else rng.randrange(1, 256)
            r[1] = bytes(b)


def truncate_packets(rng, recs):
    for _ in range(rng.randint(1, 4)):
        r = recs[_pick(rng, recs)]
        r[1] = r[1][:rng.randrange(len(r[1]) + 1)]


def reorder(rng, recs):
    """Packets move, each keeps its own time: the file's times go backwards."""
    for _ in range(rng.randint(1, 6)):
        i = _pick(rng, recs)
        j = min(len(recs) - 1, max(0, i + rng.randint(-5, 5)))
        recs[i], recs[j] = recs[j], recs[i]


def reorder_keep_times(rng, recs):
    """Packets move, the times stay in order (a capture point that saw them late)."""
    times = [r[0] for r in recs]
    reorder(rng, recs)
    for r, t in zip(recs, times):
        r[0] = t


def duplicate(rng, recs):
    for _ in range(rng.randint(1, 6)):
        i = _pick(rng, recs)
        r = list(recs[i])
        if r[0] is not None and rng.random() < 0.5:
            r[0] += rng.randint(0, 200_000_000)
        recs.insert(i + 1, r)


def drop(rng, recs):
    for _ in range(rng.randint(1, max(1, len(recs) // 10))):
        if len(recs) > 1:
            del recs[_pick(rng, recs)]


def ts_zero(rng, recs):
    for _ in range(rng.randint(1, 3)):
        recs[_pick(rng, recs)][0] = 0


def ts_backwards(rng, recs):
    i = _pick(rng, recs)
    step = rng.choice([1_000, 5 * NS, 3600 * NS])
    for r in recs[i:] if rng.random() < 0.5 else [recs[i]]:
        if r[0] is not None:
            r[0] = max(0, r[0] - step)


def ts_jump(rng, recs):
    i = _pick(rng, recs)
    step = rng.choice([45 * NS, 86400 * NS, 30 * 365 * 86400 * NS])
    for r in recs[i:] if rng.random() < 0.5 else [recs[i]]:
        if r[0] is not None:
            r[0] += step


def ts_same(rng, recs):
    i = _pick(rng, recs)
    for r in recs[i:i + rng.randint(2, 20)]:
        r[0] = recs[i][0]


def spb(rng, recs):
    """Some packets become pcapng Simple Packet Blocks: no timestamp at all."""
    for _ in range(rng.randint(1, 5)):
        recs[_pick(rng, recs)][0] = None


MUTATIONS = {f.__name__: f for f in (flip_bytes, truncate_packets, reorder, reorder_keep_times, duplicate, drop,
                                     ts_zero, ts_backwards, ts_jump, ts_same, spb)}


def mutate(rng, cap):
    """-> (bytes, [mutation names]); may also cut the written file short."""
    names = rng.sample(sorted(MUTATIONS), rng.randint(1, 3))
    recs = [list(r) for r in cap.records]
    if recs:
        for n in names:
            MUTATIONS[n](rng, recs)
    out = Capture(cap.fmt, cap.linktypes, recs, cap.ns)
    raw = write(out)
    if rng.random() < 0.15:
        names.append("truncate_file")
        raw = raw[:rng.randrange(len(raw) + 1)]
    return raw, names
