#!/usr/bin/env python3
"""An independent verifier of a C2SP tiled transparency log, written from the specifications only.

It shares no code with the Swift implementation and uses the Python standard library alone, Ed25519
included (RFC 8032 section 5.1.7, implemented below), so it relies on neither OpenSSL nor the Swift code.

Specifications:
  c2sp.org/signed-note, c2sp.org/tlog-checkpoint, c2sp.org/tlog-tiles, c2sp.org/tlog-proof,
  RFC 6962 section 2.1 (Merkle Tree Hash and audit paths), RFC 8032 (Ed25519).

Where the Swift side uses the iterative RFC 9162 section 2.1.3.2 verification and reads roots through the tile
hierarchy, this one recomputes everything from the level-0 leaf hashes with the recursive RFC 6962 definitions,
so a shared misreading of the spec would have to be made twice, in two different algorithms.

Usage:
  tlog_verify.py --log DIR --vkey VKEY --origin ORIGIN [--receipt FILE --entry FILE]... [--kept FILE]
  tlog_verify.py --note FILE --vkey VKEY

Prints one "ok: ..." line per check and exits 0, or prints "FAIL: <what is wrong>" and exits 1.
"""

import base64
import binascii
import hashlib
import os
import sys
import unicodedata


class Failure(Exception):
    pass


# --- RFC 8032 Ed25519 verification -------------------------------------------------------------------------

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _point_add(a, b):
    # Extended homogeneous coordinates (RFC 8032 section 5.1.4).
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _scalar_mult(scalar, point):
    result = (0, 1, 1, 0)
    while scalar > 0:
        if scalar & 1:
            result = _point_add(result, point)
        point = _point_add(point, point)
        scalar >>= 1
    return result


def _encode_point(point):
    x, y, z, _ = point
    zinv = pow(z, P - 2, P)
    x, y = x * zinv % P, y * zinv % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _decode_point(data):
    # RFC 8032 section 5.1.3.
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:
        return None
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    if (v * x * x - u) % P != 0:
        if (v * x * x + u) % P != 0:
            return None
        x = x * SQRT_M1 % P
    if x == 0 and sign == 1:
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


BASE = _decode_point((4 * pow(5, P - 2, P) % P).to_bytes(32, "little"))


