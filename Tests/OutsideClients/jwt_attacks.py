"""The attack catalogue of jwt_tool (https://github.com/ticarpi/jwt_tool: its -X exploit modes and -I/-T
tampering), and the JOSE attacks named since, crafted with the `cryptography` package against a running
`lifecycle serve`. jwt_tool itself is not on PyPI, so its attacks are rebuilt here from their descriptions;
nothing in this file shares code with the service.

Usage: jwt_attacks.py --url URL --key PRIVATE_KEY_PEM --kid KID --aud CLIENT_ID --issuer ISS --form FORM
                      [--bearer TOKEN] [--subject SUB] [--trusted-https BASE] [--ec-kid KID]

--ec-kid names the service's own P-256 key, where it trusts one, so the ES256 attacks reach the signature
check rather than stopping at the key's type.

FORM is `apple` (the body `{"payload": "<JWS>"}`, the claims of an Apple server-to-server notification) or
`set` (a Security Event Token pushed as `application/secevent+jwt`, RFC 8935). The control is a token signed
honestly with the given key: it must be accepted (2xx) so a broken harness cannot pass. Every attack must be
refused with a 4xx whose reason `code` is the one its check gives (a signature by another key is
`bad_signature`, `alg` none is `unsupported_algorithm`, ...): refused for another reason, the check it aims at
was never reached. The `jku` and `x5u` the attacks name point at listeners started here (an HTTP one serving
an attacker's key set, and a TCP one standing for an https:// host) and, with --trusted-https BASE, at a TLS
host the service trusts (the caller checks that host was not asked): none may be contacted.

Prints one JSON object (control status, each attack's status, fetches of the attacker's URLs) and exits 0 only
when the control was accepted, every attack refused with a 4xx and nothing fetched.
"""

