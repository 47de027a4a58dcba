"""One deal (сдача) of Preferans as a pure decider."""
