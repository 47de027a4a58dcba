"""The players resource: registering, and the caller's own tokens, games and notifications;
`schemas` holds their bodies (and an invite's, which the table hands out)."""
