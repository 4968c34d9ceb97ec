"""Readers of what a repository declares, one per source; they yield candidates, never rank, never execute."""
