"""A software WebAuthn authenticator for the API tests: what a phone or a password manager does
when a page calls ``navigator.credentials.create`` and ``.get`` (a P-256 key, no attestation,
a signature counter), so that passkeys are tested without a browser. The browser tests use
Chromium's own virtual authenticator."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SoftKey:
    """One passkey on one device, for the site ``rp_id`` seen from the page ``origin``."""

    def __init__(self, origin: str, rp_id: str) -> None:
        self.origin, self.rp_id = origin, rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.user_handle = b""
        self.count = 0

    def clone(self) -> SoftKey:
        """The same key copied to another device (its counter stays behind)."""
        twin = copy.copy(self)
        return twin

    def _client_data(self, kind: str, options: dict[str, Any]) -> bytes:
        return json.dumps({"type": kind, "challenge": options["challenge"],
                           "origin": self.origin, "crossOrigin": False}).encode()  # fmt: skip

    def create(self, options: dict[str, Any]) -> dict[str, Any]:
        self.user_handle = base64.urlsafe_b64decode(options["user"]["id"] + "==")
        numbers = self.key.public_key().public_numbers()
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"),
                            -3: numbers.y.to_bytes(32, "big")})  # fmt: skip
        attested = bytes(16) + len(self.credential_id).to_bytes(2, "big") + self.credential_id
        auth_data = (
            hashlib.sha256(self.rp_id.encode()).digest() + bytes([0x45])  # UP, UV, AT
            + self.count.to_bytes(4, "big") + attested + cose
        )  # fmt: skip
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64(self._client_data("webauthn.create", options)),
                         "attestationObject": b64(attestation), "transports": ["internal"]},
            "clientExtensionResults": {},
        }  # fmt: skip

    def get(self, options: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        client_data = self._client_data("webauthn.get", options)
        auth_data = (
            hashlib.sha256(self.rp_id.encode()).digest() + bytes([0x05])  # UP, UV
            + self.count.to_bytes(4, "big")
        )  # fmt: skip
        signature = self.key.sign(
            auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256())
        )
        return {
            "id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": b64(client_data), "authenticatorData": b64(auth_data),
                         "signature": b64(signature), "userHandle": b64(self.user_handle)},
            "clientExtensionResults": {},
        }  # fmt: skip