def ed25519_verify(public_key, message, signature):
    """RFC 8032 section 5.1.7: accept iff [S]B = R + [k]A', with S < L and A', R valid encodings."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decode_point(public_key)
    if a is None or _decode_point(signature[:32]) is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % L
    negative_a = ((P - a[0]) % P, a[1], a[2], (P - a[3]) % P)
    return _encode_point(_point_add(_scalar_mult(s, BASE), _scalar_mult(k, negative_a))) == signature[:32]


# --- encodings --------------------------------------------------------------------------------------------

def b64decode_strict(text):
    """Standard padded base64 (RFC 4648 section 4), canonical only."""
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Failure("not base64: %r" % text[:40])
    if base64.b64encode(data).decode("ascii") != text:
        raise Failure("not canonical base64: %r" % text[:40])
    return data


def decimal(text, what):
    if not text or not text.isascii() or not text.isdigit() or (len(text) > 1 and text[0] == "0"):
        raise Failure("%s %r is not a decimal number without leading zeroes" % (what, text[:40]))
    value = int(text)
    if value >= 2**64:
        raise Failure("%s %s does not fit 64 bits" % (what, text))
    return value


# --- c2sp.org/signed-note ---------------------------------------------------------------------------------

def valid_key_name(name):
    return name != "" and "+" not in name and not any(c.isspace() or unicodedata.category(c) == "Zs" for c in name)


class VerifierKey:
    def __init__(self, text):
        parts = text.split("+", 2)
        if len(parts) != 3 or len(parts[1]) != 8:
            raise Failure("verifier key %r is not name+hash+key" % text)
        self.name, hex_id, key64 = parts
        if not valid_key_name(self.name):
            raise Failure("verifier key name %r is invalid" % self.name)
        key = b64decode_strict(key64)
        if len(key) != 33 or key[0] != 0x01:
            raise Failure("verifier key %r is not an Ed25519 (type 0x01) key" % self.name)
        self.public_key = key[1:]
        # key ID = SHA-256(key name || 0x0A || 0x01 || 32-byte public key)[:4]
        self.key_id = hashlib.sha256(self.name.encode("utf-8") + b"\n" + key).digest()[:4]
        if self.key_id.hex() != hex_id.lower():
            raise Failure("verifier key %r: key hash %s does not match the key (%s)" % (self.name, hex_id, self.key_id.hex()))


def open_note(data, key):
    """Returns the note text once a signature by `key` verifies; raises Failure otherwise."""
    try:
        text_all = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Failure("note is not UTF-8")
    if any(ord(c) < 0x20 and c != "\n" for c in text_all):
        raise Failure("note contains a control character")
    split = data.rfind(b"\n\n")
    if split < 0:
        raise Failure("note has no blank line before its signatures")
    text, sigs = data[: split + 1], data[split + 2:]
    if not sigs or not sigs.endswith(b"\n"):
        raise Failure("note signatures do not end with a newline")
    verified = False
    for line in sigs[:-1].split(b"\n"):
        line = line.decode("utf-8")
        if not line.startswith("\u2014 "):
            raise Failure("signature line does not start with an em dash: %r" % line[:40])
        name, _, sig64 = line[2:].partition(" ")
        if not valid_key_name(name):
            raise Failure("signature key name %r is invalid" % name)
        sig = b64decode_strict(sig64)
        if len(sig) < 5:
            raise Failure("signature by %s is too short" % name)
        if name != key.name or sig[:4] != key.key_id:
            continue  # an unknown key: ignored, as the spec requires
        if not ed25519_verify(key.public_key, text, sig[4:]):
            raise Failure("signature by %s+%s does not verify" % (key.name, key.key_id.hex()))
        verified = True
    if not verified:
        raise Failure("no signature by %s+%s" % (key.name, key.key_id.hex()))
    return text.decode("utf-8")


# --- c2sp.org/tlog-checkpoint -----------------------------------------------------------------------------

def parse_checkpoint(text, origin):
    if not text.endswith("\n"):
        raise Failure("checkpoint text does not end with a newline")
    lines = text[:-1].split("\n")
    if len(lines) < 3 or any(line == "" for line in lines):
        raise Failure("checkpoint needs origin, size and root hash lines, none empty")
    if lines[0] != origin:
        raise Failure("checkpoint origin %r is not %r" % (lines[0], origin))
    size = decimal(lines[1], "checkpoint size")
    root = b64decode_strict(lines[2])
    if len(root) != 32:
        raise Failure("checkpoint root hash is not 32 bytes")
    return size, root


# --- RFC 6962 section 2.1 ---------------------------------------------------------------------------------

def leaf_hash(entry):
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def split_point(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves):
    """Merkle Tree Hash of a list of leaf hashes, by the recursive definition."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = split_point(len(leaves))
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def root_from_audit_path(index, size, leaf, path):
    """Recomputes the root by walking PATH(m, D[n]) (RFC 6962 section 2.1.1) down from the top."""
    if size == 1:
        if path:
            raise Failure("inclusion proof has %d hashes too many" % len(path))
        return leaf
    if not path:
        raise Failure("inclusion proof is too short")
    k = split_point(size)
    if index < k:
        return node_hash(root_from_audit_path(index, k, leaf, path[:-1]), path[-1])
    return node_hash(path[-1], root_from_audit_path(index - k, size - k, leaf, path[:-1]))


# --- c2sp.org/tlog-tiles ----------------------------------------------------------------------------------

