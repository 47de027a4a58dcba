"""The API's wire types, one module per resource: msgspec Structs for every request and
response body of /v1.

    text         the shared field types: a card, a bid, a name, a seat

Request bodies forbid unknown fields, so a typo (or a ``seat``, which always comes from the
token) fails loudly with 400. Responses may gain fields within /v1; clients ignore the ones they
do not know. JSON names are snake_case throughout, like the domain's.
"""
