"""What-if studies over HTTP: fork a finished deal, play it on, compare, annotate, share."""