def tile_index_path(n):
    groups = []
    while True:
        groups.append("%03d" % (n % 1000))
        n //= 1000
        if n == 0:
            break
    groups.reverse()
    return "/".join(["x" + g for g in groups[:-1]] + [groups[-1]])


def tile_path(level, n, width):
    name = "entries" if level == "entries" else str(level)
    return "tile/%s/%s%s" % (name, tile_index_path(n), "" if width == 256 else ".p/%d" % width)


def read_tile(directory, level, n, size):
    """The tile at `level`, index `n`, as the tree of `size` entries has it: full or partial."""
    step = 256 ** (1 if level == "entries" else level + 1)
    full_count = size // step
    width = 256 if n < full_count else (size // (step // 256)) % 256
    path = tile_path(level, n, width)
    try:
        with open(os.path.join(directory, path), "rb") as f:
            return path, width, f.read()
    except FileNotFoundError:
        raise Failure("%s is missing" % path)


def leaf_hashes_from_tiles(directory, size):
    leaves = []
    for n in range((size + 255) // 256):
        path, width, data = read_tile(directory, 0, n, size)
        if len(data) != 32 * width:
            raise Failure("%s has %d bytes, expected %d" % (path, len(data), 32 * width))
        leaves += [data[i: i + 32] for i in range(0, len(data), 32)]
    return leaves


def check_upper_levels(directory, size, leaves):
    """Every hash in a level l >= 1 tile is the MTH of the 256^l leaves under it."""
    level, span, checked = 1, 256, 0
    while size // span > 0:
        count = size // span
        for n in range((count + 255) // 256):
            path, width, data = read_tile(directory, level, n, size)
            if len(data) != 32 * width:
                raise Failure("%s has %d bytes, expected %d" % (path, len(data), 32 * width))
            for i in range(width):
                first = (n * 256 + i) * span
                if data[32 * i: 32 * i + 32] != mth(leaves[first: first + span]):
                    raise Failure("%s hash %d is not the Merkle hash of leaves %d..%d" % (path, i, first, first + span - 1))
                checked += 1
        level, span = level + 1, span * 256
    return checked


def entries_from_bundles(directory, size, leaves):
    entries = []
    for n in range((size + 255) // 256):
        path, width, data = read_tile(directory, "entries", n, size)
        offset, bundle = 0, []
        while offset < len(data):
            if offset + 2 > len(data):
                raise Failure("%s: cut-off length prefix" % path)
            length = int.from_bytes(data[offset: offset + 2], "big")
            if offset + 2 + length > len(data):
                raise Failure("%s: cut-off entry" % path)
            bundle.append(data[offset + 2: offset + 2 + length])
            offset += 2 + length
        if len(bundle) != width:
            raise Failure("%s holds %d entries, expected %d" % (path, len(bundle), width))
        for i, entry in enumerate(bundle):
            if leaf_hash(entry) != leaves[n * 256 + i]:
                raise Failure("%s entry %d does not hash to its leaf" % (path, i))
        entries += bundle
    return entries


# --- c2sp.org/tlog-proof ----------------------------------------------------------------------------------

def parse_receipt(data):
    lines, rest = [], data
    while True:
        end = rest.find(b"\n")
        if end < 0:
            raise Failure("receipt has no empty line before its checkpoint")
        line, rest = rest[:end].decode("utf-8"), rest[end + 1:]
        if line == "":
            break
        lines.append(line)
    if not lines or lines[0] != "c2sp.org/tlog-proof@v1":
        raise Failure("receipt does not start with c2sp.org/tlog-proof@v1")
    position, extra = 1, None
    if position < len(lines) and lines[position].startswith("extra "):
        extra = b64decode_strict(lines[position][6:])
        position += 1
    if position >= len(lines) or not lines[position].startswith("index "):
        raise Failure("receipt has no index line")
    index = decimal(lines[position][6:], "receipt index")
    hashes = [b64decode_strict(line) for line in lines[position + 1:]]
    if any(len(h) != 32 for h in hashes):
        raise Failure("receipt proof hash is not 32 bytes")
    return extra, index, hashes, rest


# --- commands ---------------------------------------------------------------------------------------------

def verify_log(directory, key, origin, receipts, kept):
    with open(os.path.join(directory, "checkpoint"), "rb") as f:
        size, root = parse_checkpoint(open_note(f.read(), key), origin)
    print("ok: checkpoint signed by %s+%s, size %d" % (key.name, key.key_id.hex(), size))
    leaves = leaf_hashes_from_tiles(directory, size)
    if mth(leaves) != root:
        raise Failure("root mismatch: level-0 tiles give %s, the checkpoint says %s"
                      % (base64.b64encode(mth(leaves)).decode(), base64.b64encode(root).decode()))
    print("ok: level-0 tiles rebuild the checkpoint root")
    print("ok: %d upper-level tile hashes match the leaves below them" % check_upper_levels(directory, size, leaves))
    entries = entries_from_bundles(directory, size, leaves)
    print("ok: %d entries hash to their leaves" % len(entries))
    for receipt_path, entry_path in receipts:
        with open(receipt_path, "rb") as f:
            extra, index, hashes, note = parse_receipt(f.read())
        with open(entry_path, "rb") as f:
            entry = f.read()
        receipt_size, receipt_root = parse_checkpoint(open_note(note, key), origin)
        if index >= receipt_size:
            raise Failure("receipt index %d is not below its checkpoint size %d" % (index, receipt_size))
        if root_from_audit_path(index, receipt_size, leaf_hash(entry), hashes) != receipt_root:
            raise Failure("receipt %s: entry %d is not included in its checkpoint" % (os.path.basename(receipt_path), index))
        if extra is not None and extra != entry:
            raise Failure("receipt %s: extra data is not the entry" % os.path.basename(receipt_path))
        if receipt_size > size or mth(leaves[:receipt_size]) != receipt_root:
            raise Failure("receipt %s: its checkpoint (size %d) is not a prefix of the log" % (os.path.basename(receipt_path), receipt_size))
        print("ok: receipt %s proves entry %d in the tree of size %d" % (os.path.basename(receipt_path), index, receipt_size))
    if kept:
        with open(kept, "rb") as f:
            kept_size, kept_root = parse_checkpoint(open_note(f.read(), key), origin)
        if kept_size > size or mth(leaves[:kept_size]) != kept_root:
            raise Failure("rewritten history: the kept checkpoint of size %d is not a prefix of the current log of size %d"
                          % (kept_size, size))
        print("ok: the kept checkpoint of size %d is a prefix of the log" % kept_size)


def main(argv):
    args, receipts, pending_receipt = {}, [], None
    i = 0
    while i < len(argv):
        flag = argv[i]
        if flag not in ("--log", "--vkey", "--origin", "--receipt", "--entry", "--kept", "--note") or i + 1 >= len(argv):
            print("FAIL: usage: see the module docstring")
            return 2
        value = argv[i + 1]
        if flag == "--receipt":
            pending_receipt = value
        elif flag == "--entry":
            if pending_receipt is None:
                print("FAIL: --entry must follow --receipt")
                return 2
            receipts.append((pending_receipt, value))
            pending_receipt = None
        else:
            args[flag] = value
        i += 2
    try:
        key = VerifierKey(args["--vkey"])
        if "--note" in args:
            with open(args["--note"], "rb") as f:
                text = open_note(f.read(), key)
            print("ok: note signed by %s+%s, %d text bytes" % (key.name, key.key_id.hex(), len(text.encode())))
        else:
            verify_log(args["--log"], key, args["--origin"], receipts, args.get("--kept"))
    except Failure as failure:
        print("FAIL: %s" % failure)
        return 1
    except (KeyError, OSError) as error:
        print("FAIL: %s" % error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
