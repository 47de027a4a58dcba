"""The accounts resource: a login, a password and passkeys on the caller's player, and signing
in with them; `schemas` holds their bodies."""
