"""A software passkey for the server's tests: it answers WebAuthn ceremonies as an
authenticator would (an ES256 key, "none" attestation), so the server's real verification
(the ``webauthn`` library) runs on every test. The browser tests use Chromium's own
virtual authenticator instead."""

from __future__ import annotations

import hashlib
import json
import secrets
import struct
from base64 import urlsafe_b64decode, urlsafe_b64encode
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    return urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftKey:
    """One authenticator holding discoverable passkeys (one per relying party and user)."""

    def __init__(self, origin: str, verifies: bool = True) -> None:
        self.origin = origin
        #: Does it verify its user (a PIN, a fingerprint), or only see someone touch it?
        self.verifies = verifies
        self.keys: dict[bytes, tuple[ec.EllipticCurvePrivateKey, str, bytes]] = {}  # id -> key, rp, user
        self.count = 0

    def create(self, options: dict[str, Any] | str, cred_id: bytes | None = None) -> dict[str, Any]:
        """A new passkey; ``cred_id`` gives it a credential id of one already made (as a
        broken or hostile authenticator might)."""
        opts = json.loads(options) if isinstance(options, str) else options
        rp_id = opts["rp"]["id"]
        key = ec.generate_private_key(ec.SECP256R1())
        cred_id = cred_id if cred_id is not None else secrets.token_bytes(16)
        self.keys[cred_id] = (key, rp_id, unb64(opts["user"]["id"]))
        numbers = key.public_key().public_numbers()
        cose = cbor2.dumps(
            {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        )
        auth_data = (
            hashlib.sha256(rp_id.encode()).digest()
            + bytes([0x01 | self._uv | 0x40])
            + struct.pack(">I", 0)
            + bytes(16)
            + struct.pack(">H", len(cred_id))
            + cred_id
            + cose
        )
        client = self._client("webauthn.create", opts["challenge"])
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64(cred_id),
            "rawId": b64(cred_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def get(self, options: dict[str, Any] | str, cred_id: bytes | None = None) -> dict[str, Any]:
        opts = json.loads(options) if isinstance(options, str) else options
        rp_id = opts["rpId"]
        if cred_id is None:
            cred_id = next(i for i, (_, rp, _) in self.keys.items() if rp == rp_id)
        key, _, user = self.keys[cred_id]
        self.count += 1
        auth_data = (
            hashlib.sha256(rp_id.encode()).digest() + bytes([0x01 | self._uv]) + struct.pack(">I", self.count)
        )
        client = self._client("webauthn.get", opts["challenge"])
        signature = key.sign(auth_data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(cred_id),
            "rawId": b64(cred_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": b64(user),
            },
            "clientExtensionResults": {},
        }

    @property
    def _uv(self) -> int:
        """The authenticator data's UV flag (user verified), or nothing but UP (present)."""
        return 0x04 if self.verifies else 0

    def _client(self, kind: str, challenge: str) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False}
        ).encode()
