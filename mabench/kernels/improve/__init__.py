"""Improving a given partition: local search (moves and swaps), ICSM's steps, large-neighbourhood
search and the drivers that combine them with restarts."""
