"""Seat tokens and table passwords: what the server hands out and what it keeps of them.

A seat token is a bearer secret: the server keeps only its SHA-256 digest (`token_key`), in
memory and in the database. A table password is kept as a salted PBKDF2 hash (`hash_password`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(18)


def token_key(token: str) -> str:
    """What the server keeps of a seat token: its SHA-256 digest (hex). A token is a bearer
    secret; the database holds only this."""
    return hashlib.sha256(token.encode()).hexdigest()


PBKDF2_ROUNDS = 10_000


def hash_password(password: str) -> str:
    """A table password as stored: `pbkdf2_sha256$ROUNDS$SALT$DIGEST` (hex)."""
    salt = os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, PBKDF2_ROUNDS)
    return f"pbkdf2_sha256${PBKDF2_ROUNDS}${salt.hex()}${digest.hex()}"


def password_matches(password: str, stored: str) -> bool:
    """Whether `password` is the one `stored` (from `hash_password`) was made from.

    >>> password_matches("芝麻", hash_password("芝麻")), password_matches("x", hash_password("y"))
    (True, False)
    """
    try:
        scheme, rounds, salt, digest = stored.split("$")
        if scheme != "pbkdf2_sha256":
            return False
        got = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), int(rounds))
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


def new_salt() -> str:
    """A fresh fair-deal salt (hex)."""
    return os.urandom(16).hex()
