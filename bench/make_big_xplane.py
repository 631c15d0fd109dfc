#!/usr/bin/env python3
"""make_big_xplane.py SOURCE.xplane.pb OUT.xplane.pb [MEGABYTES]: a big XSpace made of real events.

Every line that holds events is repeated in time: its events are written again and again, each
copy shifted by the line's span (last end minus first start) plus a gap, until the file reaches
MEGABYTES (default 500). Everything else (planes, metadata, the embedded HloProtos) is copied
byte for byte, so the result reads like SOURCE recorded for longer: the same ops, programs and
stats, more runs. Standard library only; no code shared with the core. The file is not
committed: bench/profile.sh makes it under bench/out/.
"""
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        key, j = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, k = varint(b, j)
            yield f, w, v, b[i:k]
        elif w == 2:
            n, k = varint(b, j)
            yield f, w, b[k:k + n], b[i:k + n]
            k += n
        elif w == 1:
            k = j + 8
            yield f, w, b[j:k], b[i:k]
        elif w == 5:
            k = j + 4
            yield f, w, b[j:k], b[i:k]
        else:
            raise ValueError('unsupported wire type %d' % w)
        i = k


def enc_varint(v):
    out = bytearray()
    while True:
        c = v & 0x7f
        v >>= 7
        if v:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)


def ld(f, payload):
    return enc_varint(f << 3 | 2) + enc_varint(len(payload)) + payload


def event_times(ev):
    off = dur = 0
    for f, w, v, _ in fields(ev):
        if f == 2 and w == 0:
            off = v
        elif f == 3 and w == 0:
            dur = v
    return off, dur




def main():
    src, out = sys.argv[1], sys.argv[2]
    target = int(float(sys.argv[3]) * 1e6) if len(sys.argv) > 3 else 500_000_000
    data = open(src, 'rb').read()
    planes = [(v, raw) for f, w, v, raw in fields(data) if f == 1 and w == 2]
    # bytes of events per repetition, over all lines: how many copies reach the target
    ev_bytes = sum(len(raw) for p, _ in planes for f, w, l, _ in fields(p) if f == 3 and w == 2
                   for g, w2, e, raw in fields(l) if g == 4 and w2 == 2)
    copies = max(1, (target - len(data)) // max(1, ev_bytes) + 1)
    with open(out, 'wb') as o:
        for f, w, v, raw in fields(data):
            if not (f == 1 and w == 2):
                o.write(raw)
                continue
            plane = bytearray()
            for g, w2, l, lraw in fields(v):
                if g != 3 or w2 != 2:
                    plane += lraw
                    continue
                evs = [e for h, w3, e, _ in fields(l) if h == 4 and w3 == 2]
                if not evs:
                    plane += lraw
                    continue
                times = [event_times(e) for e in evs]
                lo = min(t[0] for t in times)
                hi = max(t[0] + t[1] for t in times)
                period = (hi - lo) + max(1, (hi - lo) // 10)
                line = bytearray(b''.join(raw for h, w3, e, raw in fields(l) if not (h == 4 and w3 == 2)))
                # each event split once around its offset field: copies only re-encode the offset
                parts = []
                for e in evs:
                    pre, post, off = bytearray(), bytearray(), None
                    for h, w3, v, raw in fields(e):
                        if h == 2 and w3 == 0 and off is None:
                            off = v
                        elif off is None:
                            pre += raw
                        else:
                            post += raw
                    parts.append((bytes(pre), off or 0, bytes(post)))
                tag2 = enc_varint(2 << 3)
                for k in range(copies):
                    d = k * period
                    for pre, off, post in parts:
                        body = pre + tag2 + enc_varint(off + d) + post
                        line += b'\x22' + enc_varint(len(body)) + body
                plane += ld(3, bytes(line))
            o.write(ld(1, bytes(plane)))
    print('%s: %d copies of the events of %s' % (out, copies, src))


if __name__ == '__main__':
    main()
