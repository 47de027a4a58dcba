"""The actions resource: a seat's action posted to its game; `schemas` holds the action bodies,
one to one with the domain's seat commands."""