import argparse
import base64
import datetime
import hashlib
import hmac
import http.server
import json
import secrets
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import NameOID


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwk_of(public_key, kid):
    numbers = public_key.public_numbers()
    def octets(n):
        return n.to_bytes((n.bit_length() + 7) // 8, "big")
    return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": b64(octets(numbers.n)), "e": b64(octets(numbers.e))}


class Forge:
    def __init__(self, key, kid, aud, issuer, form):
        self.key, self.kid, self.aud, self.issuer, self.form = key, kid, aud, issuer, form
        self.public_pem = key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        self.attacker = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def claims(self, subject):
        now = int(time.time())
        if self.form == "apple":
            event = {"type": "consent-revoked", "sub": subject, "event_time": now * 1000}
            return {"iss": self.issuer, "aud": self.aud, "iat": now, "exp": now + 300,
                    "jti": secrets.token_urlsafe(16), "events": json.dumps(event)}
        return {"iss": self.issuer, "aud": self.aud, "iat": now, "jti": secrets.token_urlsafe(16),
                "sub_id": {"format": "iss_sub", "iss": self.issuer, "sub": subject},
                "events": {"https://schemas.openid.net/secevent/caep/event-type/session-revoked": {}}}

    def header(self, **members):
        typ = {} if self.form == "apple" else {"typ": "secevent+jwt"}
        header = {"alg": "RS256", "kid": self.kid, **typ}
        header.update(members)
        return {k: v for k, v in header.items() if v is not None}

    @staticmethod
    def signing_input(header, claims):
        return (b64(json.dumps(header, separators=(",", ":")).encode()) + "."
                + b64(json.dumps(claims, separators=(",", ":")).encode()))

    def rs256(self, key, header, claims):
        message = self.signing_input(header, claims)
        return message + "." + b64(key.sign(message.encode(), padding.PKCS1v15(), hashes.SHA256()))

    def hmac(self, secret, digest, header, claims):
        message = self.signing_input(header, claims)
        return message + "." + b64(hmac.new(secret, message.encode(), digest).digest())

    def raw(self, header, claims, signature):
        return self.signing_input(header, claims) + "." + b64(signature)

    def self_signed_certificate(self):
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "appleid.apple.com")])
        now = datetime.datetime.now(datetime.timezone.utc)
        certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                       .public_key(self.attacker.public_key()).serial_number(x509.random_serial_number())
                       .not_valid_before(now - datetime.timedelta(days=1))
                       .not_valid_after(now + datetime.timedelta(days=1))
                       .sign(self.attacker, hashes.SHA256()))
        return certificate.public_bytes(serialization.Encoding.DER)

    def attacks(self, subject, attacker_urls, ec_kid=None):
        """(name, token, reason codes) triples: every one must be refused, for one of those reasons (the `code`
        of the refusal), so an attack refused by accident, for another reason, does not count."""
        c = lambda: self.claims(subject)
        honest = self.rs256(self.key, self.header(), c())
        head, body, signature = honest.split(".")
        algorithm, bad_signature, unknown_kid = {"unsupported_algorithm"}, {"bad_signature"}, {"unknown_kid"}
        out = []
        # -X a: alg none, in jwt_tool's four spellings, with no signature and with the honest one kept.
        for spelling in ("none", "None", "NONE", "nOnE"):
            out.append((f"alg {spelling}, empty signature", self.raw(self.header(alg=spelling), c(), b""), algorithm))
        out.append(("alg none, honest signature kept",
                    self.signing_input(self.header(alg="none"), c()) + "." + signature, algorithm))
        # -X n: the signature stripped from an honest token.
        out.append(("null signature", head + "." + body + ".", bad_signature))
        out.append(("no signature part", head + "." + body, {"malformed_jws"}))
        # -T/-I: claims changed under the honest signature.
        other = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        other["jti"] = secrets.token_urlsafe(16)
        out.append(("claims tampered, signature kept",
                    head + "." + b64(json.dumps(other, separators=(",", ":")).encode()) + "." + signature,
                    bad_signature))
        # -X k: HMAC keyed with the public key (CVE-2016-10555), as PEM with and without its newline, and DER.
        der = self.key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        for name, digest in (("HS256", hashlib.sha256), ("HS384", hashlib.sha384), ("HS512", hashlib.sha512)):
            out.append((f"{name} keyed with the public key PEM",
                        self.hmac(self.public_pem, digest, self.header(alg=name), c()), algorithm))
        out.append(("HS256 keyed with the PEM without its newline",
                    self.hmac(self.public_pem.rstrip(b"\n"), hashlib.sha256, self.header(alg="HS256"), c()), algorithm))
        out.append(("HS256 keyed with the public key DER",
                    self.hmac(der, hashlib.sha256, self.header(alg="HS256"), c()), algorithm))
        # -C/blank password: HS256 with an empty secret.
        out.append(("HS256 with an empty secret", self.hmac(b"", hashlib.sha256, self.header(alg="HS256"), c()), algorithm))
        # -X i: the attacker's key embedded as `jwk` (CVE-2018-0114), with the service's kid and with jwt_tool's.
        embedded = jwk_of(self.attacker.public_key(), self.kid)
        out.append(("embedded jwk, the service's kid", self.rs256(self.attacker, self.header(jwk=embedded), c()),
                    bad_signature))
        out.append(("embedded jwk, kid jwt_tool",
                    self.rs256(self.attacker, self.header(kid="jwt_tool", jwk=jwk_of(self.attacker.public_key(), "jwt_tool")), c()),
                    unknown_kid))
        # -X s: a key set URL the attacker serves (`jku`), and an X.509 URL (`x5u`), over http and https.
        for base in attacker_urls:
            out.append((f"jku to {base}", self.rs256(self.attacker, self.header(jku=base + "/jwks.json"), c()), bad_signature))
            out.append((f"x5u to {base}", self.rs256(self.attacker, self.header(x5u=base + "/cert.pem"), c()), bad_signature))
        # An embedded self-signed certificate chain (`x5c`).
        out.append(("x5c self-signed certificate",
                    self.rs256(self.attacker, self.header(x5c=[base64.b64encode(self.self_signed_certificate()).decode()]), c()),
                    bad_signature))
        # RS256 by another key under the service's kid.
        out.append(("RS256 by another key", self.rs256(self.attacker, self.header(), c()), bad_signature))
        # kid injection: path traversal to an empty file and a SQL union, each HMAC-keyed to what it would load.
        out.append(("kid path traversal to /dev/null",
                    self.hmac(b"", hashlib.sha256, self.header(alg="HS256", kid="../../../../../../../../dev/null"), c()),
                    algorithm))
        out.append(("kid SQL injection",
                    self.hmac(b"key", hashlib.sha256, self.header(alg="HS256", kid="x' UNION SELECT 'key';--"), c()),
                    algorithm))
        out.append(("kid command injection", self.rs256(self.attacker, self.header(kid="key|/usr/bin/id"), c()), unknown_kid))
        out.append(("kid of 8 KiB", self.rs256(self.attacker, self.header(kid="k" * 8192), c()), unknown_kid))
        # Psychic signature (CVE-2022-21449): ES256 with r = s = 0, and with r = s = n; and an ES256 signature by
        # another P-256 key. Under the RSA key's kid they are refused as an algorithm the key (or, at Apple's
        # endpoint, the service) does not take; under the service's own P-256 key (`ec_kid`, where it has one)
        # they reach the ECDSA check itself.
        order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
        p256 = ec.generate_private_key(ec.SECP256R1())
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        for kid, expected in [(self.kid, algorithm)] + ([(ec_kid, bad_signature)] if ec_kid else []):
            under = "the RSA key's kid" if kid == self.kid else "the service's P-256 kid"
            out.append((f"ES256 psychic signature r = s = 0 under {under}",
                        self.raw(self.header(alg="ES256", kid=kid), c(), bytes(64)), expected))
            out.append((f"ES256 signature r = s = n under {under}",
                        self.raw(self.header(alg="ES256", kid=kid), c(), order.to_bytes(32, "big") * 2), expected))
            message = self.signing_input(self.header(alg="ES256", kid=kid), c())
            r, s = decode_dss_signature(p256.sign(message.encode(), ec.ECDSA(hashes.SHA256())))
            out.append((f"ES256 by another key under {under}",
                        message + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")), expected))
        # An honest signature under a relabelled or mis-cased algorithm, and a `crit` the service cannot honour.
        for alg in ("rs256", "RS256 ", "PS256", "RS512"):
            out.append((f"alg {alg!r} over an RS256 signature", self.rs256(self.key, self.header(alg=alg), c()), algorithm))
        out.append(("crit naming an unknown header", self.rs256(self.key, self.header(crit=["exp"], exp=0), c()),
                    {"malformed_jws"}))
        # Expiry and audience: an honest signature over claims that are not the service's to accept.
        # (A SET carries no `exp`: RFC 8417 leaves its age to the receiver, and a late delivery is retried, not
        # forged; its replay is the `jti`'s to catch.)
        if self.form == "apple":
            stale = c()
            stale["iat"] = stale["iat"] - 30 * 86400
            stale["exp"] = stale["iat"] + 60
            out.append(("expired, honestly signed", self.rs256(self.key, self.header(), stale), {"expired"}))
        wrong = c()
        wrong["aud"] = "com.attacker.app"
        out.append(("another audience, honestly signed", self.rs256(self.key, self.header(), wrong), {"invalid_audience"}))
        return out, self.rs256(self.key, self.header(), c())


class AttackerServer:
    """The attacker's listener: counts every request, whatever it asks for."""

    def __init__(self, jwks):
        hits = self.hits = []
        body = json.dumps(jwks).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


class ConnectionCounter:
    """A TCP listener standing for an https:// host: counts every connection made to it, answers nothing."""

    def __init__(self):
        self.count = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"https://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            connection, _ = self.sock.accept()
            self.count += 1
            connection.close()


def post(url, form, token, bearer):
    if form == "apple":
        data, content_type = json.dumps({"payload": token}).encode(), "application/json"
    else:
        data, content_type = token.encode(), "application/secevent+jwt"
    headers = {"Content-Type": content_type}
    if bearer:
        headers["Authorization"] = "Bearer " + bearer
    request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, None
    except urllib.error.HTTPError as error:
        try:
            document = json.loads(error.read())
        except ValueError:
            document = None
        code = document.get("code") if isinstance(document, dict) else None
        return error.code, code


def main():
    parser = argparse.ArgumentParser()
    for name in ("--url", "--key", "--kid", "--aud", "--issuer"):
        parser.add_argument(name, required=True)
    parser.add_argument("--form", choices=("apple", "set"), required=True)
    parser.add_argument("--subject", default="001234.0123456789abcdef0123456789abcdef.0202")
    parser.add_argument("--bearer")
    parser.add_argument("--trusted-https")
    parser.add_argument("--ec-kid")
    args = parser.parse_args()
    if args.ec_kid is not None and args.ec_kid == args.kid:
        parser.error("--ec-kid must name another key than --kid")
    with open(args.key, "rb") as handle:
        key = serialization.load_pem_private_key(handle.read(), password=None)
    forge = Forge(key, args.kid, args.aud, args.issuer, args.form)
    attacker = AttackerServer({"keys": [jwk_of(forge.attacker.public_key(), args.kid)]})
    tls_host = ConnectionCounter()
    bases = [attacker.url, tls_host.url] + ([args.trusted_https] if args.trusted_https else [])
    attacks, control = forge.attacks(args.subject, bases, args.ec_kid)
    answers = {name: post(args.url, args.form, token, args.bearer) for name, token, _ in attacks}
    # Refused, but not for the reason the attack is about: its check was never reached.
    unexpected = {name: answers[name][1] for name, _, expected in attacks if answers[name][1] not in expected}
    results = {name: status for name, (status, _) in answers.items()}
    codes = {name: code for name, (_, code) in answers.items()}
    # The control last: accepted after every attack, the service is still taking notifications.
    control_status, _ = post(args.url, args.form, control, args.bearer)
    time.sleep(0.5)
    accepted = {name: status for name, status in results.items() if not 400 <= status < 500}
    print(json.dumps({"control": control_status, "attacks": results, "codes": codes, "accepted": accepted,
                      "unexpectedReasons": unexpected,
                      "attackerFetches": attacker.hits, "httpsConnections": tls_host.count}, indent=1))
    ok = 200 <= control_status < 300 and not accepted and not unexpected and not attacker.hits and tls_host.count == 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
